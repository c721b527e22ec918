#!/usr/bin/env node
// Builds the web companion's page into dist/web: src/app/web/main.ts bundled with @xterm/xterm
// by esbuild into one app.js, the service worker src/app/web/sw.ts into sw.js (served at the root,
// so its scope is the whole page), style.css (with xterm's own CSS) into app.css, index.html and
// the web app manifest copied, with its icons (assets/brand/web, drawn by scripts/web-icons.mjs). The host serves exactly the files in that folder. Run by `npm run build` and by
// scripts/setup.mjs; type-checking is tsc's job (src/app/web/tsconfig.json), not esbuild's.
//   node scripts/build-web.mjs [outDir]
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'app', 'web');
const out = resolve(process.argv[2] ?? join(root, 'dist', 'web'));

// Built into a fresh folder: a file left from an older build would still be served.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(src, 'main.ts'), sw: join(src, 'sw.ts') },
  bundle: true,
  minify: true,
  format: 'iife',
  // Safari 15 / Chrome 100 era phones: every API the page uses is there.
  target: ['es2021', 'safari15', 'chrome100'],
  outdir: out,
  logLevel: 'warning',
  legalComments: 'none',
});
await build({
  entryPoints: { app: join(src, 'style.css') },
  bundle: true,
  minify: true,
  outdir: out,
  logLevel: 'warning',
});
for (const name of readdirSync(src)) if (name.endsWith('.html') || name.endsWith('.webmanifest')) copyFileSync(join(src, name), join(out, name));
const icons = join(root, 'assets', 'brand', 'web');
for (const name of readdirSync(icons)) if (name.endsWith('.png')) copyFileSync(join(icons, name), join(out, name));
