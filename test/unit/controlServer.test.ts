// The control server against a real host: /bin/sh sessions in real ptys, a real Unix socket in a
// temporary TERMIO_HOME, driven through the CLI's own client (ControlClient).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlServer } from '../../src/app/host/control/controlServer';
import { SessionRegistry } from '../../src/app/host/sessions/sessionRegistry';
import { ControlClient } from '../../src/app/client/controlClient';
import { ControlResultSchemas, WatchEventSchema, type WatchEvent } from '../../src/protocol/control';
import { SessionInfoSchema, type SessionInfo } from '../../src/protocol/sessionInfo';
import { Session } from '../../src/terminal/node';
import { startTestHost, testShell, type TestHost } from '../helpers/controlHost';
import { waitFor } from '../helpers/waitFor';
import { waitForExit } from '../helpers/processes';

let host: TestHost | null = null;
afterEach(async () => {
  await host?.dispose();
  host = null;
});

async function ok<T>(client: ControlClient, verb: Parameters<ControlClient['request']>[0], args: object): Promise<T> {
  const r = await client.request(verb, args as never);
  if (!r.ok) throw new Error(`${verb} failed: ${r.error.code}: ${r.error.message}`);
  // Every reply the server sends must satisfy its schema.
  ControlResultSchemas[verb].parse(r.result);
  return r.result as T;
}

async function readUntil(client: ControlClient, id: string, test: (lines: string[]) => boolean, what: string) {
  return waitFor(
    async () => {
      const r = await ok<{ lines: string[] }>(client, 'sessions.read', { id });
      return test(r.lines) ? r.lines : null;
    },
    { what },
  );
}

