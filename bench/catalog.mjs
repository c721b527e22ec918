#!/usr/bin/env node
// Agent catalog benchmark: loading 200 user manifests cold, next to reading the same
// 200 files raw (fs.readFile, the fastest plain async read, all at once) in the same run. Target: ≤ 3× raw and < 150 ms.
// "Cold" = the first load in a fresh Node process, timed from before the catalog's modules are
// required (their load and zod's schema set-up count); each figure is the median over fresh
// processes. The login shell's PATH is passed in, as the host passes the one it asked once at
// start: that query is not part of a load. Warm figures (the 10th load in one process) follow.
// Run after `npm run build`: node bench/catalog.mjs [--runs 15]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
/** Fresh processes per figure: odd, so the median is one real run; 15 steadies the ratio of two noisy medians (~20 s). */
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
const MANIFESTS = 200;
const TARGET_RATIO = 3;
const TARGET_MS = 150;

// 200 user manifests: the bundled ones under new ids, so every field kind is parsed.
const work = mkdtempSync(join(tmpdir(), 'termio-bench-catalog-'));
const userDir = join(work, 'home', '.termio', 'config', 'agents');
const emptyBundled = join(work, 'no-bundled');
mkdirSync(userDir, { recursive: true });
mkdirSync(emptyBundled);
const bundled = readdirSync(join(root, 'agents'))
  .filter((f) => f.endsWith('.json') && f !== 'manifest.schema.json')
  .map((f) => JSON.parse(readFileSync(join(root, 'agents', f), 'utf8')));
for (let i = 0; i < MANIFESTS; i++) {
  const m = { ...bundled[i % bundled.length], id: `agent-${i}`, name: `Agent ${i}`, order: i };
  writeFileSync(join(userDir, `agent-${i}.json`), JSON.stringify(m, null, 2));
}

const child = {
  raw: `
    const { readdir, readFile } = require('node:fs');
    const { join } = require('node:path');
    const read = (f) => new Promise((res, rej) => readFile(f, 'utf8', (e, t) => (e ? rej(e) : res(t))));
    (async () => {
      const t0 = performance.now();
      const names = (await new Promise((res, rej) => readdir(DIR, (e, n) => (e ? rej(e) : res(n))))).filter((n) => n.endsWith('.json'));
      const texts = await Promise.all(names.map((n) => read(join(DIR, n))));
      const ms = performance.now() - t0;
      if (texts.length !== ${MANIFESTS}) throw new Error('read ' + texts.length);
      process.stdout.write(JSON.stringify({ ms }));
    })();`,
  catalog: `
    const t0 = performance.now();
    const { AgentCatalog } = require(${JSON.stringify(join(root, 'dist', 'app', 'services', 'catalog.js'))});
    (async () => {
      const opts = { env: { HOME: HOMEDIR }, userDir: DIR, bundledDir: ${JSON.stringify(emptyBundled)}, watch: false, path: process.env.PATH };
      const c = await AgentCatalog.create(opts);
      const ms = performance.now() - t0;
      if (c.list().length !== ${MANIFESTS} || c.problems().length) throw new Error('loaded ' + c.list().length);
      process.stdout.write(JSON.stringify({ ms }));
    })();`,
};

function coldRun(kind) {
  const src = child[kind].replaceAll('HOMEDIR', JSON.stringify(join(work, 'home'))).replaceAll('DIR', JSON.stringify(userDir));
  const r = spawnSync(process.execPath, ['-e', src], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${kind} run failed: ${r.stderr}`);
  return JSON.parse(r.stdout).ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

benchStart('bench/catalog.mjs');
try {
  const raw = [];
  const cat = [];
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so both see the same machine load.
    raw.push(coldRun('raw'));
    cat.push(coldRun('catalog'));
  }
  const rawMs = median(raw);
  const catMs = median(cat);
  const ratio = catMs / rawMs;

  // Warm: the same work repeated in this process (JIT warmed, zod schemas compiled).
  const { AgentCatalog } = await import(join(root, 'dist', 'app', 'services', 'catalog.js'));
  const { readdir, readFile } = await import('node:fs/promises'); // warm figures only
  const warm = { raw: [], catalog: [] };
  for (let i = 0; i < 10; i++) {
    let t0 = performance.now();
    const names = (await readdir(userDir)).filter((n) => n.endsWith('.json'));
    await Promise.all(names.map((n) => readFile(join(userDir, n), 'utf8')));
    warm.raw.push(performance.now() - t0);
    t0 = performance.now();
    await AgentCatalog.create({ env: { HOME: join(work, 'home') }, userDir, bundledDir: emptyBundled, watch: false, path: process.env.PATH });
    warm.catalog.push(performance.now() - t0);
  }

  console.log(`${MANIFESTS} user manifests, median of ${RUNS} fresh processes (cold):`);
  console.log(`  raw readFile of the same files   ${rawMs.toFixed(1)} ms`);
  console.log(`  AgentCatalog, require + create   ${catMs.toFixed(1)} ms   = ${ratio.toFixed(2)}× raw`);
  console.log(
    `  target: ≤ ${TARGET_RATIO}× raw → ${target('catalog ≤ 3× raw', ratio <= TARGET_RATIO)};  < ${TARGET_MS} ms → ${target('catalog < 150 ms', catMs < TARGET_MS)}`,
  );
  console.log(
    `warm (10th run in one process): raw ${warm.raw.at(-1).toFixed(1)} ms, catalog ${warm.catalog.at(-1).toFixed(1)} ms (${(warm.catalog.at(-1) / warm.raw.at(-1)).toFixed(2)}×)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = benchEnd();
