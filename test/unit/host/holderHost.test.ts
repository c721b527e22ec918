// The real termio-host (built dist/) with real session holders and ptys in a temporary HOME:
// a SIGKILL of the host, `termio host restart` and a host killed in the middle of a `yes` flood
// each leave the session's process running; the next host adopts it with the same pid, the same
// screen and scrollback (for the flood: what a fresh emulator fed the holder's whole byte stream
// shows), and typing still works; a `sessions wait` or a `--wait` of send, spawn or run in flight
// goes on with the next host; the sessions are listed in the order they had, a finished one in its
// place; a session asking the user keeps its state and its place in the attention queue (or being
// handled). `termio host stop` still ends everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HostClient } from '../../../src/app/client/hostClient';
import { collectRows, rowText } from '../../../src/protocol/hostFrame';
import { createEmulator } from '../../../src/terminal/node';
import { readCheckpoint } from '../../../src/app/host/holders/checkpointFile';
import type { SessionInfo } from '../../../src/protocol/sessionInfo';
import { shortSocketDir } from '../../../src/app/host/holders/holders';
import { termioPaths } from '../../../src/app/services/paths';
import { attach, mirrorFrames } from '../../helpers/hostScreen';
import { endProcessesWithHome, isAlive, waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';
import { writeFake } from '../../helpers/fakeOnPath';

const repoRoot = resolve(__dirname, '..', '..', '..');
const termioBin = join(repoRoot, 'bin', 'termio');
const holderBin = join(repoRoot, 'native', 'termio-holder', 'build', 'termio-holder');
/** Each test starts two to four hosts (and kills them): 4–14 s in full runs on a 2-core machine,
 *  beside two busy loops included. Ten times that, for a machine far busier than those runs. */
const RESTART_TEST_BOUND_MS = 150_000;

let dir: string;
let env: NodeJS.ProcessEnv;
const clients: HostClient[] = [];

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'app', 'host', 'hostMain.js'))) throw new Error('dist/ is missing the host: run `npm run build` first');
  if (!existsSync(holderBin)) throw new Error(`${holderBin} is missing: run node scripts/setup.mjs`);
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'termio-holderhost-'));
  mkdirSync(join(dir, 'tap'));
  env = { ...process.env, HOME: dir, TERMIO_HOME: join(dir, '.termio'), TERMIO_HOST_IDLE_MS: '0', TERMIO_HOLDER_TAP_DIR: join(dir, 'tap'), PS1: '$ ', ENV: '' };
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await endProcessesWithHome(dir);
  rmSync(dir, { recursive: true, force: true });
});

function hostPids(): number[] {
  const log = join(dir, '.termio', 'logs', 'host.log');
  if (!existsSync(log)) return [];
  return [...readFileSync(log, 'utf8').matchAll(/host listening .*"pid":(\d+)/g)].map((m) => Number(m[1]));
}

/** A `termio` command left running (a wait): the process, and its end with what it printed. */
function background(args: string[]): { child: ChildProcess; ended: Promise<{ code: number; out: string; err: string }> } {
  const child = spawn(process.execPath, [termioBin, ...args], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  return { child, ended: new Promise((r) => child.on('close', (code) => r({ code: code ?? -1, out, err }))) };
}

function termio(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return background(args).ended;
}

/** Waits the host's log says it was asked for, whose log line contains `match` (an id, an until). */
function waitsAsked(match: string): number {
  const log = join(dir, '.termio', 'logs', 'host.log');
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.includes('control: waiting') && l.includes(match)).length
    : 0;
}

async function sessions(): Promise<Array<{ id: string; pid: number }>> {
  const r = await termio(['host', 'list', '--json']);
  return r.code === 0 ? (JSON.parse(r.out) as { sessions: Array<{ id: string; pid: number }> }).sessions : [];
}

async function client(): Promise<HostClient> {
  const c = await HostClient.connect(join(dir, '.termio', 'run', 'host.sock'), { client: 'test', version: '0' });
  if (!(c instanceof HostClient)) throw new Error(c.message);
  clients.push(c);
  return c;
}

