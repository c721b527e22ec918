#!/usr/bin/env node
// npm run bench: builds, then runs every bench/*.mjs in turn (each prints its own figures and its
// verdict). Exits non-zero when set-up fails or any bench missed a target or failed to run, and
// names those benches at the end.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const setup = spawnSync(process.execPath, [join(root, 'scripts', 'setup.mjs')], { stdio: 'inherit' });
if (setup.status !== 0) process.exit(setup.status ?? 1);
const failed = [];
for (const f of readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.mjs'))
  .sort()) {
  if (only.length && !only.some((o) => f.includes(o))) continue;
  console.log(`\n=== bench/${f}`);
  const r = spawnSync(process.execPath, [join(root, 'bench', f)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed.push(`bench/${f} (${r.status === 1 ? 'missed a target' : `exit ${r.status ?? r.signal}`})`);
}
if (failed.length) {
  console.log(`\nbench: ${failed.length} failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log('\nbench: every target met');
