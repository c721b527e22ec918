#!/usr/bin/env node
// Many busy agents at once, what they cost, against tmux. N sessions (1, 5, 10, 20) each replay a
// recorded agent TUI (bench/recordings: Claude Code, Codex, Gemini CLI working a turn, in turn) at
// its recorded pace through a real pty (bench/lib/replay.mjs), hosted by the real termio-host with
// its session holders, one of them (a Codex recording, the one with synchronized updates) visible
// in the real app under a private Xvfb. Beside it, the same N replays in a tmux server (one
// session, N windows, a client attached in a pty, showing the same recording). Each replay starts
// at a different point of its recording (7 s apart), the same on both sides. Both sides run at
// once and are measured in turn, twice per N, the other side's replays stopped (SIGSTOP) meanwhile,
// so each figure and its reference are taken on the same machine a few seconds apart. Per N:
//  - CPU of termio-host + its holders per second of replay vs the tmux server's (target at 20:
//    ≤ 1.0×); the app's CPU (target at 20: ≤ 5 % of a core);
//  - RSS of termio-host + holders per added session vs the tmux server's (target ≤ 6 MB);
//  - frames painted per second in the visible session, and how many of them were torn (sent to
//    the view while a synchronized update was open; the host logs each one; target 0);
// and at the largest N, key → painted echo in a shell tab brought to the front, keys through
// XTEST, in blocks with the replays streaming and stopped (SIGSTOP) in turn: p50 with them
// streaming within 3 ms of the p50 with them stopped.
// Replay sessions run under small manifests with the recorded agent's title and failure-screen
// rules, so the host's status tracking reads them as it reads that agent.
// Run after `npm run build`: node bench/agents.mjs [--sessions 1,5,10,20] [--seconds 8]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from './lib/app.mjs';
import { cpuSeconds } from './lib/cpu.mjs';
import { startKeySender } from './lib/xkey.mjs';
import { startXvfb } from './lib/xvfb.mjs';
import { benchEnd, benchStart, target } from './lib/verdict.mjs';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const COUNTS = opt('--sessions', '1,5,10,20').split(',').map(Number);
/** Seconds of replay in each measured window (after SETTLE_MS), ROUNDS windows per side and N. */
const SECONDS = Number(opt('--seconds', '8'));
const SETTLE_MS = 3000;
const RECORDINGS = ['codex', 'claude', 'gemini'];
/** Replay i starts this many seconds into its recording. */
const OFFSET_S = 7;
const KEY_BLOCK = 10;
const KEY_BLOCKS = 4;
const COLS = 120;
const ROWS = 40;
/** Targets, from the issue: at the largest N. */
const CPU_RATIO_TARGET = 1.0;
const APP_CPU_TARGET = 5;
const RSS_PER_SESSION_TARGET_MB = 6;
const KEY_GAP_TARGET_MS = 3;

const root = import.meta.dirname;
const replayer = join(root, 'lib', 'replay.mjs');
const cast = (name) => join(root, 'recordings', `${name}.cast.gz`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const wallNow = () => performance.timeOrigin + performance.now();
const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor((a.length * p) / 100))];
const f1 = (n) => n.toFixed(1);
const f2 = (n) => n.toFixed(2);
const work = mkdtempSync(join(tmpdir(), 'termio-bench-agents-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

/** RSS of a process in MB (0 once it is gone). */
function rssMb(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
}

/** CPU seconds of a set of processes (a process gone meanwhile counts what it had). */
function cpuOf(pids) {
  return pids.reduce((n, pid) => {
    try {
      return n + cpuSeconds(pid);
    } catch {
      return n;
    }
  }, 0);
}

/** Measures `pids()` over SECONDS after SETTLE_MS: CPU % of a core per process group, RSS at the end. */
async function window(groups) {
  await sleep(SETTLE_MS);
  const pids = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, f()]));
  const c0 = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuOf(p)]));
  const t0 = wallNow();
  await sleep(SECONDS * 1000);
  const secs = (wallNow() - t0) / 1000;
  const cpu = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, (100 * (cpuOf(p) - c0[k])) / secs]));
  const rss = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, p.reduce((n, pid) => n + rssMb(pid), 0)]));
  return { cpu, rss, from: t0, to: t0 + secs * 1000, secs };
}

