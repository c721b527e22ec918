// What the real termio-host (built dist/) trusts of its session holders, with real holders
// (native/termio-holder) and forged ones (a socket of the same user in run/holders) in a
// temporary HOME: sizes a hello or a checkpoint names are bounded as a client's are; only
// processes provably a session's are ever ended; a second connection to a holder does not end
// its session; input a program never reads is bounded; a finished command's tab survives the host.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/app/client/controlClient';
import { MAX_COLS, MAX_ROWS } from '../../../src/protocol/hostFrameFormat';
import { decodeHolderBody, encodeHolder, HolderDecoder } from '../../../src/protocol/holderWire';
import { forgeHolder, type ForgedHolder } from '../../helpers/forgedHolder';
import { endProcessesWithHome, isAlive, waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

const repoRoot = resolve(__dirname, '..', '..', '..');
const termioBin = join(repoRoot, 'bin', 'termio');
const holderBin = join(repoRoot, 'native', 'termio-holder', 'build', 'termio-holder');

let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;
const forged: ForgedHolder[] = [];

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'app', 'host', 'hostMain.js'))) throw new Error('dist/ is missing the host: run `npm run build` first');
  if (!existsSync(holderBin)) throw new Error(`${holderBin} is missing: run node scripts/setup.mjs`);
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'termio-holdertrust-'));
  home = join(dir, '.termio');
  env = { ...process.env, HOME: dir, TERMIO_HOME: home, TERMIO_HOST_IDLE_MS: '0', PS1: '$ ', ENV: '' };
  delete env.TERMIO_SESSION;
  delete env.TERMIO_SESSION_SECRET;
});

afterEach(async () => {
  for (const f of forged.splice(0)) await f.close();
  await termio(['host', 'stop']);
  await endProcessesWithHome(dir);
  rmSync(dir, { recursive: true, force: true });
});

function termio(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, [termioBin, ...args], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((r) => child.on('close', (code) => r({ code: code ?? -1, out, err })));
}

interface Listed {
  id: string;
  pid: number;
  cols: number;
  rows: number;
  exited: { exitCode: number } | null;
}

async function sessions(): Promise<Listed[]> {
  const r = await termio(['sessions', 'list', '--json']);
  if (r.code !== 0) throw new Error(`sessions list failed: ${r.err}`);
  return (JSON.parse(r.out) as { sessions: Listed[] }).sessions;
}

function hostLog(): string {
  const f = join(home, 'logs', 'host.log');
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
}

function hostPid(): number {
  return (JSON.parse(readFileSync(join(home, 'run', 'control.json'), 'utf8')) as { pid: number }).pid;
}

async function killHost(): Promise<void> {
  const pid = hostPid();
  process.kill(pid, 'SIGKILL');
  await waitForExit(pid, 'the killed host to go');
}

async function run(command: string): Promise<string> {
  const r = await termio(['sessions', 'run', '--json', '--', 'sh', '-c', command]);
  if (r.code !== 0) throw new Error(`sessions run failed: ${r.err}`);
  return (JSON.parse(r.out) as { id: string }).id;
}

/** A process of this test's HOME (so the cleanup ends it) that is no child of this process. */
function orphanSleep(): number {
  const r = spawnSync('sh', ['-c', 'sleep 300 >/dev/null 2>&1 & echo $!'], { env, encoding: 'utf8' });
  return Number(r.stdout.trim());
}

/** A `sleep` child of this process: the agent of a forged holder this process plays. */
function childSleep(): number {
  const child = spawn('sleep', ['300'], { env, stdio: 'ignore' });
  return child.pid!;
}

/** The pid of the holder of session `id` (its socket path is on its command line). */
function holderPidOf(id: string): number {
  return Number(
    spawnSync('pgrep', ['-f', `holders/${id}.sock`], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0],
  );
}

function vmRssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