/** Every line of the session's buffer (scrollback and screen) as the host serves it. */
async function bufferText(id: string): Promise<string> {
  const c = await client();
  const mirrors = mirrorFrames(c);
  const view = await attach(c, mirrors, id, 1);
  const lines: string[] = [];
  for (let first = 0; ; first += 1000) {
    const r = await c.rows({ view: 1, first, count: 1000 });
    if (!r.ok) throw new Error(r.error.message);
    for (const row of collectRows(r.reader)) lines.push(rowText(row.runs).trimEnd());
    if (first + 1000 >= r.header.total) break;
  }
  const h = view.header!;
  c.close();
  return `${lines.join('\n')}\n[cursor ${h.cursor.x},${h.cursor.y}]`;
}

async function read(id: string): Promise<string> {
  return (await termio(['sessions', 'read', id])).out;
}

/** A fake Claude Code on the login shell's PATH (its hooks are installed as for the real one). */
function fakeClaudeOnPath(): void {
  mkdirSync(join(dir, 'bin'));
  writeFake(join(dir, 'bin'), 'claude', 'fake-agent.mjs', 'claude');
  writeFileSync(join(dir, '.profile'), `PATH="${join(dir, 'bin')}:$PATH"\nexport PATH\n`);
  env = { ...env, SHELL: '/bin/sh' };
}

async function killHost(): Promise<void> {
  const pid = hostPids().at(-1)!;
  process.kill(pid, 'SIGKILL');
  await waitForExit(pid, 'the killed host to go');
}

