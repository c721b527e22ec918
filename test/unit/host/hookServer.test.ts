// The hook server and the reporters over a real Unix socket in a temporary TERMIO_HOME: good
// reports arrive; garbage, oversized, slow and wrong-session clients are dropped and counted;
// each reporter (bin/termio-hook and the native one, same cases) is a silent no-op outside
// Termio and exits 0 when the app is gone, hangs up or never reads.
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookServer } from '../../../src/app/host/status/hookServer';
import { termioPaths } from '../../../src/app/services/paths';
import { MAX_HOOK_FRAME_BYTES, type HookReport } from '../../../src/protocol/hookReport';
import { sendHookBytes, startHookServer } from '../../helpers/hookServer';
import { reportersUnderTest, type ReporterUnderTest } from '../../helpers/reporters';
import { skipUnlessRequired } from '../../helpers/required';
import { waitFor } from '../../helpers/waitFor';

const REPORTERS = reportersUnderTest();
const SESSION = '6a0f2d8e-0c1b-4e47-a2a4-9b8d7c6e5f41';
const SECRET = 'q3Jx0S0kq2m9yWcJ5i3u7Xo8sV1d4ZbH6nR2tL9eFgA';
const secretOf = (id: string) => (id === SESSION ? SECRET : undefined);
/** A reporter's whole run, app gone or not, stays within its 300 ms give-up; Node's start-up and a
 *  loaded 2-core machine fit in this with room, while a reporter that waited for the app would not. */
const REPORTER_BOUND_MS = 2_000;

let home: string;
let server: HookServer;
let reports: HookReport[];

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'termio-hooksrv-'));
  ({ server, reports } = await startHookServer(termioPaths({ TERMIO_HOME: home }), secretOf));
});

afterEach(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

type RunResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number };

function runReporter(
  reporter: ReporterUnderTest,
  args: string[],
  opts: { env?: Record<string, string | undefined>; stdin?: string | Buffer } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const start = Date.now();
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home };
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
    const [cmd, ...argv] = reporter.argv!(args);
    const child = spawn(cmd!, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - start }));
  });
}

const send = (bytes: string | Buffer, opts: { end?: boolean } = {}) => sendHookBytes(server.socketPath, bytes, opts);

const frame = (r: Partial<HookReport> = {}) =>
  `${JSON.stringify({ v: 2, session: SESSION, secret: SECRET, agent: 'claude', state: 'working', event: 'PreToolUse', payload: '{}', truncated: false, parents: [], ...r })}\n`;

describe('hook server', () => {
  it('lives in a 0700 run folder, on a 0600 socket whatever the umask', async () => {
    expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700);
    expect(server.socketPath).toBe(join(home, 'run', 'hooks.sock'));
    expect(statSync(server.socketPath).mode & 0o777).toBe(0o600);
    await server.close();
    const umask = process.umask(0);
    try {
      const s = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), secretOf });
      if (!(s instanceof HookServer)) throw new Error(s.message);
      server = s;
    } finally {
      process.umask(umask);
    }
    expect(statSync(server.socketPath).mode & 0o777).toBe(0o600);
  });

  it('refuses a report that names a hosted session without its secret', async () => {
    await send(frame({ secret: '' }));
    await send(frame({ secret: SECRET.toLowerCase() }));
    await send(frame({ secret: `${SECRET}x` }));
    await waitFor(() => server.stats.badSecret === 3, { what: 'three refusals' });
    await send(frame());
    await waitFor(() => reports.length === 1, { what: 'the report with the secret' });
    expect(server.stats).toMatchObject({ accepted: 1, badSecret: 3, unknownSession: 0 });
  });

  it('drops garbage, oversized, wrong-session and silent clients, counting each', async () => {
    await send('this is not json\n');
    await send(frame({ session: 'someone-else' }));
    await send(frame({ state: 'sleeping' as never }));
    await send(Buffer.alloc(MAX_HOOK_FRAME_BYTES + 10, 0x41), { end: false });
    await send(Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
    await send('', { end: false }); // connects and says nothing: the server times it out
    await waitFor(() => server.stats.timedOut === 1, { what: 'the silent client to time out' });
    expect(server.stats).toMatchObject({ accepted: 0, malformed: 3, unknownSession: 1, oversized: 1, timedOut: 1 });
    // Still serving.
    await send(frame());
    await waitFor(() => reports.length === 1, { what: 'a good report after the abuse' });
  });

  it('refuses to start beside a live server, and replaces a stale socket file', async () => {
    const again = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), secretOf });
    expect(again).toMatchObject({ kind: 'hookServerError', message: expect.stringMatching(/already listening/) });
    // A crash leaves the socket behind with nobody listening: the next start takes it over.
    await server.close();
    const sock = join(home, 'run', 'hooks.sock');
    leaveStaleSocket(sock);
    expect(lstatSync(sock).isSocket()).toBe(true);
    const next = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), secretOf });
    expect(next).toBeInstanceOf(HookServer);
    server = next as HookServer;
    expect(lstatSync(sock).mode & 0o777).toBe(0o600);
  });

  it('never removes a file at its socket path that is not a socket', async () => {
    await server.close();
    const sock = join(home, 'run', 'hooks.sock');
    writeFileSync(sock, 'not ours');
    const r = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), secretOf });
    expect(r).toMatchObject({ kind: 'hookServerError', message: expect.stringMatching(/is not a socket/) });
    expect(readFileSync(sock, 'utf8')).toBe('not ours');
    rmSync(sock);
    server = (await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), secretOf })) as HookServer;
  });
});

