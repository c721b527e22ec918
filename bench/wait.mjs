#!/usr/bin/env node
// `sessions wait` wake-up, against a real headless host (registry + control server on its Unix
// socket, a /bin/sh pty): the time from a session's state change to the waiter holding the reply.
//  (a) a client in another process (what `termio sessions wait` is), its clock shared through
//      performance.timeOrigin; target p99 ≤ 50 ms
//  (b) reference, same run: a bare Unix socket that writes one line when the same registry event
//      fires, read by the same kind of child process — the floor any event-driven wait sits on.
// Run after `npm run build`: node bench/wait.mjs [--runs 200]
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { ControlServer } = require(join(root, 'dist/app/host/control/controlServer.js'));
const { SessionRegistry, shellSpawner } = require(join(root, 'dist/app/host/sessions/sessionRegistry.js'));
const { termioPaths } = require(join(root, 'dist/app/services/paths.js'));

const runsArg = process.argv.indexOf('--runs');
// 200 runs: enough samples for a p99 that is not just the single worst one.
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 200;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms  p95 ${pct(xs, 95).toFixed(1)} ms  p99 ${pct(xs, 99).toFixed(1)} ms  (n=${xs.length})`;
const now = () => performance.timeOrigin + performance.now();

async function until(check, what, timeoutMs = 10_000) {
  const t0 = performance.now();
  while (!check()) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

const home = realpathSync(mkdtempSync(join(tmpdir(), 'twait-')));
const env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio') };
const registry = new SessionRegistry({ spawner: shellSpawner(['/bin/sh'], { PS1: '$ ', ENV: '' }), defaultCwd: home });
const server = new ControlServer({ paths: termioPaths(env), registry });

// The waiter process: one connection, then per line on stdin one request; prints the wall-clock
// time (ms since the epoch, sub-ms) at which each reply arrived.
const waiterFile = join(home, 'waiter.cjs');
writeFileSync(
  waiterFile,
  `const { ControlClient } = require(${JSON.stringify(join(root, 'dist/app/client/controlClient.js'))});
   const readline = require('node:readline');
   (async () => {
     const c = await ControlClient.connect(process.env);
     readline.createInterface({ input: process.stdin }).on('line', async (id) => {
       const r = await c.request('sessions.wait', { id, until: 'done', timeoutMs: 10000 }, 20000);
       const at = performance.timeOrigin + performance.now();
       process.stdout.write(JSON.stringify({ at, outcome: r.ok ? r.result.outcome : r.error.message }) + '\\n');
     });
   })();`,
);
// The reference reader: connects to a bare socket and reports when each line arrives.
const readerFile = join(home, 'reader.cjs');
writeFileSync(
  readerFile,
  `const s = require('node:net').createConnection(process.argv[2]);
   s.setEncoding('utf8');
   s.on('data', (d) => { const at = performance.timeOrigin + performance.now(); for (const _ of d.split('\\n').filter(Boolean)) process.stdout.write(JSON.stringify({ at }) + '\\n'); });`,
);

function child(file, args = []) {
  const p = spawn(process.execPath, [file, ...args], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let buf = '';
  p.stdout.setEncoding('utf8').on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) !== -1; buf = buf.slice(i + 1)) lines.push(JSON.parse(buf.slice(0, i)));
  });
  return { p, lines };
}

benchStart('bench/wait.mjs');
try {
  const listening = await server.listen();
  if (!listening.ok) throw new Error(listening.message);
  const spawned = await registry.spawn({ title: 'waited on' });
  if (!spawned.ok) throw new Error(spawned.message);
  const id = spawned.record.id;

  const refSocket = join(home, 'ref.sock');
  const refClients = [];
  const ref = createServer((s) => refClients.push(s));
  await new Promise((r) => ref.listen(refSocket, r));
  registry.onStateChanged((c) => c.record.state === 'done' && refClients.forEach((s) => s.write(`${c.record.id}\n`)));

  const waiter = child(waiterFile);
  const reader = child(readerFile, [refSocket]);
  await until(() => refClients.length === 1, 'the reference reader');

  const wait = [];
  const bare = [];
  for (let i = 0; i < RUNS; i++) {
    registry.setState(id, 'working', 'bench: working');
    waiter.p.stdin.write(`${id}\n`);
    await until(() => server.waits.pending === 1, 'the wait to be in place');
    // A beat between runs so one run's reply is not still in flight when the next state changes.
    await new Promise((r) => setTimeout(r, 2));
    const t0 = now();
    registry.setState(id, 'done', 'bench: done');
    await until(() => waiter.lines.length === i + 1 && reader.lines.length === i + 1, 'both replies');
    const reply = waiter.lines[i];
    if (reply.outcome !== 'settled') throw new Error(`wait ended ${reply.outcome}`);
    wait.push(reply.at - t0);
    bare.push(reader.lines[i].at - t0);
  }
  waiter.p.kill();
  reader.p.kill();
  ref.close();
  console.log('sessions wait wake-up after a state change (a client in another process, over the control socket)');
  console.log(`    sessions.wait reply          ${fmt(wait)}`);
  console.log(`    reference: bare socket line  ${fmt(bare)}`);
  console.log(
    `    ratio p50 ${(pct(wait, 50) / pct(bare, 50)).toFixed(2)}x   target p99 ≤ 50 ms: ${target('sessions wait wake-up p99 ≤ 50 ms', pct(wait, 99) <= 50)}`,
  );
} finally {
  await server.close();
  registry.dispose();
  rmSync(home, { recursive: true, force: true });
}
process.exitCode = benchEnd();