describe('what the host trusts of a holder', () => {
  it('bounds the size a holder says in its hello to the largest screen, and brings the pty down to it', async () => {
    const id = randomUUID();
    const f = await forgeHolder(home, id, { holderPid: process.pid, agentPid: childSleep(), cols: 3000, rows: 3000 });
    forged.push(f);
    const s = (await sessions()).find((x) => x.id === id);
    expect(s, 'the forged holder is adopted').toBeDefined();
    expect([s!.cols, s!.rows]).toEqual([MAX_COLS, MAX_ROWS]);
    await waitFor(() => f.resizes.length > 0, { what: 'the host to resize the pty' });
    expect(f.resizes[0]).toEqual({ cols: MAX_COLS, rows: MAX_ROWS });
  }, 60_000);

  it('sets aside, with a log line, a checkpoint whose size is past the largest screen, and adopts the session from its holder', async () => {
    const id = await run('echo AAA; sleep 600');
    const pid = (await sessions()).find((x) => x.id === id)!.pid;
    const file = join(home, 'state', 'checkpoints', `${id}.json`);
    await waitFor(() => existsSync(file), { what: 'the first checkpoint' });
    await killHost();
    const bytes = readFileSync(file);
    const nl = bytes.indexOf(0x0a);
    const head = JSON.parse(bytes.subarray(0, nl).toString()) as { cols: number; rows: number };
    writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify({ ...head, cols: 5000, rows: 5000 })}\n`), bytes.subarray(nl + 1)]));

    const s = (await sessions()).find((x) => x.id === id);
    expect(s).toMatchObject({ id, pid });
    expect(s!.cols).toBeLessThanOrEqual(MAX_COLS);
    expect(existsSync(`${file}.unreadable`)).toBe(true);
    expect(hostLog()).toMatch(/checkpoint set aside.*cols 5000 is not a size/);
  }, 60_000);

  it('never ends a process a holder names that is not its child: a forged hello naming another process is not adopted', async () => {
    const victim = orphanSleep();
    const id = randomUUID();
    forged.push(await forgeHolder(home, id, { holderPid: process.pid, agentPid: victim, cols: 80, rows: 24 }));
    expect((await sessions()).map((s) => s.id)).not.toContain(id);
    expect(hostLog()).toMatch(new RegExp(`holder: not adopted.*${id}.*not a child of holder`));
    const host = hostPid();
    expect((await termio(['host', 'stop'])).code).toBe(0);
    await waitForExit(host, 'the host to stop');
    expect(isAlive(victim)).toBe(true);
  }, 60_000);

  it('takes its connection back when another process connects to a holder: the session goes on', async () => {
    const id = await run('i=0; while :; do echo line$i; i=$((i+1)); sleep 0.05; done');
    const pid = (await sessions()).find((x) => x.id === id)!.pid;
    // A same-uid process connects (the holder serves one connection at a time) and attaches.
    // The host is stopped until the holder serves the other connection its output, so the
    // takeover is of a connection in use (else the host could connect again first).
    const host = hostPid();
    process.kill(host, 'SIGSTOP');
    const other = createConnection(join(home, 'run', 'holders', `${id}.sock`));
    other.on('error', () => {});
    await new Promise((r) => other.once('connect', r));
    const decoder = new HolderDecoder();
    let served = false;
    let dropped = false;
    // Read as it comes: a socket whose received bytes are never read never sees its peer close.
    other.on('data', (b: Buffer) => {
      const bodies = decoder.push(b);
      if (!('error' in bodies))
        served ||= bodies.some((body) => {
          const m = decodeHolderBody(body);
          return !('error' in m) && m.kind === 'data';
        });
    });
    other.on('close', () => (dropped = true));
    other.write(encodeHolder.attach(0));
    try {
      await waitFor(() => served, { what: "the holder to serve the other connection the program's output" });
    } finally {
      process.kill(host, 'SIGCONT');
    }
    // The holder drops the other connection when the host connects again.
    await waitFor(() => dropped, { what: 'the host to connect again, and the holder to drop the other connection' });
    // The output goes on reaching the host after the takeover, and the session still runs.
    const last = async (): Promise<number> => Math.max(0, ...[...(await termio(['sessions', 'read', id])).out.matchAll(/line(\d+)/g)].map((m) => Number(m[1])));
    const before = await last();
    await waitFor(async () => (await last()) > before + 5, { what: 'output after the takeover' });
    expect((await sessions()).find((x) => x.id === id)!.exited).toBeNull();
    expect(isAlive(pid)).toBe(true);
    await waitFor(() => /connection lost, and taken back/.test(hostLog()), { what: 'the takeover in host.log' });
  }, 60_000);

  it('ends the holder of a session whose connection was lost for good when the session is closed', async () => {
    const id = await run('sleep 600');
    const pid = (await sessions()).find((x) => x.id === id)!.pid;
    // Another process connects, then removes the socket: the host cannot reach the holder again.
    // The holder is stopped meanwhile, so that it serves the other connection only once the
    // socket is gone (else the host could take it back first).
    const path = join(home, 'run', 'holders', `${id}.sock`);
    const holder = holderPidOf(id);
    process.kill(holder, 'SIGSTOP');
    const other = createConnection(path);
    other.on('error', () => {});
    await new Promise((r) => other.once('connect', r));
    rmSync(path);
    process.kill(holder, 'SIGCONT');
    await waitFor(async () => (await sessions()).find((x) => x.id === id)?.exited != null, { what: 'the host to lose the session' });
    expect(isAlive(pid)).toBe(true);
    // host.log says why it was not taken back: the socket is gone.
    await waitFor(() => new RegExp(`holder: connection lost.*${id}.*not taken back: cannot reach .*ENOENT`).test(hostLog()), { what: 'the loss in host.log' });
    expect((await termio(['sessions', 'close', id])).code).toBe(0);
    await waitForExit(pid, "the program to end with the session's holder");
    other.destroy();
  }, 60_000);
});

describe('input to a held program that never reads', () => {
  it('is refused as busy once the bound is reached, and the holder stays small', async () => {
    const id = await run('stty raw -echo; sleep 600');
    await waitFor(async () => (await termio(['sessions', 'read', id])).code === 0, { what: 'the session' });
    const c = await ControlClient.connectOrStart(env);
    if (!(c instanceof ControlClient)) throw new Error(c.message);
    const text = 'x'.repeat(1024 * 1024 - 200);
    let accepted = 0;
    let refused: string | null = null;
    try {
      for (let i = 0; i < 30 && refused === null; i++) {
        const r = await c.request('sessions.send', { id, text });
        if (r.ok) accepted++;
        else refused = `${r.error.code}: ${r.error.message}`;
      }
    } finally {
      c.close();
    }
    expect(refused).toEqual(expect.stringMatching(/busy/));
    expect(accepted).toBeLessThanOrEqual(6);
    expect(vmRssKb(holderPidOf(id))).toBeLessThan(16 * 1024);
  }, 60_000);
});

describe('a finished command', () => {
  it('keeps its tab, its output and its exit code through a SIGKILL of the host and a restart', async () => {
    const id = await run('echo RESULT-42; exit 3');
    await waitFor(async () => (await sessions()).find((x) => x.id === id)?.exited?.exitCode === 3, { what: 'the command to finish' });
    await killHost();
    expect((await sessions()).find((x) => x.id === id)?.exited?.exitCode).toBe(3);
    expect((await termio(['sessions', 'read', id])).out).toContain('RESULT-42');
    expect((await termio(['host', 'restart'])).code).toBe(0);
    expect((await sessions()).find((x) => x.id === id)?.exited?.exitCode).toBe(3);
    expect((await termio(['sessions', 'read', id])).out).toContain('RESULT-42');
  }, 60_000);
});
