// Live status benchmarks. Run `npm run build` first, then `node bench/status.mjs [--runs 60]`.
// Prints, each next to a reference measured in the same run:
//  1. reporter wall time per hook call (target p50 ≤ 10 ms) for the Node reporter and the native one
//     (native/termio-hook, built by scripts/setup.mjs), beside /bin/true and `node -e 0`;
//  2. hook event → session state changed in the host at 200 events/s (target p99 ≤ 20 ms, zero lost);
//  3. 10,000 malformed, oversized and wrong-session reports: every state untouched, memory flat.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { HookServer } = require(join(root, 'dist/app/host/status/hookServer.js'));
const { StatusTracker } = require(join(root, 'dist/app/host/status/statusTracker.js'));
const { termioPaths } = require(join(root, 'dist/app/services/paths.js'));
const { Emitter } = require(join(root, 'dist/protocol/events.js'));
const { HOOK_REPORT_VERSION } = require(join(root, 'dist/protocol/hookReport.js'));

benchStart('bench/status.mjs');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const REPORTERS = [
  // The Node reporter is the fallback without a C compiler: printed, but its Node start-up alone
  // is past the target, which is the native one's.
  { name: 'termio-hook (Node)', argv: [process.execPath, join(root, 'bin', 'termio-hook')], target: false },
  { name: 'termio-hook (native)', argv: [join(root, 'native', 'termio-hook', 'build', 'termio-hook')], target: true },
];
/** Hook calls per measurement: enough for a stable p50/p99 within a few seconds on 2 cores. */
const RUNS = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 60;
/** The rate of a busy agent firing tool hooks (bench/README.md's target row). */
const EVENTS_PER_SECOND = 200;
const EVENTS = 1_000;
const MALFORMED = 10_000;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => `${x.toFixed(2)} ms`;

/** One run's wall time; async, so the hook server in this process keeps serving meanwhile. */
async function once(cmd, args, opts = {}) {
  const t = process.hrtime.bigint();
  await new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'ignore', 'ignore'], env: opts.env ?? process.env });
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
    child.on('close', resolve);
  });
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** Wall times of several commands run in turn, one of each per round in a new random order each
 *  round: references and subjects see the same warm-up and the same machine load, and none always
 *  runs right after another (a fixed order would hand the same neighbour's after-effects, its
 *  exit and reaping, to the same command every round). */
async function interleaved(cases) {
  const times = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (const k of shuffled(cases.keys())) times[k].push(await once(cases[k].cmd, cases[k].args, cases[k].opts));
  }
  return times;
}

/** The items in a random order (Fisher–Yates). */
function shuffled(items) {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

function row(name, times, note = '') {
  console.log(`  ${name.padEnd(64)} p50 ${ms(pct(times, 50)).padStart(10)}  p99 ${ms(pct(times, 99)).padStart(10)}${note}`);
}

const home = mkdtempSync(join(tmpdir(), 'termio-bench-status-'));
const tracker = new StatusTracker();
// Reports must prove they come from the session's own agent: its secret, and the agent among the
// reporter's ancestors. Here the "agent" is this process: the reporters below are its children.
const SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstu';
const started = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), secretOf: (id) => (tracker.isTracked(id) ? SECRET : undefined) });
if (!(started instanceof HookServer)) throw new Error(started.message);
const server = started;
server.onReport((r) => tracker.handleReport(r));

/** A session source with no pty: the bench measures the hook path, not a terminal. */
function fakeSource(id) {
  const never = new Emitter();
  return { id, pid: process.pid, title: '', exited: null, onTitle: never.event, onRender: never.event, onExit: never.event, screenLines: () => [] };
}
const agent = {
  agentId: 'claude',
  hooks: {
    dialect: 'claude',
    conversation: 'session_id',
    events: [
      { on: 'PreToolUse', state: 'working' },
      { on: 'Stop', state: 'done' },
    ],
  },
};
const SESSION = '0f5c2b1a-8e7d-4c6b-9a5f-3e2d1c0b9a87';
tracker.track(fakeSource(SESSION), agent);

