// The attention queue through the real host: the real Host (the bundled Claude Code manifest, its
// hooks installed, the hook server, the status tracker) in a temporary HOME and TERMIO_HOME, two
// fake `claude` agents in real ptys that ask permission through their hooks. `termio sessions
// next --json` names the one that began to wait first; marking it handled (it still shows
// attention) makes the second the head; typing into the second takes it off too, and then
// next finds nothing waiting — and with --focus goes to the session that finished last.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import { nullLogger } from '../../../src/app/services/log';
import type { ControlResult, SessionInfo } from '../../../src/protocol/control';
import { termio } from '../../helpers/controlHost';
import { waitFor } from '../../helpers/waitFor';
import { writeFake } from '../../helpers/fakeOnPath';
import { installHooks } from '../../helpers/installHooks';

let home: string;
let proj: string;
let host: Host;
const savedEnv = { ...process.env };

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-queue-')));
  proj = join(home, 'proj');
  mkdirSync(proj);
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFake(bin, 'claude', 'fake-agent.mjs', 'claude');
  // Sessions inherit this process's environment (the host runs here): point it at the test HOME.
  Object.assign(process.env, { HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: `${bin}:${savedEnv.PATH}`, SHELL: '/bin/sh' });
  delete process.env.TERMIO_SESSION;
  delete process.env.TERMIO_SESSION_SECRET;
  const started = await Host.start({ env: process.env, logger: nullLogger, path: process.env.PATH!, notificationSink: { send: async () => undefined } });
  if (!started.ok) throw new Error(started.message);
  host = started.host;
  expect(installHooks(host, 'claude')).toMatchObject({ state: 'installed' });
});

afterEach(async () => {
  await host?.dispose();
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(home, { recursive: true, force: true });
});

const screen = (id: string) => host.registry.get(id)!.session.screenLines().join('\n');

async function startClaude(): Promise<string> {
  const r = await host.registry.spawn({ agent: 'claude', cwd: proj });
  if (!r.ok) throw new Error(r.message);
  const id = r.record.id;
  await waitFor(() => screen(id).includes('fake claude ready'), { what: 'the prompt' });
  return id;
}

/** A turn whose tool call needs permission: the agent's permission hook makes it attention. */
async function ask(id: string): Promise<void> {
  host.registry.get(id)!.session.write('deploy it, ask first\r');
  await waitFor(() => host.registry.get(id)?.state === 'attention' && screen(id).includes('[y/n]'), { what: `${id} to ask permission` });
}

async function next(...flags: string[]): Promise<{ status: number; result: ControlResult<'sessions.next'> }> {
  const r = await termio(['sessions', 'next', '--json', ...flags], process.env);
  return { status: r.status, result: JSON.parse(r.stdout) as ControlResult<'sessions.next'> };
}

async function listed(id: string): Promise<SessionInfo> {
  const r = await termio(['sessions', 'list', '--json'], process.env);
  return (JSON.parse(r.stdout) as { sessions: SessionInfo[] }).sessions.find((s) => s.id === id)!;
}

it('next names the session waiting longest; handled or typed into, it leaves the queue', async () => {
  const first = await startClaude();
  const second = await startClaude();
  const done = await startClaude();
  // A finished turn: the fallback of next --focus when nothing waits.
  host.registry.get(done)!.session.write('say hello\r');
  await waitFor(() => host.registry.get(done)?.state === 'done', { what: 'the third session to finish its turn' });
  await ask(first);
  await ask(second);
  expect(host.registry.get(first)!.waitingSince).toBeLessThanOrEqual(host.registry.get(second)!.waitingSince!);

  const head = await next();
  expect(head.status).toBe(0);
  expect(head.result).toMatchObject({ reason: 'waiting', session: { id: first, state: 'attention' }, queue: [first, second], focused: false });
  const text = await termio(['sessions', 'next'], process.env);
  expect(text.stdout).toMatch(new RegExp(`^${first}  claude  waiting \\d+ s  ~/proj  deploy it, ask first\\n$`));

  const marked = await termio(['sessions', 'handled', first.slice(0, 8), '--json'], process.env);
  expect(JSON.parse(marked.stdout)).toMatchObject({ ok: true, id: first, wasWaiting: true });
  // Handled: it still needs you, and is no longer in the queue.
  expect(await listed(first)).toMatchObject({ state: 'attention', waitingSince: null });
  expect((await next()).result).toMatchObject({ reason: 'waiting', session: { id: second }, queue: [second] });

  // Typing into the second answers it (the fake agent goes on with its turn) and takes it off.
  const typed = await termio(['sessions', 'send', second, 'y', '--enter'], process.env);
  expect(typed.status).toBe(0);
  const none = await next();
  expect(none.status).toBe(1);
  expect(none.result).toMatchObject({ queue: [] });
  expect((await termio(['sessions', 'next'], process.env)).stderr).toBe('termio: no session waits for you\n');

  // With --focus and nothing waiting: the session that finished most recently, brought forward.
  const focused: string[] = [];
  host.registry.onFocusRequested((r) => focused.push(r.id));
  await waitFor(() => host.registry.get(second)?.state === 'done', { what: 'the second session to finish the turn it was let go on' });
  const fallback = await next('--focus');
  expect(fallback).toMatchObject({ status: 0, result: { reason: 'done', session: { id: second }, focused: true } });
  expect(focused).toEqual([second]);
});

it('a handled session joins the queue again when it asks something new', async () => {
  const id = await startClaude();
  await ask(id);
  expect((await termio(['sessions', 'handled', id], process.env)).status).toBe(0);
  expect(host.registry.get(id)!.waitingSince).toBeNull();
  // The answer lets the turn finish; the next turn asks again: it waits from then on.
  const s = host.registry.get(id)!.session;
  s.write('y\r');
  await waitFor(() => host.registry.get(id)?.state !== 'attention', { what: 'the turn to go on' });
  const before = Date.now();
  s.write('deploy again, ask first\r');
  await waitFor(() => host.registry.get(id)?.waitingSince, { what: 'the session back in the queue' });
  expect(host.registry.get(id)!.waitingSince).toBeGreaterThanOrEqual(before);
  expect((await next()).result).toMatchObject({ reason: 'waiting', session: { id } });
});

it('answering its question takes a session off the queue', async () => {
  const id = await startClaude();
  await ask(id);
  const q = await termio(['sessions', 'question', id, '--json'], process.env);
  expect(q.status).toBe(0);
  // What the queue looked like at each change: the answer takes it off before the agent, reading
  // the keys, goes on working (which would take it off anyway).
  const seen: Array<{ state: string; waiting: boolean }> = [];
  const record = (r: { id: string; state: string; waitingSince: number | null }) =>
    r.id === id && seen.push({ state: r.state, waiting: r.waitingSince !== null });
  host.registry.onChanged(record);
  host.registry.onStateChanged((c) => record(c.record));
  const answered = await termio(['sessions', 'answer', id, '1'], process.env);
  expect(answered.status).toBe(0);
  await waitFor(() => host.registry.get(id)?.state === 'working' || host.registry.get(id)?.state === 'done', { what: 'the turn to go on' });
  expect(seen[0]).toEqual({ state: 'attention', waiting: false });
});
