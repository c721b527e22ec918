// Hook reports from outside a tab's processes (Codex runs hooks in its app-server daemon, which
// outlives the TUI that started it and serves other tabs with that first tab's environment): one
// counts only when it carries the tab's secret (the hook server's check) and the conversation the
// tab is bound to; any other is not applied, and the why strip says so. Never credited elsewhere.
import { describe, expect, it } from 'vitest';
import { StatusTracker, type StatusSessionSource } from '../../../src/app/host/status/statusTracker';
import { Emitter } from '../../../src/protocol/events';
import { HOOK_REPORT_VERSION, type HookReport } from '../../../src/protocol/hookReport';

function source(id: string, pid: number): StatusSessionSource {
  return {
    id,
    pid,
    title: '',
    exited: null,
    onTitle: new Emitter<string>().event,
    onRender: new Emitter<void>().event,
    onExit: new Emitter<{ exitCode: number }>().event,
    screenLines: () => [],
  };
}

const codex = {
  agentId: 'codex',
  hooks: {
    dialect: 'codex',
    conversation: 'session_id',
    events: [
      { on: 'SessionStart', state: 'idle' as const },
      { on: 'UserPromptSubmit', state: 'working' as const },
      { on: 'Stop', state: 'done' as const },
    ],
  },
};

/** A report run by the daemon: its ancestors never reach the tab's root process, unless the
 *  daemon still runs under the first tab's agent (`parents` given: that tab's chain). */
function fromDaemon(
  session: string,
  conversation: string,
  event = 'UserPromptSubmit',
  state: HookReport['state'] = 'working',
  more: { parents?: HookReport['parents']; source?: string } = {},
): HookReport {
  return {
    v: HOOK_REPORT_VERSION,
    session,
    secret: 's',
    agent: 'codex',
    state,
    event,
    truncated: false,
    payload: JSON.stringify({ session_id: conversation, hook_event_name: event, ...(more.source ? { source: more.source } : {}) }),
    parents: more.parents ?? [
      [900, 'sh'],
      [901, 'codex'],
      [1, 'systemd'],
    ],
  };
}

describe('reports from outside the tab (a daemon)', () => {
  it('apply to the tab bound to their conversation; others are recorded as not applied, with the reason', () => {
    const tracker = new StatusTracker();
    tracker.track(source('tab-a', 100), codex, { conversationId: 'conv-a' });
    tracker.track(source('tab-b', 200), codex);

    tracker.handleReport(fromDaemon('tab-a', 'conv-a'));
    expect(tracker.status('tab-a')).toMatchObject({ state: 'working', why: { channel: 'hooks', event: 'UserPromptSubmit' } });

    // The daemon still carries tab A's environment while it serves tab B's conversation: naming
    // tab A with another conversation is not tab A's work, and tab B never gets it either.
    tracker.handleReport(fromDaemon('tab-a', 'conv-b', 'Stop', 'done'));
    expect(tracker.status('tab-a')).toMatchObject({ state: 'working' });
    expect(tracker.lastIgnored('tab-a')).toMatchObject({ event: 'Stop', why: expect.stringContaining('another conversation (conv-b)') });
    expect(tracker.status('tab-b')).toMatchObject({ state: 'idle' });

    // A tab with no bound conversation cannot be matched: not applied, and said so.
    tracker.handleReport(fromDaemon('tab-b', 'conv-x'));
    expect(tracker.status('tab-b')).toMatchObject({ state: 'idle' });
    expect(tracker.lastIgnored('tab-b')).toMatchObject({ event: 'UserPromptSubmit' });
    tracker.dispose();
  });
});

// The daemon as Codex 0.169 and 0.171 run it while its first tab lives: a child of that tab's
// agent, so its reports look like that tab's own, all naming that tab (its environment).
const insideA: HookReport['parents'] = [
  [910, 'codex'],
  [101, 'codex'],
  [100, 'node'],
  [1, 'systemd'],
];
const viaA = (conversation: string, event: string, state: HookReport['state'], source?: string) =>
  fromDaemon('tab-a', conversation, event, state, { parents: insideA, ...(source ? { source } : {}) });

