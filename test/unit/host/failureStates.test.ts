// A failed agent never looks done, through the real host: the real Host (catalog with the bundled
// Claude Code manifest, hook installer, hook server, status tracker, notification router) in a
// temporary HOME and TERMIO_HOME, a fake `claude` on the PATH in a real pty that runs the
// installed hooks like the real CLI. A StopFailure carrying a 429 with a retry time, one carrying
// a 401, and the agent exiting with code 1 each make the session attention with the reason in
// `termio sessions list --json`, `termio sessions why` (text and --json) and a notification.
// An agent of the user's own with no hooks, whose failed turn is only printed, is read through its
// manifest's failureScreen once a line was sent to it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import type { NotificationRequest } from '../../../src/app/services/notifier';
import type { SessionInfo } from '../../../src/protocol/sessionInfo';
import { formatClock } from '../../../src/protocol/status/failureReason';
import { termio } from '../../helpers/controlHost';
import { waitFor } from '../../helpers/waitFor';
import { writeFake } from '../../helpers/fakeOnPath';
import { enterTestHome, leaveTestHome, startHostHere } from '../../helpers/testHome';
import { installHooks } from '../../helpers/installHooks';

let home: string;
let proj: string;
let host: Host;
let sent: NotificationRequest[];

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-failure-')));
  proj = join(home, 'proj');
  mkdirSync(proj);
  const bin = join(home, 'bin');
  mkdirSync(bin);
  // Claude Code as a user installs it: `claude` on the PATH (exec keeps the pid).
  writeFake(bin, 'claude', 'fake-agent.mjs', 'claude');
  // An agent with no hooks that prints an API error for every line but "ok" (and one from an
  // earlier run at launch), and the user's manifest that reads it.
  const lines = [
    'echo "API Error: 400 from an earlier run"',
    'echo ready',
    'while read line; do',
    '  case "$line" in ok) echo fine ;; *) echo "API Error: 400 refused ($line)" ;; esac',
    'done',
  ];
  writeFileSync(join(bin, 'screenfail'), `#!/bin/sh\n${lines.join('\n')}\n`, { mode: 0o755 });
  const agents = join(home, '.termio', 'config', 'agents');
  mkdirSync(agents, { recursive: true });
  writeFileSync(
    join(agents, 'screenfail.json'),
    JSON.stringify({ id: 'screenfail', name: 'Screen Fail', command: 'screenfail', failureScreen: ['^API Error: (.*)'] }),
  );
  // Sessions inherit this process's environment (the host runs here): point it at the test HOME.
  enterTestHome(home, bin);
  sent = [];
  host = await startHostHere({ notificationSink: { send: async (req) => void sent.push(req) } });
  expect(installHooks(host, 'claude')).toMatchObject({ state: 'installed' });
});

afterEach(async () => {
  await host?.dispose();
  leaveTestHome();
  rmSync(home, { recursive: true, force: true });
});

const screen = (id: string) => host.registry.get(id)!.session.screenLines().join('\n');

/** A Claude Code session at its prompt, its SessionStart applied. */
async function startClaude(): Promise<string> {
  const r = await host.registry.spawn({ agent: 'claude', cwd: proj });
  if (!r.ok) throw new Error(r.message);
  const id = r.record.id;
  await waitFor(() => screen(id).includes('fake claude ready'), { what: 'the prompt' });
  await waitFor(() => host.hooks.stats.accepted >= 1, { what: "the agent's SessionStart" });
  return id;
}

/** A turn the API refuses: the prompt hook, then StopFailure with this payload (no Stop, as Claude Code does). */
async function failTurn(id: string, payload: object): Promise<void> {
  const s = host.registry.get(id)!.session;
  s.write(`/hook UserPromptSubmit {"prompt":"fix the login"}\r`);
  await waitFor(() => host.registry.get(id)?.state === 'working', { what: 'the turn to start' });
  s.write(`/hook StopFailure ${JSON.stringify({ hook_event_name: 'StopFailure', ...payload })}\r`);
}

/** What a user sees: `sessions list --json`, `sessions why` and `sessions why --json`. */
async function seen(id: string) {
  const list = await termio(['sessions', 'list', '--json'], process.env);
  expect(list).toMatchObject({ status: 0, stderr: '' });
  const session = (JSON.parse(list.stdout) as { sessions: SessionInfo[] }).sessions.find((s) => s.id === id)!;
  const whyText = await termio(['sessions', 'why', id], process.env);
  expect(whyText).toMatchObject({ status: 0, stderr: '' });
  const whyJson = await termio(['sessions', 'why', id, '--json'], process.env);
  const table = await termio(['sessions', 'list'], process.env);
  return {
    session,
    table: table.stdout,
    whyText: whyText.stdout,
    why: JSON.parse(whyJson.stdout) as { state: string; failure?: { kind: string; reason: string; resetsAt?: string } },
  };
}

