// The real `bin/termio` (run `npm run build` first) against a real host in this process: every
// `termio sessions` verb, prefixes, --json, exit codes; and `termio DIR`, with the app running and not.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDir, type HostStarter } from '../../src/app/cli/openDir';
import { ControlClient } from '../../src/app/client/controlClient';
import type { CliIo } from '../../src/app/cli/cliIo';
import { Session } from '../../src/terminal/node';
import type { SessionInfo } from '../../src/protocol/sessionInfo';
import { rawConnect, repoRoot, startTestHost, termio, type TestHost } from '../helpers/controlHost';
import { waitFor } from '../helpers/waitFor';

let host: TestHost | null = null;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await host?.dispose();
  host = null;
});

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'app', 'cli', 'sessions.js'))) throw new Error('dist/ is missing the CLI: run `npm run build` first');
});

describe('termio sessions (the real executable)', () => {
  it('spawn, send with --enter, read, list, focus, close — ids by prefix', async () => {
    host = await startTestHost();
    const h = host;
    const folder = h.dir('work');
    const spawned = await termio(['sessions', 'spawn', '--cwd', 'work', '--title', 'cli test'], h.env, h.home);
    expect(spawned).toMatchObject({ status: 0, stderr: '' });
    const id = spawned.stdout.trim();
    expect(h.registry.get(id)?.cwd).toBe(folder);
    const prefix = id.slice(0, 5);

    expect(await termio(['sessions', 'send', prefix, 'echo hello', '--enter'], h.env)).toEqual({ status: 0, stdout: '', stderr: '' });
    const screen = await waitFor(
      async () => {
        const r = await termio(['sessions', 'read', prefix], h.env);
        return r.status === 0 && r.stdout.split('\n').includes('hello') ? r.stdout : null;
      },
      { what: 'hello on the screen' },
    );
    expect(screen).toContain('$ echo hello\nhello\n$');
    const last = await termio(['sessions', 'read', prefix, '--lines', '2', '--json'], h.env);
    expect(JSON.parse(last.stdout)).toEqual({ schemaVersion: 1, ok: true, id, lines: ['hello', '$'], cols: 80, rows: 24 });

    const list = await termio(['sessions', 'list'], h.env);
    expect(list.status).toBe(0);
    const [header, row] = list.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+AGENT\s+STATE\s+SINCE\s+CWD\s+TITLE$/);
    expect(row).toMatch(new RegExp(`^${id.slice(0, 8)}\\s+shell\\s+idle\\s+(now|\\d+s)\\s+~/work\\s+cli test$`));
    const listJson = JSON.parse((await termio(['sessions', 'list', '--json'], h.env)).stdout) as {
      schemaVersion: number;
      ok: boolean;
      sessions: SessionInfo[];
    };
    expect(listJson).toMatchObject({
      schemaVersion: 1,
      ok: true,
      sessions: [{ id, cwd: folder, title: 'cli test', state: 'idle', agentId: null, parentId: null, stalledSince: null }],
    });

    const focused: string[] = [];
    h.registry.onFocusRequested((r) => focused.push(r.id));
    expect(await termio(['sessions', 'focus', prefix, '--json'], h.env)).toEqual({
      status: 0,
      stdout: `${JSON.stringify({ schemaVersion: 1, ok: true, id })}\n`,
      stderr: '',
    });
    expect(focused).toEqual([id]);

    expect((await termio(['sessions', 'close', prefix], h.env)).status).toBe(0);
    expect(h.registry.size).toBe(0);
    expect((await termio(['sessions', 'list'], h.env)).stdout).toBe('No sessions.\n');
  });

  it('watch prints a snapshot, then a line per state change, and exits 4 when the app goes', async () => {
    host = await startTestHost();
    const h = host;
    const s = await h.registry.spawn({ cwd: h.dir('w'), title: 'watched' });
    if (!s.ok) throw new Error(s.message);
    const id = s.record.id;
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'termio'), 'sessions', 'watch', '--json'], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const lines: Array<Record<string, unknown>> = [];
    let buf = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      for (let i; (i = buf.indexOf('\n')) !== -1; buf = buf.slice(i + 1)) lines.push(JSON.parse(buf.slice(0, i)));
    });
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitFor(() => lines.length === 1, { what: 'the snapshot line' });
    expect(lines[0]).toMatchObject({ kind: 'snapshot', session: { id, state: 'idle', title: 'watched' } });
    h.registry.setState(id, 'attention', 'test: permission prompt');
    await waitFor(() => lines.length === 2, { what: 'the state line' });
    expect(lines[1]).toMatchObject({ kind: 'state', previous: 'idle', session: { id, state: 'attention', stateWhy: 'test: permission prompt' } });
    h.registry.close(id);
    await waitFor(() => lines.length === 3, { what: 'the removed line' });
    expect(lines[2]).toMatchObject({ kind: 'removed', session: { id } });
    await h.server.close();
    expect(await exit).toBe(4);
  });

  it('exit codes: 1 no such session or ambiguous prefix or refused, 4 app not running, 2 bad usage; --json errors', async () => {
    host = await startTestHost();
    const h = host;
    for (const id of ['abc-1', 'abc-2']) {
      const s = Session.spawn({ argv: ['/bin/sh'], cwd: h.home, id });
      if (!(s instanceof Session)) throw new Error(s.message);
      h.registry.add(s);
    }
    const amb = await termio(['sessions', 'read', 'abc'], h.env);
    expect(amb).toMatchObject({ status: 1, stdout: '' });
    expect(amb.stderr).toContain("'abc' matches 2 sessions");
    expect((await termio(['sessions', 'focus', 'abc-2'], h.env)).status).toBe(0);
    expect(await termio(['sessions', 'close', 'zzz'], h.env)).toMatchObject({ status: 1, stderr: "termio: no session matches 'zzz'\n" });
    const jsonError = await termio(['sessions', 'close', 'zzz', '--json'], h.env);
    expect(jsonError.status).toBe(1);
    expect(JSON.parse(jsonError.stdout)).toEqual({ schemaVersion: 1, ok: false, code: 'noSuchSession', message: "no session matches 'zzz'" });

    // No host runs and none can start (its home is a file): exit 4, saying why.
    const blocked = join(h.home, 'not-a-folder');
    writeFileSync(blocked, '');
    const elsewhere = { ...h.env, TERMIO_HOME: blocked };
    const notRunning = await termio(['sessions', 'list', '--json'], elsewhere);
    expect(notRunning).toMatchObject({ status: 4 });
    expect(JSON.parse(notRunning.stdout)).toMatchObject({ schemaVersion: 1, ok: false, code: 'hostNotRunning' });
    expect(notRunning.stderr).toMatch(/^termio: no Termio session host runs, and starting one failed: .*not-a-folder/);

    for (const args of [
      ['sessions', 'read'],
      ['sessions', 'read', 'a', '--lines', '0'],
      ['sessions', 'list', '--colour'],
      ['sessions', 'send', 'a'],
      ['sessions', 'frob'],
      ['sessions', 'focus', 'a', 'b'],
      ['sessions', 'list', '--json=yes'],
    ]) {
      const r = await termio(args, h.env);
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      expect(r.stderr).toContain('Usage: termio sessions');
    }
    expect(await termio(['sessions', 'spawn', '--cwd', join(h.home, 'missing')], h.env)).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('is not an existing folder'),
    });
    for (const verb of ['list', 'watch', 'read', 'send', 'spawn', 'focus', 'close']) {
      const r = await termio(['sessions', verb, '--help'], h.env);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: termio sessions ${verb}`));
      expect(r.stdout).toContain('--json');
    }
  });

  it('retries a busy app, and exits 4 when the app drops the connection without answering', async () => {
    // One connection allowed, held by a silent peer the server drops after 300 ms: the CLI's first
    // try is told busy, and a retry gets through.
    host = await startTestHost({ limits: { maxConnections: 1, idleTimeoutMs: 300 } });
    const h = host;
    const holder = await rawConnect(h.socket);
    const r = await termio(['sessions', 'list', '--json'], h.env);
    expect(r).toMatchObject({ status: 0, stdout: '{"schemaVersion":1,"ok":true,"sessions":[]}\n' });
    await holder.closed;

    // An "app" that accepts and hangs up on every request.
    await h.server.close();
    const rude = createServer((s) => s.on('data', () => s.destroy()));
    await new Promise<void>((res) => rude.listen(h.socket, () => res()));
    writeFileSync(join(h.paths.runDir, 'control.json'), JSON.stringify({ socket: h.socket, pid: process.pid }));
    try {
      const lost = await termio(['sessions', 'list'], h.env);
      expect(lost).toMatchObject({ status: 4, stderr: 'termio: the app closed the connection\n' });
    } finally {
      await new Promise((res) => rude.close(res));
    }
  });

  it('termio DIR opens the folder as a new, focused session in the running app', async () => {
    host = await startTestHost();
    const h = host;
    const dir = h.dir('some project');
    const focused: string[] = [];
    h.registry.onFocusRequested((r) => focused.push(r.id));
    const r = await termio(['some project'], h.env, h.home);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    const id = r.stdout.trim();
    expect(h.registry.get(id)?.cwd).toBe(dir);
    expect(focused).toEqual([id]);
    // A command name wins over a folder of that name; ./name opens the folder.
    mkdirSync(join(h.home, 'sessions'));
    expect((await termio(['sessions'], h.env, h.home)).stdout).toMatch(/^Usage: termio sessions/);
    expect((await termio(['./sessions'], h.env, h.home)).status).toBe(0);
    expect(h.registry.size).toBe(2);
  });
});

describe('termio DIR without a running app', () => {
  const hostScript = `
    const d = ${JSON.stringify(join(repoRoot, 'dist', 'app', 'host'))};
    const { ControlServer } = require(d + '/control/controlServer.js');
    const { SessionRegistry, shellSpawner } = require(d + '/sessions/sessionRegistry.js');
    const { termioPaths } = require(d + '/../services/paths.js');
    const registry = new SessionRegistry({ spawner: shellSpawner(['/bin/sh']) });
    const server = new ControlServer({ paths: termioPaths(process.env), registry });
    server.listen().then((r) => { if (!r.ok) { console.error(r.message); process.exit(1); } });
    process.on('SIGTERM', () => server.close().then(() => { registry.dispose(); process.exit(0); }));
  `;

  function io(env: NodeJS.ProcessEnv, cwd: string) {
    const out: string[] = [];
    const err: string[] = [];
    const cli: CliIo = { out: (t) => void out.push(t), err: (t) => void err.push(t), env, cwd };
    return { cli, out, err };
  }

  it('starts the session host, waits for its control socket, then opens the folder', async () => {
    host = await startTestHost();
    const h = host;
    await h.server.close();
    const dir = h.dir('fresh');
    let launches = 0;
    const launcher: HostStarter = (cli) => {
      launches++;
      const child = spawn(process.execPath, ['-e', hostScript], { env: cli.env, stdio: 'ignore' });
      children.push(child);
      return { exited: () => (child.exitCode !== null ? `exited ${child.exitCode}` : null) };
    };
    const { cli, out, err } = io(h.env, h.home);
    expect(await openDir('fresh', cli, launcher)).toBe(0);
    expect(err).toEqual([]);
    expect(launches).toBe(1);
    const id = out.join('').trim();
    const client = await ControlClient.connect(h.env);
    if (!(client instanceof ControlClient)) throw new Error(client.message);
    const listed = await client.request('sessions.list', {});
    client.close();
    expect(listed).toMatchObject({ ok: true, result: { sessions: [{ id, cwd: dir }] } });
    // Now that it runs, a second `termio DIR` does not start another host.
    expect(await openDir('fresh', io(h.env, h.home).cli, launcher)).toBe(0);
    expect(launches).toBe(1);
  });

  it('reports a host that dies at start with exit 4', async () => {
    host = await startTestHost();
    const h = host;
    await h.server.close();
    const launcher: HostStarter = () => {
      const child = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
      children.push(child);
      return { exited: () => (child.exitCode !== null ? `the session host exited at start (code ${child.exitCode})` : null) };
    };
    const { cli, err } = io(h.env, h.home);
    expect(await openDir(h.dir('x'), cli, launcher)).toBe(4);
    expect(err.join('')).toBe('termio: the session host exited at start (code 3)\n');
  });
});
