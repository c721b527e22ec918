#!/usr/bin/env node
// Bundles the two long-lived processes, the app (src/app/main.ts) and the session host
// (src/app/host/hostMain.ts), each into one file at the path tsc gave its entry
// (dist/app/main.js, dist/app/host/hostMain.js), so every launcher runs the bundle. Run after
// `tsc -b` by `npm run build` and scripts/setup.mjs; type-checking stays tsc's job.
//
// Why: memory. A process that require()s zod's CommonJS build loads all of it, its 40-odd locales
// too: about 11 MB of resident memory in each process. Bundled from the ES module sources, only
// the schema kinds Termio uses are kept (about 200 KB of zod's 1 MB), and the app and the host
// each load one file instead of a few hundred modules. The CLI (dist/app/cli) stays as tsc built
// it: a short-lived process, run from the same dist/ folder.
//
// Packages with native addons or files of their own beside their code stay outside the bundle,
// loaded from node_modules as before.
//   node scripts/bundle.mjs
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Loaded from node_modules at run time: native addons (NodeGUI, node-pty, better-sqlite3), and node-notifier,
 *  which runs the notifier binaries it ships next to its own code. */
const EXTERNAL = ['@nodegui/nodegui', 'node-pty', 'node-notifier', 'better-sqlite3'];

const ENTRIES = [
  { in: join(root, 'src', 'app', 'main.ts'), out: join(root, 'dist', 'app', 'main.js') },
  { in: join(root, 'src', 'app', 'host', 'hostMain.ts'), out: join(root, 'dist', 'app', 'host', 'hostMain.js') },
];

for (const entry of ENTRIES) {
  await build({
    entryPoints: [entry.in],
    outfile: entry.out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    // A package's ES module build where it has one: jsonc-parser's CommonJS main is a UMD wrapper
    // whose require()s of its own files a bundler cannot follow.
    mainFields: ['module', 'main'],
    // V8 keeps each script's source for as long as the process runs, as a one-byte string only if
    // every character is ASCII: one "—" in a comment makes it two bytes a character. So comments
    // and white space go, and what is left is escaped to ASCII. Names are kept, for readable stack
    // traces; the source map beside the bundle (it replaces tsc's) maps them back to src/.
    minifyWhitespace: true,
    minifySyntax: true,
    charset: 'ascii',
    sourcemap: true,
    logLevel: 'warning',
  });
  // esbuild escapes strings but not regular-expression literals: name the one to write with \u.
  const text = readFileSync(entry.out, 'utf8');
  let at = 0;
  while (at < text.length && text.charCodeAt(at) <= 0x7f) at++;
  if (at < text.length) {
    console.error(
      `bundle.mjs: ${entry.out} is not ASCII at ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 20))}: write that character as a \\u escape in the source`,
    );
    process.exit(1);
  }
}
