#!/usr/bin/env node
// Session holder benchmark. Each figure is printed next to a reference measured in the same run
// (the same session without a holder) and its target; the script exits 1 on a missed target:
//   key → echo through `cat` on a holder vs on a local pty, interleaved key by key: added p50 ≤
//   0.2 ms;
//   throughput of a 20 MB `seq` through a holder vs a local pty: ≥ 0.97× (median of runs);
//   RSS of an idle holder (its agent an idle shell): ≤ 1 MiB each;
//   a new termio-host adopting 50 held shells after a kill -9: all screens back p50 ≤ 1 s, next
//   to a holder-less host relaunching the same 50 tabs through resume (their prompts back).
// Run after `node scripts/setup.mjs`: node bench/holder.mjs [--runs 3] [--adoption]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const runsArg = args.indexOf('--runs');
/** Runs per throughput and adoption figure (median): 3 keeps the bench near two minutes on 2 cores. */
const RUNS = runsArg >= 0 ? Number(args[runsArg + 1]) : 3;
/** Keys per latency sample set, on each side: enough for a stable p50 and p99 in a few seconds. */
const KEYS = 400;
/** Sessions adopted at once: a busy user's tabs. */
const ADOPT_SESSIONS = 50;
/** Idle holders measured for RSS. */
const IDLE_HOLDERS = 10;

const binary = join(root, 'native', 'termio-holder', 'build', 'termio-holder');
if (!existsSync(binary) || !existsSync(join(root, 'dist', 'terminal', 'node', 'index.js'))) {
  console.error('bench/holder: build first (node scripts/setup.mjs): the holder binary or dist/ is missing');
  process.exit(2);
}
const { Session } = require(join(root, 'dist', 'terminal', 'node'));
const { HostClient } = require(join(root, 'dist', 'app', 'client', 'hostClient'));
const { collectRows, rowText } = require(join(root, 'dist', 'protocol', 'hostFrame'));

const work = mkdtempSync(join(tmpdir(), 'termio-bench-holder-'));
const started = [];
const homes = [];
process.on('exit', () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const h of [work, ...homes]) rmSync(h, { recursive: true, force: true });
});

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor((a.length * p) / 100))];
const f2 = (n) => n.toFixed(2);
let missed = 0;
function report(name, value, reference, target, ok) {
  if (!ok) missed++;
  console.log(`${ok ? 'ok  ' : 'MISS'} ${name}: ${value}  (reference: ${reference}; target ${target})`);
}

let socketN = 0;
async function open(held, argv) {
  const opts = { argv, cwd: work, cols: 80, rows: 24, env: { PS1: '$ ', ENV: '' } };
  const s = held ? await Session.spawnHeld(opts, { binary, socketPath: join(work, `b${socketN++}.sock`) }) : Session.spawn(opts);
  if (!('pid' in s)) throw new Error(s.message);
  return s;
}

/** A `cat` session's echo timer: writes one key and resolves with the ms until its echo came back. */
function echoProbe(s) {
  let waiting = null;
  s.onOutput((b) => {
    if (waiting && b.includes(waiting.byte)) {
      const w = waiting;
      waiting = null;
      w.resolve(performance.now() - w.t0);
    }
  });
  return (ch) =>
    new Promise((resolve) => {
      waiting = { byte: ch.charCodeAt(0), t0: performance.now(), resolve };
      s.write(ch);
    });
}

/** Key → echo on a local pty and through a holder, key by key in a random order each round, so
 *  both see the same moments of the machine's load. */
