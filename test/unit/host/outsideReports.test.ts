// Hook reports from outside a tab's processes (Codex runs hooks in its app-server daemon, which
// outlives the TUI that started it and serves other tabs with that first tab's environment): one
// counts only when it carries the tab's secret (the hook server's check) and the conversation the
// tab is bound to; any other is not applied, and the why strip says so. Never credited elsewhere.
import { describe, expect, it } from 'vitest';
import { StatusTracker, type StatusSessionSource } from '../../../src/app/host/statusTracker';
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
      { on: 'UserPromptSubmit', state: 'working' as const },
      { on: 'Stop', state: 'done' as const },
    ],
  },
};

/** A report run by the daemon: its ancestors never reach the tab's root process. */
function fromDaemon(session: string, conversation: string, event = 'UserPromptSubmit', state: HookReport['state'] = 'working'): HookReport {
  return {
    v: HOOK_REPORT_VERSION,
    session,
    secret: 's',
    agent: 'codex',
    state,
    event,
    truncated: false,
    payload: JSON.stringify({ session_id: conversation, hook_event_name: event }),
    parents: [
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
    expect(tracker.lastIgnored('tab-a')).toMatchObject({ event: 'Stop', why: expect.stringContaining('outside') });
    expect(tracker.status('tab-b')).toMatchObject({ state: 'idle' });

    // A tab with no bound conversation cannot be matched: not applied, and said so.
    tracker.handleReport(fromDaemon('tab-b', 'conv-x'));
    expect(tracker.status('tab-b')).toMatchObject({ state: 'idle' });
    expect(tracker.lastIgnored('tab-b')).toMatchObject({ event: 'UserPromptSubmit' });
    tracker.dispose();
  });
});
