#!/usr/bin/env node
// Machines benchmark: a local termio-host as the hub of machines reached over a real sshd on
// loopback (bench/lib/sshRig.mjs: a second local user is the remote machine). Each figure next to
// a reference measured in the same run:
//  (a) key intent → the frame showing its echo, for a shell on the machine: through the hub (ssh)
//      versus the same session attached directly on its own host (target: added p50 ≤ 3 ms)
//  (b) attach to a remote session holding 10,000 lines of scrollback → its first frame, through
//      the hub versus directly (target: p50 ≤ 200 ms)
//  (c) the ssh client killed → the machine connected again and its session answering, versus the
//      machine's first connection (target ≤ 5 s)
//  (d) `cat` of a 20 MB file in a remote session shown by a view: bytes over the ssh link (ssh's
//      reads), versus the file and the frame bytes the same view gets directly (target ≤ 5 %)
//  (e) the hub's CPU with 3 machines connected and 20 idle sessions on each, versus one of those
//      machines' own hosts over the same seconds (target < 0.5 % of a core)
// Run as root after `npm run build`: node bench/machines.mjs [--keys 60] [--idle-seconds 10]
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSshRig } from './lib/sshRig.mjs';
import { benchStart, loadLine } from './lib/verdict.mjs';
import { cpuSeconds } from './lib/cpu.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { HostClient } = require(join(root, 'dist/app/client/hostClient.js'));

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const KEYS = arg('--keys', 60);
const IDLE_SECONDS = arg('--idle-seconds', 10);
/** Attaches behind (b): each moves 10,000 lines' worth of screen state, a few per second. */
const ATTACHES = 10;
const SCROLLBACK_LINES = 10_000;
const CAT_BYTES = 20 * 1024 * 1024;
const IDLE_PER_MACHINE = 20;
/** After a burst of spawns, V8 and the hosts settle (idle-time GCs) before idle CPU is measured. */
const IDLE_SETTLE_MS = 15_000;

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms  p95 ${pct(xs, 95).toFixed(1)} ms  (n=${xs.length})`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitUntil(check, what, timeoutMs = 30_000) {
  const t0 = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

benchStart('bench/machines.mjs');
const rig = await startSshRig(root, ['m1', 'm2', 'm3']);
const home = mkdtempSync(join(tmpdir(), 'termio-bench-hub-'));
const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/bash' };
const cli = (args) => spawnSync(process.execPath, [join(root, 'bin', 'termio'), ...args], { env, cwd: home, encoding: 'utf8' });
const json = (args) => {
  const r = cli([...args, '--json']);
  if (r.status !== 0) throw new Error(`termio ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
};
const machineState = (name) => json(['machines', 'list']).machines.find((m) => m.name === name)?.state;
const sshClients = () =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'ssh' && readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HOME=${home}`)
        );
      } catch {
        return false;
      }
    });
const addArgs = (m) => [
  'machines',
  'add',
  m.name,
  m.target,
  '--port',
  String(m.port),
  '--identity',
  m.identity,
  ...m.sshOptions.flatMap((o) => ['--ssh-option', o]),
  '--remote-command',
  m.remoteCommand,
];

/** A view on a session through a client: frames counted, each acknowledged at once (as painted). */
async function view(socket, sessionId, viewId) {
  const c = await HostClient.connect(socket, { client: 'termio-bench', version: '0' });
  if (!(c instanceof HostClient)) throw new Error(c.message);
  const v = { c, frames: 0, bytes: 0, waiters: [] };
  c.onRawFrame((bytes) => {
    v.frames++;
    v.bytes += bytes.length + 4;
    const seq = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4);
    c.ack(viewId, seq);
    for (const w of v.waiters.splice(0)) w();
  });
  v.nextFrame = () => new Promise((r) => v.waiters.push(r));
  v.attach = async () => {
    const first = v.nextFrame();
    const t0 = performance.now();
    const r = await c.request('attach', { session: sessionId, view: viewId, cols: 100, rows: 30 });
    if (!r.ok) throw new Error(r.error.message);
    await first;
    return performance.now() - t0;
  };
  v.detach = () => c.request('detach', { view: viewId });
  return v;
}

async function keyLatencies(v, viewId) {
  const out = [];
  for (let i = 0; i < KEYS; i++) {
    const next = v.nextFrame();
    const t0 = performance.now();
    v.c.input(viewId, i % 2 === 0 ? { kind: 'key', key: 'x', text: 'x' } : { kind: 'key', key: 'Backspace' });
    await next;
    out.push(performance.now() - t0);
    await sleep(15);
  }
  return out;
}

let failed = false;
const report = (label, value, target, ok, reference) => {
  console.log(`${label}: ${value}   (${reference})   target ${target}: ${ok ? 'ok' : 'MISSED'}`);
  if (!ok) failed = true;
};

try {
  const hubSocket = join(home, '.termio', 'run', 'host.sock');
  const m1 = rig.machine('m1', rig.homes[0]);
  let t = performance.now();
  const added = cli(addArgs(m1));
  const firstConnectMs = performance.now() - t;
  if (added.status !== 0) throw new Error(`machines add: ${added.stdout}${added.stderr}`);
  const remoteSocket = join(rig.homes[0], '.termio', 'run', 'host.sock');
  const shell = json(['sessions', 'spawn', '--machine', 'm1']).id;
  await waitUntil(() => cli(['sessions', 'read', shell]).stdout.includes('$'), 'the remote prompt');

  // (a) key → echo
  const viaHub = await view(hubSocket, shell, 1);
  await viaHub.attach();
  const hubKeys = await keyLatencies(viaHub, 1);
  await viaHub.detach();
  const direct = await view(remoteSocket, shell, 1);
  await direct.attach();
  const directKeys = await keyLatencies(direct, 1);
  await direct.detach();
  const added50 = pct(hubKeys, 50) - pct(directKeys, 50);
  report(
    '(a) key → echo frame through the hub',
    fmt(hubKeys),
    'added p50 ≤ 3 ms',
    added50 <= 3,
    `directly on its host: ${fmt(directKeys)}; added p50 ${added50.toFixed(2)} ms`,
  );

  // (b) attach with 10,000 lines of scrollback
  cli(['sessions', 'send', shell, `seq 1 ${SCROLLBACK_LINES}`, '--enter']);
  await waitUntil(() => cli(['sessions', 'read', shell, '--lines', '3']).stdout.includes(String(SCROLLBACK_LINES)), 'the scrollback');
  const hubAttach = [];
  const directAttach = [];
  for (let i = 0; i < ATTACHES; i++) {
    hubAttach.push(await viaHub.attach());
    await viaHub.detach();
    directAttach.push(await direct.attach());
    await direct.detach();
  }
  report(
    '(b) attach (10,000 lines of scrollback) → first frame through the hub',
    fmt(hubAttach),
    'p50 ≤ 200 ms',
    pct(hubAttach, 50) <= 200,
    `directly: ${fmt(directAttach)}`,
  );

  // (d) cat of 20 MB while a view shows it
  const file = join(rig.homes[0], 'big.txt');
  const line = `${'x'.repeat(99)}\n`;
  writeFileSync(file, line.repeat(Math.ceil(CAT_BYTES / line.length)).slice(0, CAT_BYTES - 5) + 'END\n');
  chownSync(file, rig.uid, rig.gid);
  const catOnce = async (v, marker) => {
    await v.attach();
    const before = v.bytes;
    const framesBefore = v.frames;
    const t0 = performance.now();
    cli(['sessions', 'send', shell, `cat ${file}; echo ${marker}`, '--enter']);
    await waitUntil(() => cli(['sessions', 'read', shell, '--lines', '2']).stdout.includes(marker), 'the cat to finish', 120_000);
    const ms = performance.now() - t0;
    await sleep(300);
    await v.detach();
    return { bytes: v.bytes - before, frames: v.frames - framesBefore, ms };
  };
  const directCat = await catOnce(direct, 'DONE1');
  const [ssh] = sshClients();
  const io = () => Number(/^rchar: (\d+)/m.exec(readFileSync(`/proc/${ssh}/io`, 'utf8'))[1]);
  const linkBefore = io();
  const hubCat = await catOnce(viaHub, 'DONE2');
  const linkBytes = io() - linkBefore;
  const share = (100 * linkBytes) / CAT_BYTES;
  report(
    '(d) cat of 20 MB shown through the hub: bytes over the ssh link',
    `${(linkBytes / 1024).toFixed(0)} KiB = ${share.toFixed(2)} % of the file (${hubCat.frames} frames in ${(hubCat.ms / 1000).toFixed(1)} s)`,
    '≤ 5 %',
    share <= 5,
    `the same view attached directly: ${(directCat.bytes / 1024).toFixed(0)} KiB in ${directCat.frames} frames over ${(directCat.ms / 1000).toFixed(1)} s`,
  );
  viaHub.c.close();
  direct.c.close();

  // (c) reconnect after the ssh client is killed
  t = performance.now();
  process.kill(ssh, 'SIGKILL');
  await waitUntil(() => !sshClients().includes(ssh), 'the ssh client to go');
  await waitUntil(() => machineState('m1') === 'connected' && cli(['sessions', 'read', shell, '--lines', '1']).status === 0, 'm1 back', 60_000);
  const reconnectMs = performance.now() - t;
  report(
    '(c) ssh client killed → sessions live again',
    `${reconnectMs.toFixed(0)} ms`,
    '≤ 5 s',
    reconnectMs <= 5000,
    `the first connection (machines add) took ${firstConnectMs.toFixed(0)} ms`,
  );

  // (e) hub idle CPU, 3 machines × 20 idle sessions
  for (const [i, name] of ['m2', 'm3'].entries()) {
    const r = cli(addArgs(rig.machine(name, rig.homes[i + 1])));
    if (r.status !== 0) throw new Error(`machines add ${name}: ${r.stdout}${r.stderr}`);
  }
  for (const name of ['m1', 'm2', 'm3']) {
    const have = json(['sessions', 'list']).sessions.filter((s) => s.machine === name).length;
    for (let i = have; i < IDLE_PER_MACHINE; i++) json(['sessions', 'spawn', '--machine', name]);
  }
  const hubPid = json(['host', 'status']).pid;
  const m2Pid = Number(
    spawnSync(
      'runuser',
      [
        '-u',
        'termio-remote',
        '--',
        'env',
        `HOME=${rig.homes[1]}`,
        `TERMIO_HOME=${join(rig.homes[1], '.termio')}`,
        process.execPath,
        join(root, 'bin', 'termio'),
        'host',
        'status',
        '--json',
      ],
      { encoding: 'utf8' },
    ).stdout &&
      JSON.parse(
        spawnSync(
          'runuser',
          [
            '-u',
            'termio-remote',
            '--',
            'env',
            `HOME=${rig.homes[1]}`,
            `TERMIO_HOME=${join(rig.homes[1], '.termio')}`,
            process.execPath,
            join(root, 'bin', 'termio'),
            'host',
            'status',
            '--json',
          ],
          { encoding: 'utf8' },
        ).stdout,
      ).pid,
  );
  await sleep(IDLE_SETTLE_MS);
  const [h0, r0] = [cpuSeconds(hubPid), cpuSeconds(m2Pid)];
  await sleep(IDLE_SECONDS * 1000);
  const [h1, r1] = [cpuSeconds(hubPid), cpuSeconds(m2Pid)];
  const hubPct = ((h1 - h0) / IDLE_SECONDS) * 100;
  const remotePct = ((r1 - r0) / IDLE_SECONDS) * 100;
  const total = json(['sessions', 'list']).sessions.filter((s) => s.machine).length;
  report(
    `(e) hub idle CPU, 3 machines, ${total} idle remote sessions`,
    `${hubPct.toFixed(2)} % of a core over ${IDLE_SECONDS} s`,
    '< 0.5 %',
    hubPct < 0.5,
    `m2's own host with its ${IDLE_PER_MACHINE} sessions: ${remotePct.toFixed(2)} %`,
  );
} finally {
  cli(['host', 'stop']);
  await rig.stop();
  rmSync(home, { recursive: true, force: true });
}
console.log(`\n${loadLine()} at end`);
process.exit(failed ? 1 : 0);