// 1. Reporter wall time.
console.log('\n1. reporter wall time per hook call (target p50 ≤ 10 ms)');
const payload = JSON.stringify({
  session_id: 'abc',
  transcript_path: '/t.jsonl',
  cwd: '/w',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'npm test' },
});
const inEnv = { ...process.env, TERMIO_SESSION: SESSION, TERMIO_SESSION_SECRET: SECRET, TERMIO_HOOK_SOCKET: server.socketPath };
const outEnv = { ...process.env };
delete outEnv.TERMIO_SESSION;
const gone = { ...inEnv, TERMIO_HOOK_SOCKET: join(home, 'run', 'gone.sock') };
const hookArgs = ['claude', 'working', 'PreToolUse'];
for (const { name, argv, target: hasTarget } of REPORTERS) {
  if (!existsSync(argv[0])) {
    console.log(`  ${name}: not built (run node scripts/setup.mjs; it needs a C compiler)`);
    if (hasTarget) target(`${name} built`, false);
    continue;
  }
  const [cmd, ...args] = [...argv, ...hookArgs];
  const before = server.stats.accepted;
  // What the agent really runs: the installed hook command, through sh, with its guard.
  const guard = `[ -z "$TERMIO_SESSION" ] || ${[cmd, ...args].join(' ')}`;
  const cases = [
    { label: 'reference: /bin/true', cmd: '/bin/true', args: [] },
    { label: 'reference: node -e 0 (Node start-up floor)', cmd: process.execPath, args: ['-e', '0'] },
    { label: `${name} inside Termio (sends a report)`, cmd, args, opts: { env: inEnv, input: payload } },
    { label: `${name}, hook command inside Termio (sh + report)`, cmd: '/bin/sh', args: ['-c', guard], opts: { env: inEnv, input: payload } },
    { label: `${name}, hook command outside Termio (sh guard)`, cmd: '/bin/sh', args: ['-c', guard], opts: { env: outEnv, input: payload } },
    { label: `${name} run directly outside Termio`, cmd, args, opts: { env: outEnv, input: payload } },
    { label: `${name} inside Termio, app gone`, cmd, args, opts: { env: gone, input: payload } },
  ];
  const times = await interleaved(cases);
  for (const [k, c] of cases.entries()) row(c.label, times[k]);
  const delivered = server.stats.accepted - before;
  console.log(`  ${name}: delivered ${delivered}/${2 * RUNS} reports`);
  if (hasTarget) {
    console.log(
      `  ${name} inside Termio: target p50 ≤ 10 ms ${target(`${name} p50 ≤ 10 ms`, pct(times[2], 50) <= 10)}; every report delivered ${target(`${name} delivers every report`, delivered === 2 * RUNS)}`,
    );
  }
}

// 2. Hook event → state change latency at 200 events/s.
console.log(`\n2. hook event → session state changed, ${EVENTS} events at ${EVENTS_PER_SECOND}/s (target p99 ≤ 20 ms, zero lost)`);
const pending = new Map();
const latencies = [];
tracker.onStateChange((c) => {
  const t0 = pending.get(c.status.why.event);
  if (t0 === undefined) return;
  pending.delete(c.status.why.event);
  latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
});
// Alternate so every event changes the state, starting from whatever section 1 left.
const first = tracker.status(SESSION).state === 'working' ? 'done' : 'working';
const other = first === 'working' ? 'done' : 'working';
const frameFor = (i) =>
  `${JSON.stringify({ v: HOOK_REPORT_VERSION, session: SESSION, secret: SECRET, parents: [[process.pid, 'node']], agent: 'claude', state: i % 2 ? other : first, event: `E${i}`, payload: payload, truncated: false })}\n`;
const acceptedBefore = server.stats.accepted;
const sendFrame = (text, socketPath = server.socketPath) =>
  new Promise((resolve) => {
    const c = createConnection(socketPath);
    c.resume(); // Termio's answer once the report is applied
    c.on('error', resolve);
    c.on('close', resolve);
    c.on('connect', () => c.end(text));
  });