describe("reports of other tabs' conversations run under the first tab (Codex's shared daemon)", () => {
  it('go to the tab of their conversation: a fresh start binds the one tab still waiting', () => {
    const tracker = new StatusTracker();
    const bound: string[] = [];
    tracker.onConversation((c) => bound.push(`${c.sessionId} ${c.conversationId}`));
    tracker.track(source('tab-a', 100), codex);
    tracker.handleReport(viaA('conv-a', 'SessionStart', 'idle', 'startup'));
    tracker.handleReport(viaA('conv-a', 'UserPromptSubmit', 'working'));
    expect(tracker.status('tab-a')).toMatchObject({ state: 'working' });

    tracker.track(source('tab-b', 200), codex);
    tracker.handleReport(viaA('conv-b', 'SessionStart', 'idle', 'startup'));
    tracker.handleReport(viaA('conv-b', 'UserPromptSubmit', 'working'));
    expect(tracker.status('tab-b')).toMatchObject({ state: 'working', why: { channel: 'hooks', event: 'UserPromptSubmit' } });
    tracker.handleReport(viaA('conv-b', 'Stop', 'done'));
    expect(tracker.status('tab-b')).toMatchObject({ state: 'done', why: { channel: 'hooks', event: 'Stop' } });
    // Tab A kept its own turn and its own conversation.
    expect(tracker.status('tab-a')).toMatchObject({ state: 'working', why: { event: 'UserPromptSubmit' } });
    expect(bound).toEqual(['tab-a conv-a', 'tab-b conv-b']);

    // A /new in tab A (a start that is not fresh) with no tab waiting is tab A's rotation.
    tracker.handleReport(viaA('conv-a2', 'SessionStart', 'idle', 'clear'));
    expect(bound).toEqual(['tab-a conv-a', 'tab-b conv-b', 'tab-a conv-a2']);
    tracker.dispose();
  });

  it('are credited to no tab when whose they are cannot be told, and the named tab says so', () => {
    const tracker = new StatusTracker();
    tracker.track(source('tab-a', 100), codex, { conversationId: 'conv-a' });
    // A Codex started outside Termio that the daemon serves: a fresh start no tab waits for.
    tracker.handleReport(viaA('conv-x', 'SessionStart', 'idle', 'startup'));
    expect(tracker.lastIgnored('tab-a')).toMatchObject({ event: 'SessionStart', why: expect.stringContaining('no other tab') });
    // Nor its turn, though no tab waits that could own it.
    tracker.handleReport(viaA('conv-x', 'UserPromptSubmit', 'working'));
    expect(tracker.status('tab-a')).toMatchObject({ state: 'idle' });
    expect(tracker.lastIgnored('tab-a')).toMatchObject({ event: 'UserPromptSubmit', why: expect.stringContaining('could not be tied to a tab') });

    // Two tabs waiting: a fresh start could be either's.
    tracker.track(source('tab-b', 200), codex);
    tracker.track(source('tab-c', 300), codex);
    tracker.handleReport(viaA('conv-y', 'SessionStart', 'idle', 'startup'));
    tracker.handleReport(viaA('conv-y', 'UserPromptSubmit', 'working'));
    for (const tab of ['tab-a', 'tab-b', 'tab-c']) expect(tracker.status(tab)).toMatchObject({ state: 'idle' });
    expect(tracker.lastIgnored('tab-a')).toMatchObject({ event: 'UserPromptSubmit', why: expect.stringContaining('could not be tied to a tab') });
    // A report of an unknown conversation while tabs wait: a rotation in tab A, or theirs.
    tracker.handleReport(viaA('conv-z', 'Stop', 'done'));
    expect(tracker.status('tab-a')).toMatchObject({ state: 'idle' });
    expect(tracker.lastIgnored('tab-a')).toMatchObject({ event: 'Stop', why: expect.stringContaining('cannot be told') });
    tracker.dispose();
  });
});