describe('session holders under termio-host', () => {
  it(
    'keeps the process, screen and scrollback through a SIGKILL of the host and a restart',
    async () => {
      const id = (await termio(['host', 'spawn', '--', '/bin/sh'])).out.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await termio(['host', 'status'])).out).toContain('holders: on, 1 session held');
      await termio(['sessions', 'send', id, 'seq 1 150; printf "\\033[1;32mgreen\\033[0m\\n"; echo marker-one', '--enter']);
      await waitFor(async () => /^marker-one$/m.test(await read(id)), { what: 'the first output' });
      const pid = (await sessions())[0]!.pid;
      // The shell runs under its holder, in a session of its own: not a child of the host.
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      expect(ppid).not.toBe(hostPids().at(-1));
      const before = await bufferText(id);

      await killHost();
      expect(isAlive(pid)).toBe(true);
      // The next command starts a new host, which adopts the session.
      expect(await sessions()).toEqual([expect.objectContaining({ id, pid })]);
      expect(await bufferText(id)).toBe(before);

      const restarted = await termio(['host', 'restart']);
      expect(restarted.code, restarted.err).toBe(0);
      expect(restarted.out).toMatch(/agents kept running/);
      expect(await sessions()).toEqual([expect.objectContaining({ id, pid })]);
      expect(await bufferText(id)).toBe(before);
      expect(readFileSync(join(dir, '.termio', 'logs', 'host.log'), 'utf8')).toMatch(/host restarting: held agents keep running/);

      await termio(['sessions', 'send', id, 'echo typed-after-restart', '--enter']);
      await waitFor(async () => /^typed-after-restart$/m.test(await read(id)), { what: 'typing after the restart' });

      // stop still ends everything, holders included.
      expect((await termio(['host', 'stop'])).code).toBe(0);
      await waitForExit(pid, 'the session to end with the host');
      await waitFor(() => readdirSync(join(dir, '.termio', 'run', 'holders')).length === 0, { what: 'the holders to go' });
      expect(readdirSync(join(dir, '.termio', 'state', 'checkpoints'))).toEqual([]);
    },
    RESTART_TEST_BOUND_MS,
  );

  it(
    'lists the sessions in the order they had through a SIGKILL of the host and a restart, a finished one in its place among them',
    async () => {
      env = { ...env, SHELL: '/bin/sh' };
      // Both kinds of start: `host spawn` (not saved in the state file) and `sessions spawn` (saved).
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await termio(i % 2 === 0 ? ['host', 'spawn', '--', '/bin/sh'] : ['sessions', 'spawn', '--cwd', dir]);
        expect(r.code, r.err).toBe(0);
        ids.push(r.out.trim());
      }
      // The fourth one's program ends: its tab stays, from the checkpoint taken at its exit.
      const finished = ids[3]!;
      await termio(['sessions', 'send', finished, 'exit 3', '--enter']);
      type Listed = { id: string; exited: { exitCode: number } | null };
      const listed = async (): Promise<Listed[]> => {
        const r = await termio(['sessions', 'list', '--json']);
        expect(r.code, r.err).toBe(0);
        return (JSON.parse(r.out) as { sessions: Listed[] }).sessions;
      };
      await waitFor(async () => (await listed()).find((s) => s.id === finished)?.exited?.exitCode === 3, { what: 'the fourth program to end' });
      const before = (await listed()).map((s) => s.id);
      expect(before).toEqual(ids);
      // A SIGKILL leaves what the checkpoints hold: wait until each session has one.
      const checkpoints = join(dir, '.termio', 'state', 'checkpoints');
      await waitFor(
        () =>
          ids.every((id) => {
            const cp = readCheckpoint(checkpoints, id);
            return cp !== null && 'session' in cp && (id !== finished || cp.exited !== undefined);
          }),
        { what: 'a checkpoint of every session', timeout: 30_000 },
      );

      await killHost();
      expect((await listed()).map((s) => s.id)).toEqual(before);
      expect((await termio(['host', 'restart'])).code).toBe(0);
      expect((await listed()).map((s) => s.id)).toEqual(before);
    },
    RESTART_TEST_BOUND_MS,
  );

  it('carries a `termio sessions wait` in flight through a SIGKILL of the host and a restart, on the same session; a stop ends it', async () => {
    const id = (await termio(['host', 'spawn', '--', '/bin/sh'])).out.trim();
    const pid = (await sessions())[0]!.pid;
    const { child: wait, ended } = background(['sessions', 'wait', id, '--until', 'exit', '--json']);
    await waitFor(() => waitsAsked(id) === 1, { what: 'the wait to reach the host' });

    await killHost();
    // Nobody else starts a host here: the waiting command does, and asks the new one again.
    await waitFor(() => waitsAsked(id) === 2, { what: 'the wait to be asked again of the next host', timeout: 30_000 });
    expect(hostPids()).toHaveLength(2);
    expect(wait.exitCode).toBe(null);
    expect(isAlive(pid)).toBe(true);
    // A restart (an update does the same) is a lost connection too, and the wait goes on again.
    expect((await termio(['host', 'restart'])).code).toBe(0);
    await waitFor(() => waitsAsked(id) === 3, { what: 'the wait to be asked again after the restart', timeout: 30_000 });
    expect(wait.exitCode).toBe(null);

    await termio(['sessions', 'send', id, 'exit 7', '--enter']);
    const { code, out, err } = await ended;
    expect(code, err).toBe(0);
    expect(err).toContain(`the session host was lost during the wait; waiting on session ${id} with the next one`);
    const result = JSON.parse(out) as { outcome: string; session: { id: string; pid: number; exited: { exitCode: number } | null } };
    expect(result).toMatchObject({ outcome: 'settled', session: { id, pid, exited: expect.objectContaining({ exitCode: 7 }) } });

    // `termio host stop` ends the sessions: a wait on one ends with them, and starts no host.
    const other = (await termio(['host', 'spawn', '--', '/bin/sh'])).out.trim();
    const hosts = hostPids().length;
    const stopped = termio(['sessions', 'wait', other, '--until', 'exit']);
    await waitFor(() => waitsAsked(other) === 1, { what: 'the second wait to reach the host' });
    expect((await termio(['host', 'stop'])).code).toBe(0);
    const closed = await stopped;
    expect(closed.code, closed.err).toBe(1);
    expect(closed.err).toMatch(/closed before it settled/);
    expect(hostPids()).toHaveLength(hosts);
  }, 90_000);

  it(
    'carries run, spawn and send --wait through a SIGKILL of the host: each goes on with the next host and prints the whole of its work',
    async () => {
      const asked = (until: string): number => waitsAsked(`"until":"${until}"`);
      /** A command that holds its step until the test creates `name`. */
      const gate = (name: string): string => `while [ ! -e ${join(dir, name)} ]; do sleep 0.1; done`;
      /** Kills the host once the wait is in place and the session's state is saved; returns once the next host was asked again. */
      const loseHostDuring = async (until: string, saved: () => boolean = () => true): Promise<void> => {
        await waitFor(() => asked(until) === 1, { what: `the ${until} wait to reach the host` });
        await waitFor(saved, { what: 'a checkpoint with the work' });
        await killHost();
        await waitFor(() => asked(until) === 2, { what: `the ${until} wait to be asked again of the next host`, timeout: 30_000 });
      };
      const lostNote = /the session host was lost during the wait; waiting on session [0-9a-f-]{36} with the next one/;
      // Before any host starts: the host's environment is the one its sessions start in.
      fakeClaudeOnPath();
      expect((await termio(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);

      // run: its exit, and what it printed before the loss as well as after.
      const running = background(['sessions', 'run', '--wait', '--json', '--', 'sh', '-c', `echo before-loss; ${gate('go-run')}; echo after-loss; exit 4`]);
      await loseHostDuring('exit');
      writeFileSync(join(dir, 'go-run'), '');
      const ran = await running.ended;
      expect(ran.code, ran.err).toBe(0);
      expect(ran.err).toMatch(lostNote);
      const run = JSON.parse(ran.out) as { id: string; wait: { outcome: string; lines: string[]; session: { exited: { exitCode: number } } } };
      expect(run.wait).toMatchObject({ outcome: 'settled', session: { exited: { exitCode: 4 } } });
      expect(run.wait.lines).toEqual(['before-loss', 'after-loss']);

      // spawn with a first prompt, then send: an agent's turn that the host is lost in the middle of.
      const working = (id: string) => (): boolean => {
        const cp = readCheckpoint(join(dir, '.termio', 'state', 'checkpoints'), id);
        return (cp && 'session' in cp ? cp.session.status?.engine.current.state : undefined) === 'working';
      };
      const agentId = async (): Promise<string> => {
        await waitFor(async () => (await sessions()).length === 2, { what: 'the agent session' });
        return (await sessions()).find((x) => x.id !== run.id)!.id;
      };
      const spawning = background(['sessions', 'spawn', '--agent', 'claude', '--prompt', `!${gate('go-spawn')}; echo spawned-turn`, '--wait', '--json']);
      const id = await agentId();
      await loseHostDuring('turn', working(id));
      writeFileSync(join(dir, 'go-spawn'), '');
      const spawned = await spawning.ended;
      expect(spawned.code, spawned.err).toBe(0);
      expect(spawned.err).toMatch(lostNote);
      const first = JSON.parse(spawned.out) as { id: string; wait: { outcome: string; lines: string[]; session: { state: string } } };
      expect(first).toMatchObject({ id, wait: { outcome: 'settled', session: { state: expect.stringMatching(/^(done|idle)$/) } } });
      // From the session's start, on the next host too (its rows rebuilt from the checkpoint).
      expect(first.wait.lines.slice(0, 2)).toEqual(['fake claude ready', expect.stringContaining(`> !${gate('go-spawn')}`.slice(0, 60))]);

      const sending = background(['sessions', 'send', id, `!${gate('go-send')}; echo sent-turn`, '--enter', '--wait', '--json']);
      await waitFor(() => asked('turn') === 3, { what: 'the send wait to reach the host' });
      await waitFor(working(id), { what: 'a checkpoint with the work' });
      await killHost();
      await waitFor(() => asked('turn') === 4, { what: 'the send wait to be asked again of the next host', timeout: 30_000 });
      writeFileSync(join(dir, 'go-send'), '');
      const sent = await sending.ended;
      expect(sent.code, sent.err).toBe(0);
      expect(sent.err).toMatch(lostNote);
      // Its lines begin where the wait was asked again: the mark was a row of the lost host's screen.
      expect(JSON.parse(sent.out)).toMatchObject({ id, wait: { outcome: 'settled', session: { state: expect.stringMatching(/^(done|idle)$/) } } });
      expect(hostPids()).toHaveLength(4);
    },
    RESTART_TEST_BOUND_MS,
  );

  it(
    'keeps a session asking the user (attention) or working as it was through a SIGKILL of the host: its status comes back with it',
    async () => {
      fakeClaudeOnPath();
      expect((await termio(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
      const spawned = await termio(['sessions', 'spawn', '--agent', 'claude']);
      expect(spawned.code, spawned.err).toBe(0);
      const id = spawned.out.trim();
      const pid = (await sessions())[0]!.pid;
      const why = async (): Promise<{ state: string; since: string; channel: string; event?: string }> =>
        JSON.parse((await termio(['sessions', 'why', id, '--json'])).out) as { state: string; since: string; channel: string; event?: string };
      // The state the last checkpoint keeps, as the status tracker had it.
      const saved = (): string | undefined => {
        const cp = readCheckpoint(join(dir, '.termio', 'state', 'checkpoints'), id);
        return cp && 'session' in cp ? cp.session.status?.engine.current.state : undefined;
      };
      const stateIs = async (state: string): Promise<boolean> => (await why()).state === state;

      await termio(['sessions', 'send', id, 'ask before running tests', '--enter']);
      await waitFor(() => stateIs('attention'), { what: 'the permission prompt to be attention' });
      // The title still shows the spinner: a host starting afresh would read the session as working.
      await waitFor(() => saved() === 'attention', { what: 'a checkpoint with the attention' });
      const asking = await why();
      const waitingSince = async () =>
        (JSON.parse((await termio(['sessions', 'list', '--json'])).out) as { sessions: SessionInfo[] }).sessions[0]!.waitingSince;
      const queued = await waitingSince();
      expect(queued).toEqual(expect.any(String));
      await killHost();
      expect(await why()).toMatchObject({ state: 'attention', since: asking.since, channel: 'hooks', event: 'PermissionRequest' });
      expect((await sessions())[0]).toMatchObject({ id, pid, state: 'attention' });
      // Its place in the attention queue comes back with it; handled, it stays off the queue.
      expect(await waitingSince()).toBe(queued);
      expect((await termio(['sessions', 'handled', id])).code).toBe(0);
      await waitFor(
        () => {
          const cp = readCheckpoint(join(dir, '.termio', 'state', 'checkpoints'), id);
          return cp && 'session' in cp && cp.session.waitingSince === null;
        },
        {
          what: 'a checkpoint of the session handled',
        },
      );
      await killHost();
      expect(await waitingSince()).toBeNull();
      expect(await stateIs('attention')).toBe(true);

      // The adopting host hears the agent's hooks as the first one did.
      await termio(['sessions', 'send', id, 'y', '--enter']);
      await waitFor(() => stateIs('done'), { what: 'done once the permission is given' });
      await termio(['sessions', 'send', id, 'a slow one', '--enter']);
      await waitFor(() => stateIs('working'), { what: 'the slow turn to be working' });
      await waitFor(() => saved() === 'working', { what: 'a checkpoint with the work' });
      const working = await why();
      await killHost();
      // Since when it works, too: a host starting afresh would read the spinner as work from now on.
      expect(await why()).toMatchObject({ state: 'working', since: working.since });
      expect((await sessions())[0]).toMatchObject({ id, pid, state: 'working' });
    },
    RESTART_TEST_BOUND_MS,
  );

  it('holds the sessions of a home too deep for socket paths, its sockets in a short folder of the user under /tmp', async () => {
    // 75 bytes: run/host.sock still fits in a socket path, run/holders/<uuid>.sock (54 more) does not.
    const home = join(dir, 'd'.repeat(Math.max(1, 75 - dir.length - '/.termio'.length - 1)), '.termio');
    expect(join(home, 'run', 'control.sock').length).toBeLessThanOrEqual(103);
    env = { ...env, TERMIO_HOME: home };
    const short = shortSocketDir(termioPaths(env));
    expect(join(home, 'run', 'holders', `${'0'.repeat(36)}.sock`).length).toBeGreaterThan(103);
    try {
      const id = (await termio(['host', 'spawn', '--', '/bin/sh'])).out.trim();
      expect((await termio(['host', 'status'])).out).toContain('holders: on, 1 session held');
      expect(readdirSync(short)).toEqual([`${id}.sock`]);
      const pid = (await sessions())[0]!.pid;
      const log = join(home, 'logs', 'host.log');
      const hostPid = [...readFileSync(log, 'utf8').matchAll(/host listening .*"pid":(\d+)/g)].map((m) => Number(m[1])).at(-1)!;
      process.kill(hostPid, 'SIGKILL');
      await waitForExit(hostPid, 'the killed host to go');
      expect(await sessions()).toEqual([expect.objectContaining({ id, pid })]);
      expect((await termio(['host', 'stop'])).code).toBe(0);
      await waitForExit(pid, 'the session to end with the host');
      await waitFor(() => readdirSync(short).length === 0, { what: 'the holders to go' });
    } finally {
      rmSync(short, { recursive: true, force: true });
    }
  }, 90_000);

  it('rebuilds, after a SIGKILL of the host in a yes flood, the screen a fresh emulator fed the whole stream shows', async () => {
    // Numbered, so that every line differs and a screen that lags behind is told from one caught up.
    const id = (await termio(['host', 'spawn', '--', '/bin/sh', '-c', 'yes 0123456789-flood | cat -n'])).out.trim();
    const tap = join(dir, 'tap', `${id}.bin`);
    await waitFor(() => existsSync(tap) && statSync(tap).size > 2_000_000, { what: 'the flood', timeout: 30_000 });
    await killHost();
    const pid = (await sessions())[0]!.pid;
    process.kill(-pid, 'SIGSTOP');
    try {
      // Stopped: once neither the stream nor the adopted screen changes any more, it has caught up.
      let size = -1;
      let text = '';
      await waitFor(
        async () => {
          const [s, t] = [statSync(tap).size, await bufferText(id)];
          const same = s === size && t === text;
          [size, text] = [s, t];
          return same;
        },
        { what: 'the stream to end and the screen to settle', interval: 700, timeout: 40_000 },
      );
      const fresh = createEmulator({ cols: 80, rows: 24, scrollback: 10_000 });
      await new Promise<void>((r) => fresh.write(readFileSync(tap), r));
      const b = fresh.buffer.active;
      const lines: string[] = [];
      for (let y = 0; y < b.length; y++) lines.push(b.getLine(y)?.translateToString(true) ?? '');
      expect(text).toBe(`${lines.join('\n')}\n[cursor ${b.cursorX},${b.cursorY}]`);
      expect(text).toMatch(/^ *\d+ +0123456789-flood$/m);
      fresh.dispose();
    } finally {
      process.kill(-pid, 'SIGCONT');
    }
  }, 90_000);

  it('keeps the failure a session stopped on through a host restart', async () => {
    fakeClaudeOnPath();
    expect((await termio(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
    const id = (await termio(['sessions', 'spawn', '--agent', 'claude', '--cwd', dir])).out.trim();
    await waitFor(async () => (await read(id)).includes('fake claude ready'), { what: 'the prompt' });
    // A turn the API refuses: the prompt hook, then StopFailure with a 401 (no Stop, as Claude Code does).
    await termio(['sessions', 'send', id, '/hook UserPromptSubmit {"prompt":"fix the login"}', '--enter']);
    const details = '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}';
    await termio(['sessions', 'send', id, `/hook StopFailure ${JSON.stringify({ error: 'authentication_failed', error_details: details })}`, '--enter']);
    const why = async () => JSON.parse((await termio(['sessions', 'why', id, '--json'])).out) as { state: string; failure?: object };
    const failure = { kind: 'auth', reason: 'API error 401: log in again' };
    await waitFor(async () => ((await why()).failure ? true : null), { what: 'the failure' });
    expect(await why()).toMatchObject({ state: 'attention', failure });
    // The checkpoint the next host adopts the session from carries it.
    await waitFor(
      () => {
        const cp = readCheckpoint(join(dir, '.termio', 'state', 'checkpoints'), id);
        return cp && 'session' in cp && cp.session.status?.engine.current.why.failure ? true : null;
      },
      { what: 'the failure in the checkpoint' },
    );
    const pid = (await sessions())[0]!.pid;

    const restarted = await termio(['host', 'restart']);
    expect(restarted.code, restarted.err).toBe(0);
    expect(await sessions()).toEqual([expect.objectContaining({ id, pid })]);
    expect(await why()).toMatchObject({ state: 'attention', failure });
    const listed = JSON.parse((await termio(['sessions', 'list', '--json'])).out) as {
      sessions: Array<{ id: string; state: string; stateWhy: string; status: { why: { failure?: object } } }>;
    };
    expect(listed.sessions[0]).toMatchObject({ id, state: 'attention', status: { why: { failure } } });
  }, 90_000);
});
