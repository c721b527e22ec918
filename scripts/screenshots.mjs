#!/usr/bin/env node
// Regenerates the README's screenshots (assets/screenshots/*.png) from the current app with the
// real Claude Code CLI from npm, offline: runs test/e2e/screenshots.test.ts with
// TERMIO_WRITE_SCREENSHOTS=1 (set-up first, as npm test does). Needs what the e2e suite needs
// (Xvfb, xdotool, imagemagick) and the npm registry once, to install Claude Code into the cache.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const setup = spawnSync(process.execPath, [join(root, 'scripts', 'setup.mjs')], { stdio: 'inherit' });
if (setup.status !== 0) process.exit(setup.status ?? 1);
const r = spawnSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'e2e', 'test/e2e/screenshots.test.ts'], {
  stdio: 'inherit',
  cwd: root,
  // CI set (whatever the caller's CI says): a Claude Code that cannot be installed fails here
  // instead of leaving old pictures.
  env: { ...process.env, TERMIO_WRITE_SCREENSHOTS: '1', CI: 'true' },
});
if (r.status === 0) console.log(`screenshots written to ${join(root, 'assets', 'screenshots')}`);
process.exit(r.status ?? 1);