/** The replay manifest of a recorded agent: its own title and failure-screen rules, the replayer as
 *  its command (each start takes the next offset from a counter file). */
function replayAgents(home) {
  const dir = join(home, '.termio', 'config', 'agents');
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(home, 'bin'), { recursive: true });
  const counter = join(home, 'replays');
  for (const name of RECORDINGS) {
    const m = JSON.parse(readFileSync(join(root, '..', 'agents', `${name}.json`), 'utf8'));
    const bin = join(home, 'bin', `replay-${name}`);
    writeFileSync(
      bin,
      `#!/bin/sh\nn=$(cat ${counter} 2>/dev/null || echo 0); echo $((n + 1)) > ${counter}\nexec ${process.execPath} ${replayer} ${cast(name)} $((n * ${OFFSET_S}))\n`,
      { mode: 0o755 },
    );
    const manifest = { id: `replay-${name}`, name: `Replay ${m.name}`, command: bin, titleStatus: m.titleStatus, failureScreen: m.failureScreen };
    writeFileSync(join(dir, `replay-${name}.json`), JSON.stringify(manifest));
  }
}

async function openApp(display) {
  const home = mkdtempSync(join(work, 'home-'));
  replayAgents(home);
  const app = new App(display, home, { TERMIO_TRACE_FRAMES: '1' });
  app.start();
  await app.waitFor(() => app.cli('sessions', 'list').status === 0, 'the app');
  const win = await app.waitFor(() => app.xdotool('search', '--onlyvisible', '--name', '^Termio$').split('\n')[0], 'the window');
  app.xdotool('windowsize', '--sync', win, '1400', '900');
  return { app, home, win };
}

