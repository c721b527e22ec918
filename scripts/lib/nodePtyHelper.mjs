// node-pty's spawn-helper: on macOS every pty is started through this small program, and the npm
// package ships its prebuilt copies without the execute bit, so every session would fail with
// "posix_spawnp failed". Set-up and the .app build both restore the bit here. Plain Node, no
// dependencies (set-up runs it before anything else is installed).
//
//   node scripts/lib/nodePtyHelper.mjs DIR   sets the bit on DIR's helpers (DIR: a node-pty folder)
import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Execute for owner, group and others: what `npm install` gives any other program it unpacks. */
const EXEC_BITS = 0o111;

/** Every spawn-helper under a node-pty folder: the prebuilt ones and a locally compiled one. */
export function spawnHelpers(nodePtyDir) {
  const found = [];
  const prebuilds = join(nodePtyDir, 'prebuilds');
  if (existsSync(prebuilds)) {
    for (const platform of readdirSync(prebuilds)) {
      const file = join(prebuilds, platform, 'spawn-helper');
      if (existsSync(file)) found.push(file);
    }
  }
  for (const build of ['Release', 'Debug']) {
    const file = join(nodePtyDir, 'build', build, 'spawn-helper');
    if (existsSync(file)) found.push(file);
  }
  return found;
}

/** Adds the execute bits where they are missing; returns the files it changed. */
export function ensureSpawnHelperExecutable(nodePtyDir) {
  const changed = [];
  for (const file of spawnHelpers(nodePtyDir)) {
    const mode = statSync(file).mode & 0o7777;
    if ((mode & EXEC_BITS) === EXEC_BITS) continue;
    chmodSync(file, mode | EXEC_BITS);
    changed.push(file);
  }
  return changed;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir || !existsSync(dir)) {
    process.stderr.write(`nodePtyHelper: no node-pty folder at ${dir ?? '(none given)'}\n`);
    process.exit(2);
  }
  for (const file of ensureSpawnHelperExecutable(dir)) process.stdout.write(`made executable: ${file}\n`);
}
