#!/usr/bin/env node
// npm run bench: builds, then runs every bench/*.mjs in turn (each prints its own figures).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
spawnSync(process.execPath, [join(root, 'scripts', 'setup.mjs')], { stdio: 'inherit' });
for (const f of readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.mjs')).sort()) {
  if (only.length && !only.some((o) => f.includes(o))) continue;
  console.log(`\n=== bench/${f}`);
  spawnSync(process.execPath, [join(root, 'bench', f)], { stdio: 'inherit', cwd: root });
}
