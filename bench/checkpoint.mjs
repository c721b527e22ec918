#!/usr/bin/env node
// What a checkpoint of a held session holds the host's event loop for: serializing a 110×44
// emulator with 10,000 lines of history to the UTF-8 the checkpoint file gets (Session.snapshotBytes,
// src/terminal/node/screenSerializer.ts), for
// the output of `ls -lR /usr`, `seq`, per-character truecolor text, and the same truecolor history
// under a full-screen program. Each figure beside @xterm/addon-serialize on the same emulator,
// interleaved (the serializer Termio used before), both serializing everything: target ≤ 0.5× its
// time. Under the full-screen program the host's later checkpoints reuse the history serialized by
// the one before (a HistoryCache, which the addon has no counterpart of): that time is printed
// beside it, not compared. Each output is also written into a fresh emulator, whose screen text
// must equal the original's.
// Run after `npm run build`: node bench/checkpoint.mjs [--runs 7]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { writeCorpora } from './lib/corpora.mjs';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
/** Timed serializations per corpus and side (median). */
const RUNS = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 7;
const COLS = 110;
const ROWS = 44;
const SCROLLBACK = 10_000;
/** The new serializer's time may be at most this share of the addon's. */
const RATIO_TARGET = 0.5;

const { createEmulator } = require(join(root, 'dist', 'terminal', 'node', 'createEmulator.js'));
const { HistoryCache, serializeScreenBytes } = require(join(root, 'dist', 'terminal', 'node', 'screenSerializer.js'));
const { SerializeAddon } = require('@xterm/addon-serialize');

const work = mkdtempSync(join(tmpdir(), 'termio-bench-checkpoint-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const f1 = (n) => n.toFixed(1);

const write = (t, data) => new Promise((r) => t.write(data, r));
/** Output as a terminal receives it: line feeds as CR LF, as a pty's line discipline sends them. */
const crlf = (s) => s.replace(/\n/g, '\r\n');

function screenText(t) {
  const b = t.buffer.active;
  const out = [];
  for (let y = 0; y < b.length; y++) out.push(b.getLine(y).translateToString(true));
  return out.join('\n');
}

async function corpora() {
  const files = writeCorpora(work);
  const file = (name) => readFileSync(files.find((c) => c.name === name).argv[1], 'utf8');
  const ls = spawnSync('/bin/sh', ['-c', 'ls --color=always -lR /usr 2>/dev/null | head -c 3000000'], { encoding: 'utf8', maxBuffer: 1e8 }).stdout;
  let seq = '';
  for (let i = 1; i <= 200_000; i++) seq += `${i}\n`;
  const truecolor = crlf(file('truecolor/char'));
  return [
    { name: 'ls -lR /usr', data: crlf(ls) },
    { name: 'seq', data: crlf(seq) },
    { name: 'truecolor/char', data: truecolor },
    // vim, top or an agent's TUI over that history: the history cannot change under it.
    { name: 'TUI over it', data: `${truecolor}\x1b[?1049h\x1b[H\x1b[1;36m⠋\x1b[0m Working… (1 tokens)`, cache: true },
  ];
}

benchStart('bench/checkpoint.mjs');
console.log(
  `Serializing ${COLS}×${ROWS} with ${SCROLLBACK.toLocaleString('en')} lines of history (all of it; a checkpoint spreads it over ~3 ms steps of the host's loop), median of ${RUNS}`,
);
console.log('  history          MB out   Termio ms   addon ms   ratio   target ≤ 0.5×   rebuilt screen');
for (const c of await corpora()) {
  const t = createEmulator({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK });
  await write(t, c.data);
  const addon = new SerializeAddon();
  t.loadAddon(addon);
  // The warm side: a cache filled once, as the first checkpoint fills it; its figure is of the
  // checkpoints after that one.
  const cache = c.cache ? new HistoryCache(t) : undefined;
  if (cache) serializeScreenBytes(t, SCROLLBACK, cache);
  const ours = [];
  const theirs = [];
  const warm = [];
  let out = [];
  let warmOut = [];
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    out = serializeScreenBytes(t, SCROLLBACK);
    ours.push(performance.now() - t0);
    t0 = performance.now();
    addon.serialize({ scrollback: SCROLLBACK });
    theirs.push(performance.now() - t0);
    if (!cache) continue;
    t0 = performance.now();
    warmOut = serializeScreenBytes(t, SCROLLBACK, cache);
    warm.push(performance.now() - t0);
  }
  const same = (await rebuiltText(out)) === screenText(t);
  const ratio = median(ours) / median(theirs);
  console.log(
    `  ${c.name.padEnd(16)} ${f1(out.reduce((n, b) => n + b.length, 0) / 1e6).padStart(6)}   ${f1(median(ours)).padStart(9)}   ${f1(median(theirs)).padStart(8)}   ${ratio.toFixed(2).padStart(5)}   ${target(`${c.name} ≤ ${RATIO_TARGET}× the addon`, ratio <= RATIO_TARGET).padEnd(14)}  ${target(`${c.name} rebuilt`, same) === 'met' ? 'same text' : 'DIFFERENT'}`,
  );
  if (cache) {
    const warmSame = (await rebuiltText(warmOut)) === screenText(t);
    console.log(
      `    its history cached by the checkpoint before (the host's later checkpoints; no addon counterpart): ${f1(median(warm))} ms   rebuilt screen: ${target(`${c.name}, history cached, rebuilt`, warmSame) === 'met' ? 'same text' : 'DIFFERENT'}`,
    );
    cache.dispose();
  }
  t.dispose();
}

/** The screen text of a fresh emulator that was given a serializer's output. */
async function rebuiltText(out) {
  const rebuilt = createEmulator({ cols: COLS, rows: ROWS, scrollback: SCROLLBACK });
  await write(rebuilt, Buffer.concat(out));
  const text = screenText(rebuilt);
  rebuilt.dispose();
  return text;
}
process.exitCode = benchEnd();
