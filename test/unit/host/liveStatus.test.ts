// Live status end to end with real parts: hooks installed by the installer into a temporary
// HOME, a fake agent in a real pty that reads those files and runs the hooks like the real CLI,
// the real reporter, the hook server on a real socket, and the status tracker.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookServer } from '../../../src/app/host/status/hookServer';
import { defaultReporterLocation, installAgentHooks, type AgentHooks } from '../../../src/app/services/hookInstaller';
import { termioPaths } from '../../../src/app/services/paths';
import { StatusTracker, type AgentStatusConfig, type ConversationChange } from '../../../src/app/host/status/statusTracker';
import type { HooksDeclaration } from '../../../src/protocol/hooks/dialects';
import type { SessionStatus } from '../../../src/protocol/status/sessionState';
import { Session } from '../../../src/terminal/node';
import { SessionSecrets } from '../../helpers/sessionSecrets';
import { sendHookBytes } from '../../helpers/hookServer';
import { waitFor } from '../../helpers/waitFor';
import { startHookRig, type HookRig } from '../../helpers/hookRig';

const FAKE = join(__dirname, '..', '..', 'fakes', 'fake-agent.mjs');

interface Agent extends AgentStatusConfig {
  hooks: HooksDeclaration;
}

const claude: Agent = {
  agentId: 'claude',
  titleStatus: { idle: ['^✳ '], working: ['^[^\\sA-Za-z0-9✳] '] },
  hooks: {
    type: 'json',
    file: '~/.claude/settings.json',
    dialect: 'claude',
    conversation: 'session_id',
    events: [
      { on: 'SessionStart', state: 'idle' },
      { on: 'UserPromptSubmit', state: 'working' },
      { on: 'PreToolUse', state: 'working' },
      { on: 'PostToolUse', state: 'working' },
      { on: 'PermissionRequest', state: 'attention' },
      { on: 'Stop', state: 'done' },
    ],
  },
};
const cursor: Agent = {
  agentId: 'cursor',
  hooks: {
    type: 'json',
    file: '~/.cursor/hooks.json',
    dialect: 'cursor',
    conversation: 'conversation_id',
    events: [
      { on: 'beforeSubmitPrompt', state: 'working' },
      { on: 'stop', state: 'done' },
    ],
  },
};
const copilot: Agent = {
  agentId: 'copilot',
  hooks: {
    type: 'json',
    dir: '~/.copilot/hooks',
    dialect: 'copilot',
    conversation: 'sessionId',
    events: [
      { on: 'sessionStart', state: 'idle' },
      { on: 'userPromptSubmitted', state: 'working' },
      { on: 'agentStop', state: 'done' },
    ],
  },
};

let home: string;
let server: HookServer;
let tracker: StatusTracker;
let secrets: SessionSecrets;
const sessions: Session[] = [];

let rig: HookRig;

beforeEach(async () => {
  rig = await startHookRig('termio-live-');
  ({ home, tracker, secrets, server } = rig);
});

afterEach(async () => {
  for (const s of sessions.splice(0)) s.dispose();
  await rig.close();
});

function start(agent: Agent, opts: { install?: boolean } = {}) {
  if (opts.install !== false) {
    const r = installAgentHooks(agent as AgentHooks, { paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), home, reporter: defaultReporterLocation() });
    expect(r.error).toBeUndefined();
  }
  const minted = secrets.mint();
  const session = Session.spawn({
    id: minted.id,
    argv: [process.execPath, FAKE, agent.hooks.dialect],
    cwd: home,
    env: { HOME: home, TERMIO_HOME: join(home, '.termio'), ...server.sessionEnv(), ...minted.env },
  });
  if (!(session instanceof Session)) throw new Error(session.message);
  sessions.push(session);
  const changes: SessionStatus[] = [];
  const conversations: ConversationChange[] = [];
  tracker.onStateChange((c) => c.sessionId === session.id && changes.push(c.status));
  tracker.onConversation((c) => c.sessionId === session.id && conversations.push(c));
  tracker.track(session, agent);
  return { session, changes, conversations, state: () => tracker.status(session.id)?.state };
}