describe('a failed turn or process is attention with its reason', () => {
  it('a StopFailure with a 429 and a retry time: stopped, usage limit, resets at that time', async () => {
    const id = await startClaude();
    const before = Date.now();
    await failTurn(id, {
      error: 'rate_limit',
      last_assistant_message: "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again in 45 minutes.",
    });
    await waitFor(() => (host.registry.get(id)?.state === 'attention' ? true : null), { what: 'attention' });
    const { session, whyText, why } = await seen(id);
    const resetsAt = Date.parse(why.failure!.resetsAt!);
    // "in 45 minutes" from when the host read it: between the two clocks around the report.
    expect(resetsAt).toBeGreaterThanOrEqual(before + 45 * 60_000);
    expect(resetsAt).toBeLessThanOrEqual(Date.now() + 45 * 60_000);
    const reason = `stopped: usage limit, resets ${formatClock(resetsAt, resetsAt - 45 * 60_000)}`;
    expect(session).toMatchObject({
      state: 'attention',
      status: { state: 'attention', why: { channel: 'hooks', event: 'StopFailure', failure: { kind: 'usage', reason } } },
    });
    expect(why).toMatchObject({ state: 'attention', failure: { kind: 'usage', reason } });
    expect(whyText).toMatch(new RegExp(`^attention: ${reason} since .* — hooks StopFailure at `));
    const n = await waitFor(() => sent.find((r) => r.sessionId === id), { what: 'the notification' });
    expect(n).toMatchObject({ kind: 'attention', title: `Claude Code ${reason}`, message: 'proj' });
  });

  it('a StopFailure with a 401: log in again; the next turn clears it', async () => {
    const id = await startClaude();
    await failTurn(id, {
      error: 'authentication_failed',
      error_details: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      last_assistant_message: 'Invalid API key · Fix external API key',
    });
    await waitFor(() => (host.registry.get(id)?.state === 'attention' ? true : null), { what: 'attention' });
    const { session, table, whyText, why } = await seen(id);
    const failure = { kind: 'auth', reason: 'API error 401: log in again' };
    expect(table).toContain('attention (API error 401: log in again)');
    expect(session.status?.why.failure).toEqual(failure);
    expect(session.stateWhy).toBe('hooks: StopFailure (API error 401: log in again)');
    expect(why).toMatchObject({ state: 'attention', failure });
    expect(whyText).toContain('attention: API error 401: log in again since');
    const n = await waitFor(() => sent.find((r) => r.sessionId === id), { what: 'the notification' });
    expect(n).toMatchObject({ kind: 'attention', title: 'Claude Code stopped: API error 401: log in again' });

    // The user logged in and tried again: a new turn is working, with no failure left.
    host.registry.get(id)!.session.write(`/hook UserPromptSubmit {"prompt":"again"}\r`);
    await waitFor(() => (host.registry.get(id)?.state === 'working' ? true : null), { what: 'the next turn' });
    expect(host.registry.get(id)!.failure).toBeNull();
    expect((await seen(id)).why.failure).toBeUndefined();
  });

  it('the agent exiting with code 1: exited with code 1 and its last line, never done', async () => {
    const id = await startClaude();
    host.registry.get(id)!.session.write('/fail 1 Unable to connect to Anthropic services\r');
    await waitFor(() => host.registry.get(id)?.session.exited, { what: 'the exit' });
    await waitFor(() => (host.registry.get(id)?.state === 'attention' ? true : null), { what: 'attention' });
    const { session, table, whyText, why } = await seen(id);
    const failure = { kind: 'exit', reason: 'exited with code 1: Unable to connect to Anthropic services' };
    expect(table).toContain('attention (exited 1)');
    expect(session).toMatchObject({ state: 'attention', exited: { exitCode: 1 }, status: { why: { channel: 'exit', event: 'exit 1', failure } } });
    expect(why).toMatchObject({ state: 'attention', failure, exited: { exitCode: 1 } });
    expect(whyText).toContain(`attention: ${failure.reason} since`);
    const n = await waitFor(() => sent.find((r) => r.sessionId === id), { what: 'the notification' });
    expect(n).toMatchObject({ kind: 'attention', title: `Claude Code ${failure.reason}` });
  });

  it('the agent exiting with code 0 is done, with no failure', async () => {
    const id = await startClaude();
    host.registry.get(id)!.session.write('/exit\r');
    await waitFor(() => (host.registry.get(id)?.state === 'done' ? true : null), { what: 'done' });
    const { session, why } = await seen(id);
    expect(session.status?.why).toMatchObject({ channel: 'exit', event: 'exit 0' });
    expect(session.status?.why.failure).toBeUndefined();
    expect(why.failure).toBeUndefined();
  });
});

describe('a failure only printed (failureScreen, no hooks)', () => {
  it('is news once a line was sent: attention with its reason; the next line sent ends it', async () => {
    const r = await host.registry.spawn({ agent: 'screenfail', cwd: proj });
    if (!r.ok) throw new Error(r.message);
    const id = r.record.id;
    await waitFor(() => screen(id).includes('ready'), { what: 'the prompt' });
    const typed = await termio(['sessions', 'send', id, 'fix the login', '--enter'], process.env);
    expect(typed).toMatchObject({ status: 0, stderr: '' });
    await waitFor(() => (host.registry.get(id)?.state === 'attention' ? true : null), { what: 'attention' });
    const failure = { kind: 'api', reason: 'API error 400: refused (fix the login)' };
    const { session, why } = await seen(id);
    expect(session.status?.why).toMatchObject({ channel: 'status', rule: '^API Error: (.*)', event: 'failure on screen', failure });
    expect(why).toMatchObject({ state: 'attention', failure });

    host.registry.get(id)!.session.write('ok\r');
    await waitFor(() => screen(id).includes('fine'), { what: 'the next answer' });
    await waitFor(() => (host.registry.get(id)?.failure === null ? true : null), { what: 'the failure to end' });
    expect(host.registry.get(id)!.state).not.toBe('attention');
  });
});