/** A socket file whose server died without removing it, as after a crash (SIGKILL). */
function leaveStaleSocket(path: string): void {
  const script = `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script]);
}

/** A stand-in app that accepts connections and then misbehaves, to check the reporter's bounds. */
async function rogueServer(onConnection: (c: import('node:net').Socket) => void): Promise<{ path: string; server: Server; connections: () => number }> {
  const path = join(home, 'run', 'rogue.sock');
  let n = 0;
  const server = createServer((c) => {
    n++;
    c.on('error', () => {});
    onConnection(c);
  });
  await new Promise<void>((r) => server.listen(path, r));
  return { path, server, connections: () => n };
}

describe.each(REPORTERS)('$name reporter', (reporter) => {
  const run = (args: string[], opts: Parameters<typeof runReporter>[2] = {}) => runReporter(reporter, args, opts);
  const withSession = { TERMIO_SESSION: SESSION, TERMIO_SESSION_SECRET: SECRET };
  beforeEach((ctx) => {
    // No C compiler: skipped saying why, except under CI, where it fails (every test must run there).
    if (!reporter.argv) ctx.skip(skipUnlessRequired(reporter.unavailable ?? 'the reporter is not available') ?? undefined);
  });

  it('delivers its frame with the raw payload', async () => {
    const payload = JSON.stringify({ session_id: 'abc', hook_event_name: 'Stop' });
    const r = await run(['claude', 'done', 'Stop'], { env: { ...withSession, TERMIO_HOOK_SOCKET: server.socketPath }, stdin: payload });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]).toMatchObject({ v: 2, session: SESSION, secret: SECRET, agent: 'claude', state: 'done', event: 'Stop', payload, truncated: false });
    // Its ancestors, parent first: this test process ran it directly.
    expect(reports[0]!.parents[0]).toEqual([process.pid, expect.any(String)]);
    expect(reports[0]!.parents.map(([pid]) => pid)).toContain(process.ppid);
  });

  it('finds the socket under $TERMIO_HOME without TERMIO_HOOK_SOCKET, and takes a trailing argv payload', async () => {
    const r = await run(['codex', 'done', 'agent-turn-complete', '{"thread-id":"t1"}'], { env: { ...withSession, TERMIO_HOME: home } });
    expect(r.code).toBe(0);
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]).toMatchObject({ agent: 'codex', payload: '{"thread-id":"t1"}' });
  });

  it('finds the socket under $HOME/.termio when neither TERMIO_HOOK_SOCKET nor TERMIO_HOME is set', async () => {
    const other = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), secretOf });
    if (!(other instanceof HookServer)) throw new Error(other.message);
    const got: HookReport[] = [];
    other.onReport((r) => got.push(r));
    try {
      const r = await run(['claude', 'idle', 'SessionStart'], { env: withSession, stdin: '{}' });
      expect(r.code).toBe(0);
      await waitFor(() => got.length === 1, { what: 'the report at ~/.termio' });
      expect(got[0]).toMatchObject({ event: 'SessionStart', payload: '{}' });
    } finally {
      await other.close();
    }
  });

  it('cuts a huge payload to the cap and still reads all of stdin', async () => {
    const big = JSON.stringify({ session_id: 'big', tool_response: 'y'.repeat(1_000_000) });
    const r = await run(['claude', 'working', 'PostToolUse'], { env: { ...withSession, TERMIO_HOOK_SOCKET: server.socketPath }, stdin: big });
    expect(r.code).toBe(0);
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]!.truncated).toBe(true);
    expect(reports[0]!.payload).toBe(big.slice(0, 64 * 1024));
  });

  it('outside Termio it does nothing: exit 0, no output, no connection', async () => {
    for (const session of [undefined, '']) {
      const r = await run(['claude', 'working', 'PreToolUse'], {
        env: { TERMIO_SESSION: session, TERMIO_HOOK_SOCKET: server.socketPath },
        stdin: '{"session_id":"x"}',
      });
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
    expect(server.stats.accepted + server.stats.unknownSession + server.stats.malformed).toBe(0);
  });

  it('when the app is gone it exits 0 silently, whether the socket is missing or stale', async () => {
    const missing = await run(['claude', 'working', 'PreToolUse'], {
      env: { ...withSession, TERMIO_HOOK_SOCKET: join(home, 'run', 'nobody.sock') },
      stdin: '{}',
    });
    expect(missing).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(missing.ms).toBeLessThan(REPORTER_BOUND_MS);
    // What a crashed app leaves behind: a socket path nobody listens on.
    const stale = join(home, 'run', 'stale.sock');
    writeFileSync(stale, '');
    expect(await run(['claude', 'working', 'PreToolUse'], { env: { ...withSession, TERMIO_HOOK_SOCKET: stale }, stdin: '{}' })).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('when stdin stays open it still reports and exits 0', async () => {
    const [cmd, ...argv] = reporter.argv!(['claude', 'idle', 'SessionStart']);
    const child = spawn(cmd!, argv, {
      env: { PATH: process.env.PATH ?? '', TERMIO_SESSION: SESSION, TERMIO_SESSION_SECRET: SECRET, TERMIO_HOOK_SOCKET: server.socketPath },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const started = Date.now();
    child.stdin.write('{"session_id":"open"}');
    const code = await new Promise((r) => child.on('close', r));
    expect(Date.now() - started).toBeLessThan(REPORTER_BOUND_MS);
    child.stdin.destroy();
    expect(code).toBe(0);
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]).toMatchObject({ payload: '{"session_id":"open"}' });
  });

  it('with stdin from /dev/null or a file, and with no arguments at all, it exits 0', async () => {
    const file = join(home, 'payload.json');
    writeFileSync(file, '{"session_id":"from-file"}');
    for (const [stdin, payload] of [
      ['/dev/null', ''],
      [file, '{"session_id":"from-file"}'],
    ] as const) {
      const [cmd, ...argv] = reporter.argv!(['claude', 'idle', 'SessionStart']);
      const code = await new Promise((resolve) => {
        const child = spawn('/bin/sh', ['-c', '"$@" < "$0"', stdin, cmd!, ...argv], {
          env: { PATH: process.env.PATH ?? '', TERMIO_SESSION: SESSION, TERMIO_SESSION_SECRET: SECRET, TERMIO_HOOK_SOCKET: server.socketPath },
          stdio: ['ignore', 'ignore', 'ignore'],
        });
        child.on('close', resolve);
      });
      expect(code).toBe(0);
      await waitFor(() => reports.some((r) => r.payload === payload), { what: `the report with stdin ${stdin}` });
    }
    // Without agent/state/event the frame is refused by the server, but the reporter is still quiet.
    expect(await run([], { env: { ...withSession, TERMIO_HOOK_SOCKET: server.socketPath }, stdin: '{}' })).toMatchObject({ code: 0, stdout: '', stderr: '' });
    await waitFor(() => server.stats.malformed === 1, { what: 'the argument-less frame to be refused' });
  });

  it('an app that hangs up at once costs it no SIGPIPE: exit 0', async () => {
    const rogue = await rogueServer((c) => c.destroy());
    try {
      const big = 'z'.repeat(60_000);
      const r = await run(['claude', 'working', 'PostToolUse', big], { env: { ...withSession, TERMIO_HOOK_SOCKET: rogue.path } });
      expect(r).toMatchObject({ code: 0, signal: null, stdout: '', stderr: '' });
      expect(rogue.connections()).toBe(1);
    } finally {
      rogue.server.close();
    }
  });

  it('an app that accepts but never reads: it gives up by itself and exits 0', async () => {
    const held: import('node:net').Socket[] = [];
    const rogue = await rogueServer((c) => {
      c.pause();
      held.push(c);
    });
    try {
      // A payload at the cap, all escapes: a frame far larger than the socket buffer.
      const r = await run(['claude', 'working', 'PostToolUse'], { env: { ...withSession, TERMIO_HOOK_SOCKET: rogue.path }, stdin: '\u0001'.repeat(64 * 1024) });
      expect(r).toMatchObject({ code: 0, signal: null, stdout: '', stderr: '' });
      expect(r.ms).toBeLessThan(REPORTER_BOUND_MS);
      expect(rogue.connections()).toBe(1);
    } finally {
      for (const c of held) c.destroy();
      rogue.server.close();
    }
  });
});
