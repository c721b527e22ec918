// A parent woken when its children finish (`termio sessions spawn --notify-parent`), against the
// real host process with real ptys: the parent is a fake coordinator that records every line typed
// into it and whether it was working then; its children are fake agents started by the built
// `termio` CLI run with the parent's TERMIO_SESSION and secret, as an agent in the tab runs it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/app/client/controlClient';
import type { HostProcess } from '../../../src/app/host/hostProcess';
import type { WatchEvent } from '../../../src/protocol/control';
import { termio } from '../../helpers/controlHost';
import { makeHostHome, startLoggedHost } from '../../helpers/loggedHost';
import { waitFor } from '../../helpers/waitFor';
import { writeFake } from '../../helpers/fakeOnPath';

let home: string;
let proj: string;
let host: HostProcess;
let logs: string[];
let env: NodeJS.ProcessEnv;
let inputLog: string;
let release: string;
const clients: ControlClient[] = [];

beforeEach(async () => {
  let bin: string;
  ({ home, proj, bin, env } = makeHostHome('termio-notices-'));
  // The coordinator runs as Gemini CLI (its titles); the workers as Claude Code and Codex.
  writeFake(bin, 'gemini', 'fakeCoordinator.mjs');
  for (const agent of ['claude', 'codex']) writeFake(bin, agent, 'fake-agent.mjs', agent);
  inputLog = join(home, 'parent-input.log');
  release = join(home, 'release');
  Object.assign(env, { FAKE_INPUT_LOG: inputLog, FAKE_RELEASE: release });
  ({ host, logs } = await startLoggedHost(env));
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await host.stop('test over');
  rmSync(home, { recursive: true, force: true });
});

type Entry = { at: number; line?: string; working?: boolean; event?: 'working' | 'ready' };
const entries = (): Entry[] =>
  existsSync(inputLog)
    ? readFileSync(inputLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Entry)
    : [];
const notices = () => entries().filter((e) => e.line?.startsWith('[termio] '));

