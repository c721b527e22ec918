#!/usr/bin/env node
// Control socket benchmark, on the path the app serves: a real headless Host (catalog, state store,
// resume service, control server), 50 sessions of a pinned-resume agent (test/fakes/fakePinnedAgent,
// a user manifest in the temporary TERMIO_HOME), so every `sessions.list` also looks up each
// session's resume plan in the agent's store, as the running app does:
//  (a) `termio sessions list --json` round trip with 50 live sessions, process start included,
//      next to `node -e 0` started the same way, interleaved in the same run (target p50 ≤ 60 ms)
//  (b) sessions.send "echo …" + Return → the output visible via sessions.read, over the socket in-process,
//      next to raw node-pty (write → the output seen in onData) (target p50 ≤ 30 ms)
// Run after `npm run build`: node bench/control.mjs [--runs 40]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { Host } = require(join(root, 'dist/app/host/host.js'));
const { nullLogger } = require(join(root, 'dist/app/services/log.js'));
const { ControlClient } = require(join(root, 'dist/app/client/controlClient.js'));
const pty = require('node-pty');

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 40;
const SESSIONS = 50;
const shellEnv = { PS1: '$ ', ENV: '' };

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms  p95 ${pct(xs, 95).toFixed(1)} ms  (n=${xs.length})`;

/** Wall time from spawn to exit of a process, the loop staying free to serve the host meanwhile. */
function timeProcess(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve({ ms, out });
    });
  });
}

async function waitUntil(check, what, timeoutMs = 10_000) {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return;
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

const home = realpathSync(mkdtempSync(join(tmpdir(), 'tbench-')));
const env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/sh', ...shellEnv };
// The agent every session runs: pinned resume, its records under ~/.fakepinned/sessions.
mkdirSync(join(home, '.termio', 'config', 'agents'), { recursive: true });
writeFileSync(
  join(home, '.termio', 'config', 'agents', 'benchpinned.json'),
  JSON.stringify({
    id: 'benchpinned',
    name: 'Bench pinned agent',
    command: join(root, 'test', 'fakes', 'fakePinnedAgent.mjs'),
    resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.fakepinned/sessions', storeMatch: 'file:{id}.jsonl' },
  }),
);
const started = await Host.start({ env, logger: nullLogger, path: process.env.PATH ?? '', notificationSink: { send: async () => undefined } });
if (!started.ok) throw new Error(started.message);
const host = started.host;
const registry = host.registry;
benchStart('bench/control.mjs');
try {
  for (let i = 0; i < SESSIONS; i++) {
    const r = await registry.spawn({ agent: 'benchpinned', cwd: home, title: `bench ${i}` });
    if (!r.ok) throw new Error(r.message);
  }
  // Half of them have written their record (a first message typed), so the look-up finds some and misses others.
  for (const r of registry.list().slice(0, SESSIONS / 2)) r.session.write('hello\r');
  const withPlans = await timeProcess([join(root, 'bin', 'termio'), 'sessions', 'list', '--json'], env);
  const plans = JSON.parse(withPlans.out).sessions.filter((s) => s.resume).length;
  if (plans !== SESSIONS) throw new Error(`sessions list carried ${plans} resume plans, not ${SESSIONS}`);

  // (a) CLI round trip, interleaved with the reference so both see the same machine load.
  const cli = [];
  const ref = [];
  const version = [];
  const termio = [join(root, 'bin', 'termio'), 'sessions', 'list', '--json'];
  await timeProcess(termio, env); // warm the file cache
  await timeProcess(['-e', '0'], env);
  for (let i = 0; i < RUNS; i++) {
    const r = await timeProcess(termio, env);
    if (JSON.parse(r.out).sessions.length < SESSIONS) throw new Error('sessions list returned the wrong number of sessions');
    cli.push(r.ms);
    ref.push((await timeProcess(['-e', '0'], env)).ms);
    version.push((await timeProcess([join(root, 'bin', 'termio'), '--version'], env)).ms);
  }
  // The socket part alone: connect + sessions.list + reply, in this process.
  const inProcess = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const c = await ControlClient.connect(env);
    if (!(c instanceof ControlClient)) throw new Error(c.message);
    const r = await c.request('sessions.list', {});
    if (!r.ok || r.result.sessions.length < SESSIONS) throw new Error('sessions.list failed');
    c.close();
    inProcess.push(performance.now() - t0);
  }
  console.log(`(a) termio sessions list --json, ${SESSIONS} pinned-agent sessions each with its resume look-up, process start included`);
  console.log(`    termio sessions list --json  ${fmt(cli)}`);
  console.log(`    node -e 0                    ${fmt(ref)}   (reference: bare Node start)`);
  console.log(`    termio --version             ${fmt(version)}   (breakdown: CLI start, no socket)`);
  console.log(`    connect + list, in-process   ${fmt(inProcess)}   (breakdown: socket round trip alone)`);
  console.log(
    `    termio's own cost over Node start: p50 ${(pct(cli, 50) - pct(ref, 50)).toFixed(1)} ms   target: termio p50 ≤ 60 ms ${target('termio sessions list --json p50 ≤ 60 ms', pct(cli, 50) <= 60)}`,
  );

  // (b) send → echo visible via read, over the control socket in this process.
  const client = await ControlClient.connect(env);
  if (!(client instanceof ControlClient)) throw new Error(client.message);
  // (b) types into a plain shell session, as a user's script would.
  const shell = await registry.spawn({ cwd: home, title: 'bench shell' });
  if (!shell.ok) throw new Error(shell.message);
  const shellId = shell.record.id;
  // Its first prompt (whatever the login profile makes it) before the first timed command.
  await waitUntil(async () => {
    const r = await client.request('sessions.read', { id: shellId, lines: 1 });
    return r.ok && r.result.lines.join('').trim() !== '';
  }, 'the shell prompt');
  const viaSocket = [];
  for (let i = 0; i < RUNS; i++) {
    const mark = `m${100000 + i}x`;
    const t0 = performance.now();
    // The shell computes the marker, so the typed command line never matches it: only real output does.
    const sent = await client.request('sessions.send', { id: shellId, text: `echo m$((100000+${i}))x`, enter: true });
    if (!sent.ok) throw new Error(sent.error.message);
    await waitUntil(async () => {
      const r = await client.request('sessions.read', { id: shellId, lines: 3 });
      return r.ok && r.result.lines.includes(mark);
    }, mark);
    viaSocket.push(performance.now() - t0);
  }
  client.close();

  // Reference: raw node-pty, the same command, output seen in onData.
  const raw = [];
  const p = pty.spawn('/bin/sh', [], { name: 'xterm-256color', cols: 80, rows: 24, cwd: home, env: { ...process.env, ...shellEnv } });
  let seen = '';
  p.onData((d) => (seen += d));
  await waitUntil(() => seen.includes('$ '), 'the raw shell prompt');
  for (let i = 0; i < RUNS; i++) {
    const mark = `m${200000 + i}x`;
    seen = '';
    const t0 = performance.now();
    p.write(`echo m$((200000+${i}))x\r`);
    await waitUntil(() => seen.includes(`${mark}\r\n`), mark);
    raw.push(performance.now() - t0);
  }
  p.kill();
  console.log('(b) send "echo …" + Return → output visible via read (in-process, over the socket)');
  console.log(`    control socket  ${fmt(viaSocket)}`);
  console.log(`    raw node-pty    ${fmt(raw)}   (reference: write → output in onData, no emulator, no socket)`);
  console.log(`    target: control socket p50 ≤ 30 ms ${target('send → echo via read p50 ≤ 30 ms', pct(viaSocket, 50) <= 30)}`);
} finally {
  await host.dispose();
  rmSync(home, { recursive: true, force: true });
}
process.exitCode = benchEnd();
