// The hook server and the reporter over a real Unix socket in a temporary TERMIO_HOME: good
// reports arrive; garbage, oversized, slow and wrong-session clients are dropped and counted;
// the reporter is a silent no-op outside Termio and exits 0 when the app is gone.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookServer } from '../../../src/app/host/hookServer';
import { termioPaths } from '../../../src/app/host/paths';
import { MAX_HOOK_FRAME_BYTES, type HookReport } from '../../../src/protocol/hookReport';
import { waitFor } from '../../helpers/waitFor';

const REPORTER = join(__dirname, '..', '..', '..', 'bin', 'termio-hook');
const SESSION = '6a0f2d8e-0c1b-4e47-a2a4-9b8d7c6e5f41';

let home: string;
let server: HookServer;
let reports: HookReport[];

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'termio-hooksrv-'));
  const s = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), isKnownSession: (id) => id === SESSION });
  if (!(s instanceof HookServer)) throw new Error(s.message);
  server = s;
  reports = [];
  server.onReport((r) => reports.push(r));
});

afterEach(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

function runReporter(args: string[], opts: { env?: Record<string, string | undefined>; stdin?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const start = Date.now();
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home };
    for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== undefined) env[k] = v;
    const child = spawn(process.execPath, [REPORTER, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - start }));
  });
}

function send(bytes: string | Buffer, opts: { end?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const c = createConnection(server.socketPath);
    c.on('error', () => resolve());
    c.on('close', () => resolve());
    c.on('connect', () => (opts.end === false ? c.write(bytes) : c.end(bytes)));
  });
}

const frame = (r: Partial<HookReport> = {}) =>
  `${JSON.stringify({ v: 1, session: SESSION, agent: 'claude', state: 'working', event: 'PreToolUse', payload: '{}', truncated: false, ...r })}\n`;

describe('hook server', () => {
  it('lives in a 0700 run folder', () => {
    expect(statSync(join(home, 'run')).mode & 0o777).toBe(0o700);
    expect(server.socketPath).toBe(join(home, 'run', 'hooks.sock'));
  });

  it('delivers a reporter\'s frame with the raw payload', async () => {
    const payload = JSON.stringify({ session_id: 'abc', hook_event_name: 'Stop' });
    const r = await runReporter(['claude', 'done', 'Stop'], { env: { TERMIO_SESSION: SESSION, TERMIO_HOOK_SOCKET: server.socketPath }, stdin: payload });
    expect(r).toMatchObject({ code: 0, stdout: '' });
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]).toEqual({ v: 1, session: SESSION, agent: 'claude', state: 'done', event: 'Stop', payload, truncated: false });
  });

  it('the reporter finds the socket under $TERMIO_HOME without TERMIO_HOOK_SOCKET, and takes a trailing argv payload', async () => {
    const r = await runReporter(['codex', 'done', 'agent-turn-complete', '{"thread-id":"t1"}'], { env: { TERMIO_SESSION: SESSION, TERMIO_HOME: home } });
    expect(r.code).toBe(0);
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]).toMatchObject({ agent: 'codex', payload: '{"thread-id":"t1"}' });
  });

  it('the reporter cuts a huge payload to the cap and still reads all of stdin', async () => {
    const big = JSON.stringify({ session_id: 'big', tool_response: 'y'.repeat(1_000_000) });
    const r = await runReporter(['claude', 'working', 'PostToolUse'], { env: { TERMIO_SESSION: SESSION, TERMIO_HOOK_SOCKET: server.socketPath }, stdin: big });
    expect(r.code).toBe(0);
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]!.truncated).toBe(true);
    expect(reports[0]!.payload.length).toBe(64 * 1024);
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
    const again = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), isKnownSession: () => true });
    expect(again).toMatchObject({ kind: 'hookServerError', message: expect.stringMatching(/already listening/) });
    // A crash leaves the socket file behind with nobody listening: the next start takes it over.
    await server.close();
    writeFileSync(join(home, 'run', 'hooks.sock'), '');
    const next = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: home }), isKnownSession: () => true });
    expect(next).toBeInstanceOf(HookServer);
    server = next as HookServer;
  });
});

describe('reporter', () => {
  it('outside Termio it does nothing: exit 0, no output, no connection', async () => {
    const r = await runReporter(['claude', 'working', 'PreToolUse'], { env: { TERMIO_HOOK_SOCKET: server.socketPath }, stdin: '{"session_id":"x"}' });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(server.stats.accepted + server.stats.unknownSession + server.stats.malformed).toBe(0);
  });

  it('when the app is gone it exits 0 quickly and silently', async () => {
    const r = await runReporter(['claude', 'working', 'PreToolUse'], { env: { TERMIO_SESSION: SESSION, TERMIO_HOOK_SOCKET: join(home, 'run', 'nobody.sock') }, stdin: '{}' });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('when stdin stays open it still reports and exits 0', async () => {
    const child = spawn(process.execPath, [REPORTER, 'claude', 'idle', 'SessionStart'], {
      env: { PATH: process.env.PATH ?? '', TERMIO_SESSION: SESSION, TERMIO_HOOK_SOCKET: server.socketPath },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.write('{"session_id":"open"}');
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(0);
    await waitFor(() => reports.length === 1, { what: 'the report' });
    expect(reports[0]).toMatchObject({ payload: '{"session_id":"open"}' });
  });
});