/** The coordinator's tab, and the environment a `termio` run inside it has. */
async function parentTab(): Promise<{ id: string; env: NodeJS.ProcessEnv }> {
  const r = await host.registry.spawn({ agent: 'gemini', cwd: proj });
  if (!r.ok) throw new Error(r.message);
  const { id } = r.record;
  const pid = r.record.session.pid;
  const read = (): NodeJS.ProcessEnv =>
    Object.fromEntries(
      readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
  const inside = await waitFor(() => (read().TERMIO_SESSION === id && read().TERMIO_SESSION_SECRET ? read() : null), {
    what: `the coordinator of ${id} to start`,
  });
  await waitFor(
    () =>
      stateOf(id) === 'idle' &&
      host.registry
        .get(id)!
        .session.screenLines()
        .some((l) => l.includes('ready')),
    { what: 'the coordinator to be ready' },
  );
  return { id, env: { ...env, TERMIO_SESSION: inside.TERMIO_SESSION, TERMIO_SESSION_SECRET: inside.TERMIO_SESSION_SECRET } };
}

const stateOf = (id: string) => host.registry.get(id)?.state;

/** `termio sessions spawn` run inside the parent; the child's id. */
async function spawnChild(parentEnv: NodeJS.ProcessEnv, agent: string, prompt: string, notify: boolean, title?: string): Promise<string> {
  const args = ['sessions', 'spawn', '--agent', agent, '--prompt', prompt, ...(title ? ['--title', title] : []), ...(notify ? ['--notify-parent'] : [])];
  const r = await termio(args, parentEnv, proj);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** Types a line into the parent, as its user would, and waits for the fake to read it. */
async function typeIntoParent(id: string, line: string): Promise<void> {
  const before = entries().length;
  host.registry.get(id)!.session.write(`${line}\r`);
  await waitFor(
    () =>
      entries()
        .slice(before)
        .some((e) => e.line === line),
    { what: `the coordinator to read '${line}'` },
  );
}

async function why(id: string): Promise<Record<string, unknown>> {
  const r = await termio(['sessions', 'why', id, '--json'], env, proj);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

async function watchEvents(): Promise<WatchEvent[]> {
  const c = await ControlClient.connect(env);
  if (!(c instanceof ControlClient)) throw new Error(c.message);
  clients.push(c);
  const events: WatchEvent[] = [];
  c.onEvent((e) => events.push(e));
  const r = await c.request('sessions.watch', {});
  if (!r.ok) throw new Error(r.error.message);
  return events;
}

describe('a parent woken when its children finish', () => {
  it('types the notice into a busy parent only once it is ready again, and says so in why and on the event stream', async () => {
    const parent = await parentTab();
    const events = await watchEvents();
    await typeIntoParent(parent.id, 'hold on, coordinating');
    await waitFor(() => stateOf(parent.id) === 'working', { what: 'the coordinator to work' });

    const child = await spawnChild(parent.env, 'claude', 'build it', true, 'builder');
    expect(host.registry.get(child)!.parentId).toBe(parent.id);
    await waitFor(() => stateOf(child) === 'done', { what: 'the child to finish its turn' });
    const event = await waitFor(() => events.find((e) => e.kind === 'childFinished'), { what: 'the childFinished event' });
    const text = `[termio] child "builder" (${child}, claude) is done; its last line: "Done.". Read it with: termio sessions read ${child}`;
    expect(event).toMatchObject({ session: { id: child, parentId: parent.id }, notice: { child, parent: parent.id, kind: 'done', text } });

    // The parent is still working: the notice waits, and both sides' why say so.
    expect(stateOf(parent.id)).toBe('working');
    expect(notices()).toEqual([]);
    expect(await why(child)).toMatchObject({ tellsParent: parent.id });
    expect(await why(parent.id)).toMatchObject({ queued: [{ child, text }] });
    expect((await termio(['sessions', 'why', child], env, proj)).stdout).toContain(`tells parent ${parent.id} when it finishes`);

    writeFileSync(release, '');
    const [told] = await waitFor(() => (notices().length ? notices() : null), { what: 'the notice to be typed into the coordinator' });
    expect(told).toMatchObject({ line: text, working: false });
    // It came after the coordinator was ready again, never into the turn it was working on.
    const seen = entries();
    const readyAt = seen.findIndex((e) => e.event === 'ready');
    expect(readyAt).toBeGreaterThan(-1);
    expect(seen.findIndex((e) => e.line === text)).toBeGreaterThan(readyAt);
    await waitFor(async () => (await why(parent.id)).told, { what: "the parent's why to show what it was told" });
    expect(await why(parent.id)).toMatchObject({ told: { child, text } });
    expect(await why(parent.id)).not.toHaveProperty('queued');
  }, 60_000);

  it('tells nothing of a child spawned without --notify-parent, and tells of one that needs an answer or ends', async () => {
    const parent = await parentTab();
    const quiet = await spawnChild(parent.env, 'claude', 'build it quietly', false, 'quiet');
    await waitFor(() => stateOf(quiet) === 'done', { what: 'the child without --notify-parent to finish' });
    expect(await why(quiet)).not.toHaveProperty('tellsParent');

    const asking = await spawnChild(parent.env, 'codex', 'ask before the tests', true, 'asker');
    await waitFor(() => stateOf(asking) === 'attention', { what: 'the child to ask' });
    await waitFor(() => notices().length === 1, { what: 'the question to be told' });
    expect(notices()[0]!.line).toMatch(
      new RegExp(
        `^\\[termio\\] child "asker" \\(${asking}, codex\\) needs an answer: ".*Allow Bash\\(npm test\\)\\?.*"\\. See the question with: termio sessions question ${asking}$`,
      ),
    );

    const failing = await spawnChild(parent.env, 'claude', '/fail 3 cannot reach the model', true, 'failer');
    await waitFor(() => notices().length === 2, { what: "the failing child's end to be told" });
    expect(notices()[1]!.line).toBe(
      `[termio] child "failer" (${failing}, claude) ended: "exited with code 3: cannot reach the model". Read it with: termio sessions read ${failing}`,
    );
    // Told in order, and the child without the flag never was (its notice would have come first).
    expect(notices().some((e) => e.line!.includes(quiet))).toBe(false);
    expect(notices().every((e) => e.working === false)).toBe(true);
  }, 60_000);

  it('tells of a child that stops on a failure, with its reason', async () => {
    expect((await termio(['hooks', 'install', '--agent', 'claude'], env, proj)).status).toBe(0);
    const parent = await parentTab();
    // Claude Code's StopFailure, as it reports an API that refused the key.
    const payload = {
      error: 'authentication_failed',
      error_details: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
    };
    const failing = await spawnChild(parent.env, 'claude', `/hook StopFailure ${JSON.stringify(payload)}`, true, 'keyless');
    await waitFor(() => host.registry.get(failing)?.failure, { what: 'the child to stop on the failure' });
    const reason = host.registry.get(failing)!.failure!.reason;
    expect(reason).toMatch(/401/);
    await waitFor(() => notices().length === 1, { what: 'the failure to be told' });
    expect(notices()[0]).toMatchObject({
      line: `[termio] child "keyless" (${failing}, claude) failed: "${reason}". Read it with: termio sessions read ${failing}`,
      working: false,
    });
  }, 60_000);

  it('drops what waits for a parent that ends, and logs it', async () => {
    const parent = await parentTab();
    await typeIntoParent(parent.id, 'hold everything');
    await waitFor(() => stateOf(parent.id) === 'working', { what: 'the coordinator to work' });
    const child = await spawnChild(parent.env, 'claude', 'build it', true);
    await waitFor(async () => ((await why(parent.id)).queued as unknown[] | undefined)?.length === 1, { what: 'the notice to wait for the parent' });

    expect((await termio(['sessions', 'close', parent.id], env, proj)).status).toBe(0);
    await waitFor(() => logs.find((l) => l.startsWith('notices: dropped, the parent') && l.includes(child)), { what: 'the dropped notice in the log' });
    expect(notices()).toEqual([]);
    // The child goes on, and a later finish of it has no parent to tell either.
    expect(stateOf(child)).toBe('done');
  }, 60_000);

  it('refuses --notify-parent outside a session, saying why', async () => {
    const r = await termio(['sessions', 'spawn', '--agent', 'claude', '--notify-parent'], env, proj);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--notify-parent works only from inside a Termio session');
    const c = await ControlClient.connect(env);
    if (!(c instanceof ControlClient)) throw new Error(c.message);
    clients.push(c);
    const reply = await c.request('sessions.spawn', { agent: 'claude', cwd: proj, notifyParent: true, parent: 'no-such-session' });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'badRequest', message: "sessions.spawn: notifyParent: no open session matches 'no-such-session'" },
    });
    const away = await c.request('sessions.spawn', { agent: 'claude', notifyParent: true, machine: 'build-box' });
    expect(away).toMatchObject({
      ok: false,
      error: { code: 'badRequest', message: "sessions.spawn: notifyParent: a session on machine 'build-box' cannot tell a parent on this one" },
    });
    expect(host.registry.list()).toEqual([]);
  }, 30_000);
});