describe('live status with a fake Claude', () => {
  it('SessionStart binds the conversation; a turn goes working → done; looking makes it idle', async () => {
    const a = start(claude);
    const bound = await waitFor(() => a.conversations[0], { what: 'SessionStart to bind a conversation' });
    expect(bound.previous).toBeNull();
    expect(bound.transcriptPath).toContain(bound.conversationId);
    await waitFor(() => a.session.title === '✳ Claude Code', { what: 'the ✳ title' });
    a.session.write('fix the tests\r');
    await waitFor(() => a.state() === 'done', { what: 'done after the turn' });
    expect(a.changes.map((c) => c.state)).toEqual(['working', 'done']);
    expect(tracker.status(a.session.id)!.why).toMatchObject({ channel: 'hooks', event: 'Stop' });
    tracker.setFocus(a.session.id, true);
    expect(a.state()).toBe('idle');
  });

  it('a permission prompt is attention until answered', async () => {
    const a = start(claude);
    await waitFor(() => a.conversations.length === 1, { what: 'SessionStart' });
    a.session.write('ask before running tests\r');
    await waitFor(() => a.state() === 'attention', { what: 'attention' });
    a.session.write('y\r');
    await waitFor(() => a.state() === 'done', { what: 'done after answering' });
    expect(a.changes.map((c) => c.state)).toEqual(['working', 'attention', 'working', 'done']);
  });

  it('/clear rotates the conversation id and the session rebinds', async () => {
    const a = start(claude);
    const first = await waitFor(() => a.conversations[0], { what: 'first binding' });
    a.session.write('/clear\r');
    const second = await waitFor(() => a.conversations[1], { what: 'the rebind' });
    expect(second).toMatchObject({ previous: first.conversationId });
    expect(second.conversationId).not.toBe(first.conversationId);
  });

  it('without hooks installed the title still tells the state', async () => {
    const a = start(claude, { install: false });
    await waitFor(() => a.session.title === '✳ Claude Code', { what: 'the title' });
    a.session.write('go\r');
    await waitFor(() => a.state() === 'done', { what: 'done from the title flip' });
    expect(tracker.status(a.session.id)!.why).toMatchObject({ channel: 'titleStatus', rule: '^✳ ' });
    expect(server.stats.accepted).toBe(0);
  });

  it('exit: never working afterwards', async () => {
    const a = start(claude);
    await waitFor(() => a.conversations.length === 1, { what: 'SessionStart' });
    a.session.write('/exit\r');
    await waitFor(() => a.session.exited, { what: 'exit' });
    await waitFor(() => a.state() === 'done', { what: 'done after exit' });
    expect(tracker.status(a.session.id)!.why).toMatchObject({ channel: 'exit' });
  });
});

describe('live status with other dialects', () => {
  it('cursor: flat hooks.json with conversation_id', async () => {
    const a = start(cursor);
    expect(JSON.parse(readFileSync(join(home, '.cursor', 'hooks.json'), 'utf8')).version).toBe(1);
    await waitFor(() => a.session.screenLines().some((l) => l.includes('ready')), { what: 'the prompt' });
    a.session.write('hello\r');
    await waitFor(() => a.state() === 'done', { what: 'done' });
    expect(a.conversations).toHaveLength(1);
  });

  it('copilot: our own file in ~/.copilot/hooks, camelCase payload', async () => {
    const a = start(copilot);
    const bound = await waitFor(() => a.conversations[0], { what: 'sessionStart' });
    expect(bound.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    a.session.write('hello\r');
    await waitFor(() => a.state() === 'done', { what: 'done' });
  });
});

describe('reports that must not count', () => {
  /** 10,200 socket connections take a few seconds alone and many times that on two cores the
   *  rest of the suite shares; the bound only stops a hung server. */
  const FLOOD_TIMEOUT_MS = 180_000;
  it(
    '10,200 malformed, oversized, wrong-session and wrong-secret reports leave the state untouched',
    async () => {
      const a = start(claude);
      await waitFor(() => a.conversations.length === 1, { what: 'SessionStart' });
      const before = tracker.status(a.session.id);
      const good = {
        v: 2,
        session: a.session.id,
        secret: secrets.secretOf(a.session.id),
        agent: 'claude',
        state: 'working',
        event: 'PreToolUse',
        payload: '{}',
        truncated: false,
        parents: [],
      };
      const bad = [
        'garbage\n',
        `${JSON.stringify({ ...good, session: 'not-a-session' })}\n`,
        `${JSON.stringify({ ...good, state: 'nope' })}\n`,
        `${JSON.stringify({ ...good, agent: 'codex' })}\n`, // right session, wrong agent: ignored by the tracker
        `${JSON.stringify({ ...good, payload: 'x'.repeat(70_000) })}\n`,
        // The session's id is public (sessions list), its secret is not: one character off is refused.
        `${JSON.stringify({ ...good, secret: `${good.secret!.slice(0, -1)}${good.secret!.endsWith('A') ? 'B' : 'A'}` })}\n`,
      ];
      const N = 10_200;
      let sent = 0;
      const parallel = 32;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (sent < N) {
            const frame = bad[sent++ % bad.length]!;
            await sendHookBytes(server.socketPath, frame);
          }
        }),
      );
      await waitFor(() => server.stats.malformed + server.stats.unknownSession + server.stats.badSecret + server.stats.accepted >= N, {
        what: 'all reports handled',
      });
      expect(server.stats.badSecret).toBe(N / bad.length);
      expect(tracker.status(a.session.id)).toBe(before);
      expect(tracker.ignoredReports).toBe(N / bad.length);
    },
    FLOOD_TIMEOUT_MS,
  );
});