// The same-run reference: a bare unix socket server in this process that only reads each
// connection's frame to its newline, sent the same frame at the same moments.
const barePending = new Map();
const bareLatencies = [];
const bareSocket = join(home, 'bare.sock');
const bare = createServer((c) => {
  let text = '';
  c.on('data', (d) => {
    text += d;
    if (!text.includes('\n')) return;
    const t0 = barePending.get(JSON.parse(text).event);
    if (t0 !== undefined) bareLatencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
  });
  c.on('error', () => {});
});
await new Promise((r) => bare.listen(bareSocket, r));
const startAt = performance.now();
const sends = [];
for (let i = 0; i < EVENTS; i++) {
  const due = startAt + (i * 1000) / EVENTS_PER_SECOND;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  // Alternate which goes first, so neither always has the other's connect ahead of it.
  const both = [
    [pending, server.socketPath],
    [barePending, bareSocket],
  ];
  for (const [waiting, socketPath] of i % 2 ? both.reverse() : both) {
    waiting.set(`E${i}`, process.hrtime.bigint());
    sends.push(sendFrame(frameFor(i), socketPath));
  }
}
await Promise.all(sends);
const deadline = Date.now() + 2_000;
while (pending.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
await new Promise((r) => bare.close(r));
const lost = EVENTS - (server.stats.accepted - acceptedBefore);
row('reference: socket connect + frame → a bare server read it', bareLatencies);
row('socket connect + frame → onStateChange', latencies, `   lost ${lost}`);
console.log(
  `  target p99 ≤ 20 ms ${target('hook event → state p99 ≤ 20 ms', pct(latencies, 99) <= 20)}, none lost ${target('no hook event lost', lost === 0)}`,
);
if (pending.size) console.log(`  ${pending.size} events arrived out of order and so changed no state`);

// 3. Abuse: 10,000 malformed, oversized and wrong-session reports.
console.log(`\n3. ${MALFORMED} malformed, oversized and wrong-session reports`);
const stateBefore = tracker.status(SESSION);
const bad = [
  'garbage that is not json\n',
  `${JSON.stringify({ v: HOOK_REPORT_VERSION, session: 'not-hosted', secret: SECRET, parents: [], agent: 'claude', state: 'working', event: 'x', payload: '{}', truncated: false })}\n`,
  `${JSON.stringify({ v: HOOK_REPORT_VERSION, session: SESSION, agent: 'claude', state: 'bogus', event: 'x', payload: '{}', truncated: false })}\n`,
  `${JSON.stringify({ v: HOOK_REPORT_VERSION, session: SESSION, secret: SECRET, parents: [], agent: 'claude', state: 'working', event: 'x', payload: 'p'.repeat(70_000), truncated: false })}\n`,
  'x'.repeat(400_000),
];
const measureMemory = () => {
  gc();
  return process.memoryUsage();
};
async function flood(n) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < n) await sendFrame(bad[next++ % bad.length]);
    }),
  );
}
await flood(1_000); // warm-up: buffers and code paths reach their steady size first
const mb = (b) => `${(b / 1024 / 1024).toFixed(1)} MB`;
let mPrev = measureMemory();
console.log(`  after warm-up: heap used ${mb(mPrev.heapUsed)}, rss ${mb(mPrev.rss)}`);
for (let round = 1; round <= 2; round++) {
  const s0 = { ...server.stats };
  const t0 = performance.now();
  await flood(MALFORMED);
  const floodMs = performance.now() - t0;
  const m = measureMemory();
  const dropped = server.stats.malformed + server.stats.unknownSession + server.stats.oversized - (s0.malformed + s0.unknownSession + s0.oversized);
  console.log(
    `  round ${round}: dropped ${dropped}/${MALFORMED} in ${floodMs.toFixed(0)} ms, accepted ${server.stats.accepted - s0.accepted}; ` +
      `heap used ${mb(m.heapUsed)} (Δ ${mb(m.heapUsed - mPrev.heapUsed)}), rss ${mb(m.rss)} (Δ ${mb(m.rss - mPrev.rss)})`,
  );
  mPrev = m;
}
console.log(`  session state untouched: ${target('10,000 bad reports change no state', tracker.status(SESSION) === stateBefore)}`);

tracker.dispose();
await server.close();
rmSync(home, { recursive: true, force: true });
process.exitCode = benchEnd();