async function echoLatencies() {
  const local = await open(false, ['/bin/cat']);
  const held = await open(true, ['/bin/cat']);
  const probes = { local: echoProbe(local), held: echoProbe(held) };
  const out = { local: [], held: [] };
  for (let i = 0; i < KEYS; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    for (const which of Math.random() < 0.5 ? ['local', 'held'] : ['held', 'local']) {
      out[which].push(await probes[which](ch));
      // A keystroke, not a burst: the next key after the echo settled.
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  local.dispose();
  held.dispose();
  return out;
}

async function throughput(held) {
  const s = await open(held, ['/bin/sh', '-c', 'seq 1 2600000']);
  const t0 = performance.now();
  await new Promise((r) => (s.exited ? r() : s.onExit(r)));
  const ms = performance.now() - t0;
  const bytes = s.streamOffset;
  s.dispose();
  return bytes / 1e6 / (ms / 1000);
}

function rssKb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

async function idleRss() {
  const sessions = [];
  for (let i = 0; i < IDLE_HOLDERS; i++) sessions.push(await open(true, ['/bin/sh']));
  await new Promise((r) => setTimeout(r, 500));
  const holders = sessions.map((s) => rssKb(s.holder.hello.holderPid));
  const shells = sessions.map((s) => rssKb(s.pid));
  for (const s of sessions) s.dispose();
  return { holder: median(holders), shell: median(shells) };
}

// ---- adoption by a new termio-host ------------------------------------------------------------

function hostEnv(home, holders) {
  return {
    ...process.env,
    HOME: home,
    TERMIO_HOME: join(home, '.termio'),
    TERMIO_HOST_IDLE_MS: '0',
    TERMIO_HOLDERS: holders ? '1' : '0',
    PS1: '$ ',
    ENV: '',
    SHELL: '/bin/sh',
  };
}

function startHost(env) {
  const child = spawn(process.execPath, [join(root, 'bin', 'termio-host')], { env, stdio: 'ignore', detached: true });
  started.push(child.pid);
  return child;
}

async function connect(env) {
  const sock = join(env.TERMIO_HOME, 'run', 'host.sock');
  for (;;) {
    const c = await HostClient.connect(sock, { client: 'bench', version: '0' });
    if (c instanceof HostClient) return c;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Attaches a view per session; resolves when every view's screen passes `ok(text, id)`. */
async function screensBack(c, ids, ok) {
  const screens = new Map();
  const done = new Set();
  return new Promise((resolve) => {
    c.onFrame((h, reader) => {
      const id = ids[h.view - 1];
      const rows = screens.get(id) ?? new Array(h.rows).fill('');
      for (const r of collectRows(reader)) rows[r.y] = rowText(r.runs).trimEnd();
      screens.set(id, rows);
      c.ack(h.view, h.seq);
      if (ok(rows.join('\n'), id)) done.add(id);
      if (done.size === ids.length) resolve(screens);
    });
    ids.forEach((id, i) => void c.request('attach', { session: id, view: i + 1, cols: 80, rows: 24 }));
  });
}

async function adoptionRun(holders) {
  // Short: a holder's socket path (run/holders/<uuid>.sock) must fit in 104 bytes.
  const home = mkdtempSync(join(tmpdir(), 'thb-'));
  homes.push(home);
  const env = hostEnv(home, holders);
  const host = startHost(env);
  const c = await connect(env);
  await c.request('app.subscribe', { restore: false }, 60_000);
  const ids = [];
  for (let i = 0; i < ADOPT_SESSIONS; i++) {
    const r = await c.request('app.launch', { agentId: null, cwd: home, bypass: false, windowId: 'window-1' }, 60_000);
    if (!r.ok) throw new Error(r.error.message);
    ids.push(r.result.session.id);
  }
  console.error(`adoption run (${holders ? 'holders' : 'no holders'}): ${ids.length} sessions launched`);
  await screensBack(c, ids, (t) => /[$#]$/m.test(t));
  console.error('prompts shown');
  // Output each shell keeps on screen: the same text must come back.
  ids.forEach((_id, i) => c.input(i + 1, { kind: 'text', text: `seq 1 ${30 + i}; echo screen-${i}\r` }));
  const expected = new Map();
  const c2 = await connect(env);
  const shown = await screensBack(c2, ids, (t, id) => new RegExp(`^screen-${ids.indexOf(id)}\n[$#]$`, 'm').test(t));
  for (const [id, rows] of shown) expected.set(id, rows.join('\n'));
  c.close();
  c2.close();
  // Let each held session checkpoint on quiet, as it would before a crash.
  await new Promise((r) => setTimeout(r, 1500));
  process.kill(host.pid, 'SIGKILL');
  await new Promise((r) => host.on('exit', r));
  const t0 = performance.now();
  startHost(env);
  const c3 = await connect(env);
  if (!holders) await c3.request('app.subscribe', { restore: true }, 120_000);
  await screensBack(c3, ids, (t, id) => (holders ? t === expected.get(id) : /^[$#]$/m.test(t)));
  const ms = performance.now() - t0;
  await c3.request('host.stop', {});
  c3.close();
  return ms;
}

// ---- run --------------------------------------------------------------------------------------

console.log(`load at start: ${loadavg()[0].toFixed(1)}`);
// --adoption: only the last figure (it takes the longest).
if (!args.includes('--adoption')) await pipeFigures();

async function pipeFigures() {
  const { local: refEcho, held: heldEcho } = await echoLatencies();
  const added = median(heldEcho) - median(refEcho);
  report(
    'key → echo, added by the holder (p50)',
    `${f2(added)} ms (held p50 ${f2(median(heldEcho))}, p99 ${f2(pct(heldEcho, 99))} ms)`,
    `local pty p50 ${f2(median(refEcho))}, p99 ${f2(pct(refEcho, 99))} ms`,
    '≤ 0.2 ms added',
    added <= 0.2,
  );

  const refT = [];
  const heldT = [];
  for (let i = 0; i < RUNS; i++) {
    refT.push(await throughput(false));
    heldT.push(await throughput(true));
  }
  const ratio = median(heldT) / median(refT);
  report('throughput through a holder', `${f2(median(heldT))} MB/s = ${f2(ratio)}×`, `local pty ${f2(median(refT))} MB/s`, '≥ 0.97×', ratio >= 0.97);

  const rss = await idleRss();
  report('RSS of an idle holder', `${rss.holder} kB`, `its idle shell ${rss.shell} kB; no holder: 0`, '≤ 1024 kB', rss.holder <= 1024);
}

const refA = [];
const heldA = [];
for (let i = 0; i < RUNS; i++) {
  heldA.push(await adoptionRun(true));
  refA.push(await adoptionRun(false));
}
report(
  `host start adopting ${ADOPT_SESSIONS} holders → all screens back (p50)`,
  `${Math.round(median(heldA))} ms (runs ${heldA.map(Math.round).join(', ')})`,
  `no holders, ${ADOPT_SESSIONS} tabs relaunched to their prompt: ${Math.round(median(refA))} ms`,
  '≤ 1000 ms',
  median(heldA) <= 1000,
);

console.log(`load at end: ${loadavg()[0].toFixed(1)}`);
console.log(missed ? `bench/holder: ${missed} target(s) missed` : 'bench/holder: every target met');
process.exit(missed ? 1 : 0);