/** The session holders: the host's children that hold the ptys. */
function holderPids(app) {
  return spawnSync('pgrep', ['-P', String(app.hostPid()), '-f', 'termio-holder'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);
}

/** Painted frames of a session that showed its output, between two wall times. */
const painted = (app, id, from, to = Infinity) => app.entries('frame painted').filter((f) => f.id === id && f.changed > 0 && f.at >= from && f.at <= to);
const torn = (app, id, from, to) => app.entries('torn frame sent', 'host').filter((f) => f.id === id && f.at >= from && f.at <= to);

/** Keys typed into the shell tab in blocks, the replays streaming and stopped in turn. */
async function keys(app, display, win, shell, replays) {
  const sender = await startKeySender(display);
  if (!sender) throw new Error('the XTEST key sender did not build (gcc, libx11-dev, libxtst-dev)');
  app.cli('sessions', 'focus', shell);
  app.cli('sessions', 'send', shell, "printf '\\033[2 q'; clear", '--enter');
  spawnSync('xdotool', ['windowactivate', '--sync', win], { env: { ...process.env, DISPLAY: display } });
  const signal = (sig) => replays.forEach((pid) => process.kill(pid, sig));
  const out = { streaming: [], stopped: [] };
  try {
    for (let b = 0; b < KEY_BLOCKS * 2; b++) {
      const streaming = b % 2 === 0;
      signal(streaming ? 'SIGCONT' : 'SIGSTOP');
      await sleep(1000);
      await sender.send('ctrl+u');
      await sleep(200);
      for (let j = 0; j < KEY_BLOCK; j++) {
        const k = await sender.send(String.fromCharCode(97 + j));
        const f = await app.waitFor(() => painted(app, shell, k.sentAt)[0], 'the echo painted', 5_000);
        out[streaming ? 'streaming' : 'stopped'].push(f.at - k.sentAt);
        await sleep(30);
      }
    }
  } finally {
    signal('SIGCONT');
    sender.stop();
  }
  return out;
}

/** Termio's side: the app, its replay sessions (the first one visible) and their pids. */
async function termioSide(display) {
  const { app, home, win } = await openApp(display);
  const ids = [];
  const pids = [];
  return {
    app,
    win,
    home,
    ids,
    pids,
    async grow(n) {
      while (ids.length < n) {
        const i = ids.length;
        const id = app.cli('sessions', 'spawn', '--agent', `replay-${RECORDINGS[i % RECORDINGS.length]}`, '--cwd', home).stdout.trim();
        await app.waitFor(() => app.cli('sessions', 'read', id).stdout.trim().length > 0, `replay ${i} on screen`);
        const listed = JSON.parse(app.cli('sessions', 'list', '--json').stdout);
        const pid = (listed.sessions ?? listed).find((x) => x.id === id)?.pid;
        if (!pid) throw new Error(`replay ${i}: no pid listed`);
        ids.push(id);
        pids.push(pid);
      }
      app.cli('sessions', 'focus', ids[0]);
    },
    groups: { host: () => [app.hostPid()], holders: () => holderPids(app), app: () => [app.proc.pid] },
  };
}

/** tmux's side: one server, a session of N windows each replaying, a client attached in a pty
 *  showing the first window. */
function tmuxSide() {
  const sock = `bench-${process.pid}`;
  const t = (...a) => spawnSync('tmux', ['-L', sock, '-f', '/dev/null', ...a], { encoding: 'utf8', env: { ...process.env, TERM: 'xterm-256color' } });
  const replay = (i) => `${process.execPath} ${replayer} ${cast(RECORDINGS[i % RECORDINGS.length])} ${i * OFFSET_S}`;
  const r = t('new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), replay(0));
  if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
  const server = Number(t('display-message', '-p', '#{pid}').stdout.trim());
  const client = require('node-pty').spawn('tmux', ['-L', sock, 'attach', '-t', 'bench'], {
    cols: COLS,
    rows: ROWS,
    env: { ...process.env, TERM: 'xterm-256color' },
  });
  client.onData(() => undefined);
  let windows = 1;
  const side = {
    pids: [],
    grow(n) {
      for (; windows < n; windows++) t('new-window', '-d', '-t', 'bench', replay(windows));
      t('select-window', '-t', 'bench:0');
      side.pids = t('list-panes', '-s', '-t', 'bench', '-F', '#{pane_pid}').stdout.trim().split('\n').map(Number);
    },
    groups: { server: () => [server] },
    stop() {
      client.kill();
      t('kill-server');
    },
  };
  return side;
}

const signal = (pids, sig) => pids.forEach((pid) => process.kill(pid, sig));

/** Rounds per N: each side measured this many times, in turn, the other side's replays stopped
 *  (SIGSTOP), so both see the same machine (its load moves on these shared cores). */
const ROUNDS = 2;

/** Sums the rounds' windows of one side: CPU averaged over their seconds, RSS of the last. */
function merged(ws) {
  const secs = ws.reduce((n, w) => n + w.secs, 0);
  const cpu = {};
  for (const k of Object.keys(ws[0].cpu)) cpu[k] = ws.reduce((n, w) => n + w.cpu[k] * w.secs, 0) / secs;
  return { cpu, rss: ws.at(-1).rss, secs };
}

/** Both sides grown to each N and measured in turn; then the keys at the largest N. */
async function measure(display) {
  const tm = tmuxSide();
  const te = await termioSide(display);
  const rows = [];
  const ref = [];
  try {
    for (const n of COUNTS) {
      await te.grow(n);
      tm.grow(n);
      const mine = [];
      const theirs = [];
      for (let round = 0; round < ROUNDS; round++) {
        signal(tm.pids, 'SIGSTOP');
        signal(te.pids, 'SIGCONT');
        const w = await window(te.groups);
        w.frames = painted(te.app, te.ids[0], w.from, w.to).length;
        w.torn = torn(te.app, te.ids[0], w.from, w.to).length;
        mine.push(w);
        signal(te.pids, 'SIGSTOP');
        signal(tm.pids, 'SIGCONT');
        theirs.push(await window(tm.groups));
      }
      signal(tm.pids, 'SIGSTOP');
      signal(te.pids, 'SIGCONT');
      const m = merged(mine);
      m.cpu.sessions = m.cpu.host + m.cpu.holders;
      m.rss.sessions = m.rss.host + m.rss.holders;
      const frames = mine.reduce((k, w) => k + w.frames, 0);
      rows.push({ n, ...m, frames, fps: frames / m.secs, torn: mine.reduce((k, w) => k + w.torn, 0) });
      ref.push({ n, ...merged(theirs) });
    }
    const shell = te.app.cli('sessions', 'spawn', '--cwd', te.home).stdout.trim();
    await te.app.waitFor(() => /[$#] ?$/m.test(te.app.cli('sessions', 'read', shell).stdout), 'the prompt');
    const echo = await keys(te.app, display, te.win, shell, te.pids);
    return { rows, ref, echo };
  } finally {
    signal(tm.pids, 'SIGCONT');
    tm.stop();
    await te.app.stop();
  }
}

const x = process.env.DISPLAY ? null : await startXvfb('1400x900x24');
const display = process.env.DISPLAY ?? x.display;
benchStart('bench/agents.mjs');
let result;
try {
  result = await measure(display);
} finally {
  x?.stop();
}
report(result);
process.exitCode = benchEnd();

function report({ rows, ref, echo }) {
  console.log(
    `Many agents replaying (${RECORDINGS.join(', ')} in turn); per N, each side ${ROUNDS} × ${SECONDS} s in turn (each after ${SETTLE_MS / 1000} s), the other side's replays stopped; CPU in % of a core`,
  );
  console.log('  N    host + holders          tmux server   ratio   app    frames/s visible (torn)   RSS host + holders        RSS tmux');
  for (const [i, r] of rows.entries()) {
    const q = ref[i];
    console.log(
      `  ${String(r.n).padEnd(4)} ${f1(r.cpu.sessions).padStart(5)} % (${f1(r.cpu.host)} + ${f1(r.cpu.holders)})   ${f1(q.cpu.server).padStart(8)} %   ${f2(r.cpu.sessions / q.cpu.server).padStart(5)}   ${f1(r.cpu.app).padStart(4)} %   ${f1(r.fps).padStart(8)} (${r.torn} of ${r.frames})         ${f1(r.rss.host).padStart(6)} + ${f1(r.rss.holders).padStart(5)} MB     ${f1(q.rss.server).padStart(6)} MB`,
    );
  }
  const [a, z] = [rows[0], rows.at(-1)];
  const [qa, qz] = [ref[0], ref.at(-1)];
  const ratio = z.cpu.sessions / qz.cpu.server;
  console.log(
    `  ${z.n} sessions: termio-host + holders ${f2(ratio)}× the tmux server's CPU   target ≤ ${CPU_RATIO_TARGET}×   ${target(`host + holders CPU at ${z.n} ≤ ${CPU_RATIO_TARGET}× tmux`, ratio <= CPU_RATIO_TARGET)}`,
  );
  console.log(
    `  ${z.n} sessions: app CPU ${f1(z.cpu.app)} % of a core, one visible   target ≤ ${APP_CPU_TARGET} %   ${target(`app CPU at ${z.n} ≤ ${APP_CPU_TARGET} %`, z.cpu.app <= APP_CPU_TARGET)}`,
  );
  const perSession = (z.rss.sessions - a.rss.sessions) / (z.n - a.n);
  console.log(
    `  RSS per added session (${a.n} → ${z.n}): host + holders ${f2(perSession)} MB   target ≤ ${RSS_PER_SESSION_TARGET_MB} MB   ${target(`RSS per added session ≤ ${RSS_PER_SESSION_TARGET_MB} MB`, perSession <= RSS_PER_SESSION_TARGET_MB)}; tmux server ${f2((qz.rss.server - qa.rss.server) / (z.n - a.n))} MB (reference)`,
  );
  const tornAll = rows.reduce((n, r) => n + r.torn, 0);
  console.log(
    `  torn frames in the visible session over every window: ${tornAll}   target 0   ${target('no torn frame in the visible session', tornAll === 0)}`,
  );
  const gap = pct(echo.streaming, 50) - pct(echo.stopped, 50);
  console.log(
    `  key → painted echo in a shell tab, ${z.n} replays streaming: p50 ${f2(pct(echo.streaming, 50))} ms, p99 ${f2(pct(echo.streaming, 99))} ms (${f2(gap)} ms over them stopped)   target p50 within ${KEY_GAP_TARGET_MS} ms   ${target(`key → echo p50 with ${z.n} streaming within ${KEY_GAP_TARGET_MS} ms of idle`, gap <= KEY_GAP_TARGET_MS)}`,
  );
  console.log(
    `  the same keys with the replays stopped (SIGSTOP), in alternate blocks: p50 ${f2(pct(echo.stopped, 50))} ms, p99 ${f2(pct(echo.stopped, 99))} ms (reference)`,
  );
}