describe('control server', () => {
  it('announces itself in control.json and keeps its files private', async () => {
    host = await startTestHost();
    const info = JSON.parse(readFileSync(join(host.paths.runDir, 'control.json'), 'utf8'));
    expect(info).toMatchObject({ socket: host.socket, pid: process.pid, protocol: 1 });
    expect(typeof info.version).toBe('string');
    expect(Number.isNaN(Date.parse(info.startedAt))).toBe(false);
    expect(statSync(host.paths.runDir).mode & 0o777).toBe(0o700);
    expect(statSync(host.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(host.paths.runDir, 'control.json')).mode & 0o777).toBe(0o600);
    const c = await host.client();
    expect(await ok(c, 'ping', {})).toEqual({ pong: true, protocol: 1 });
    expect(await ok(c, 'version', {})).toMatchObject({ pid: process.pid, protocol: 1 });
    await host.server.close();
    expect(existsSync(host.socket)).toBe(false);
    expect(existsSync(join(host.paths.runDir, 'control.json'))).toBe(false);
  });

  it('spawns a shell, types `echo hello` with a real Return, reads it back, watches a state change, focuses, closes', async () => {
    host = await startTestHost();
    const c = await host.client();
    const folder = host.dir('project');
    const spawned = await ok<{ id: string; session: SessionInfo }>(c, 'sessions.spawn', { cwd: folder, title: 'first' });
    expect(spawned.session).toMatchObject({ id: spawned.id, cwd: folder, title: 'first', state: 'idle', agentId: null, exited: null });
    const id = spawned.id;

    // Watch from a second connection: snapshot first, then events.
    const watcher = await host.client();
    const events: WatchEvent[] = [];
    watcher.onEvent((e) => events.push(WatchEventSchema.parse(e)));
    const snapshot = await ok<{ sessions: SessionInfo[] }>(watcher, 'sessions.watch', {});
    expect(snapshot.sessions.map((s) => s.id)).toEqual([id]);

    await ok(c, 'sessions.send', { id, text: 'echo hello', enter: true });
    // The output line, not the typed command: the shell ran it, so the Return was a real one.
    const lines = await readUntil(c, id, (l) => l.includes('hello') && l.includes('$ echo hello'), 'hello on screen');
    expect(lines.indexOf('hello')).toBeGreaterThan(lines.indexOf('$ echo hello'));
    const last = await ok<{ lines: string[]; cols: number; rows: number }>(c, 'sessions.read', { id, lines: 2 });
    expect(last).toMatchObject({ lines: ['hello', '$'], cols: 80, rows: 24 });

    host.registry.setState(id, 'working', 'test: hook PreToolUse');
    await waitFor(() => events.find((e) => e.kind === 'state'), { what: 'a state event' });
    const stateEvent = events.find((e) => e.kind === 'state') as WatchEvent;
    expect(stateEvent).toMatchObject({ kind: 'state', previous: 'idle', session: { id, state: 'working', stateWhy: 'test: hook PreToolUse' } });
    const listed = await ok<{ sessions: SessionInfo[] }>(c, 'sessions.list', {});
    expect(listed.sessions[0]).toMatchObject({ state: 'working', stateSince: stateEvent.session.stateSince });

    const focused: string[] = [];
    host.registry.onFocusRequested((r) => focused.push(r.id));
    expect(await ok(c, 'sessions.focus', { id: id.slice(0, 6) })).toEqual({ id });
    expect(focused).toEqual([id]);

    const pid = spawned.session.pid;
    expect(await ok(c, 'sessions.close', { id })).toEqual({ id });
    await waitFor(() => events.find((e) => e.kind === 'removed'), { what: 'a removed event' });
    expect((await ok<{ sessions: SessionInfo[] }>(c, 'sessions.list', {})).sessions).toEqual([]);
    await waitForExit(pid, 'the shell to be gone');
    const gone = await c.request('sessions.read', { id });
    expect(gone).toEqual({ ok: false, error: { code: 'noSuchSession', message: `no session matches '${id}'` } });
  });

  it('keeps two sessions in two folders apart', async () => {
    host = await startTestHost();
    const c = await host.client();
    const a = host.dir('alpha');
    const b = host.dir('beta');
    const sa = await ok<{ id: string }>(c, 'sessions.spawn', { cwd: a });
    const sb = await ok<{ id: string }>(c, 'sessions.spawn', { cwd: b });
    const list = await ok<{ sessions: SessionInfo[] }>(c, 'sessions.list', {});
    expect(list.sessions.map((s) => [s.id, s.cwd])).toEqual([
      [sa.id, a],
      [sb.id, b],
    ]);
    for (const s of list.sessions) SessionInfoSchema.parse(s);
    await ok(c, 'sessions.send', { id: sa.id, text: 'pwd; echo "$TERMIO_SESSION"', enter: true });
    await ok(c, 'sessions.send', { id: sb.id, text: 'pwd; echo "$TERMIO_SESSION"', enter: true });
    const la = await readUntil(c, sa.id, (l) => l.includes(sa.id), 'alpha output');
    const lb = await readUntil(c, sb.id, (l) => l.includes(sb.id), 'beta output');
    expect(la).toContain(a);
    expect(la).not.toContain(b);
    expect(lb).toContain(b);
    expect(lb.join('\n')).not.toContain(sa.id);
  });

  it('resolves unique prefixes and reports ambiguous or unknown ones', async () => {
    host = await startTestHost();
    const c = await host.client();
    for (const id of ['abc-1', 'abc-2', 'xyz']) {
      const s = Session.spawn({ argv: ['/bin/sh'], cwd: host.home, id });
      if (!(s instanceof Session)) throw new Error(s.message);
      host.registry.add(s);
    }
    expect(await ok(c, 'sessions.focus', { id: 'x' })).toEqual({ id: 'xyz' });
    expect(await ok(c, 'sessions.focus', { id: 'abc-2' })).toEqual({ id: 'abc-2' });
    const amb = await c.request('sessions.focus', { id: 'abc' });
    expect(amb).toEqual({ ok: false, error: { code: 'ambiguousSession', message: "'abc' matches 2 sessions (abc-1, abc-2); give more of the id" } });
    const none = await c.request('sessions.close', { id: 'nope' });
    expect(none).toMatchObject({ ok: false, error: { code: 'noSuchSession' } });
  });

  it('returns user mistakes as error replies: bad folder, unknown agent, exited session', async () => {
    host = await startTestHost();
    const c = await host.client();
    expect(await c.request('sessions.spawn', { cwd: join(host.home, 'missing') })).toMatchObject({ ok: false, error: { code: 'badDirectory' } });
    expect(await c.request('app.open', { dir: join(host.home, 'missing') })).toMatchObject({ ok: false, error: { code: 'badDirectory' } });
    expect(await c.request('sessions.spawn', { agent: 'claude' })).toMatchObject({
      ok: false,
      error: { code: 'spawnFailed', message: expect.stringContaining("'claude'") },
    });
    const s = await ok<{ id: string }>(c, 'sessions.spawn', {});
    await ok(c, 'sessions.send', { id: s.id, text: 'exit 3', enter: true });
    await waitFor(async () => (await ok<{ sessions: SessionInfo[] }>(c, 'sessions.list', {})).sessions[0]?.exited, { what: 'the shell to exit' });
    expect((await ok<{ sessions: SessionInfo[] }>(c, 'sessions.list', {})).sessions[0]?.exited).toEqual({ exitCode: 3 });
    expect(await c.request('sessions.send', { id: s.id, text: 'x' })).toMatchObject({ ok: false, error: { code: 'sessionExited' } });
  });

  it('opens a folder through onOpenDir (default: a focused shell there)', async () => {
    host = await startTestHost();
    const c = await host.client();
    const focused: string[] = [];
    host.registry.onFocusRequested((r) => focused.push(r.id));
    const dir = host.dir('opened');
    const r = await ok<{ id: string }>(c, 'app.open', { dir });
    expect(host.registry.get(r.id)?.cwd).toBe(dir);
    expect(focused).toEqual([r.id]);
  });

  it('refuses to start next to a live app and replaces the stale socket of a crashed one', async () => {
    host = await startTestHost();
    const second = new ControlServer({ paths: host.paths, registry: new SessionRegistry({ spawner: testShell() }) });
    const refused = await second.listen();
    expect(refused).toMatchObject({ ok: false, reason: 'alreadyRunning', pid: process.pid });
    await host.server.close();

    // A "crashed app": a process that listens on the socket and is killed with SIGKILL, leaving the file behind.
    const socketPath = host.socket;
    const crashed = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('up'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((r) => crashed.stdout.once('data', () => r()));
    writeFileSync(
      join(host.paths.runDir, 'control.json'),
      JSON.stringify({ socket: socketPath, pid: crashed.pid, version: 'x', protocol: 1, startedAt: new Date().toISOString() }),
    );
    crashed.kill('SIGKILL');
    await new Promise((r) => crashed.once('exit', r));
    expect(statSync(socketPath).isSocket()).toBe(true);

    // The CLI sees the app as not running...
    const cli = await ControlClient.connect(host.env);
    expect(cli).toMatchObject({ kind: 'hostNotRunning', message: expect.stringContaining('stale socket') });
    // ...and a new app takes over.
    const fresh = new ControlServer({ paths: host.paths, registry: host.registry });
    expect(await fresh.listen()).toMatchObject({ ok: true, socket: socketPath });
    expect(JSON.parse(readFileSync(join(host.paths.runDir, 'control.json'), 'utf8')).pid).toBe(process.pid);
    const c = await host.client();
    expect(await ok(c, 'ping', {})).toEqual({ pong: true, protocol: 1 });
    c.close();
    await fresh.close();
  });

  it('says the app is not running when there is no control.json', async () => {
    host = await startTestHost();
    await host.server.close();
    expect(await ControlClient.connect(host.env)).toMatchObject({ kind: 'hostNotRunning', message: expect.stringContaining('no ') });
  });
});
