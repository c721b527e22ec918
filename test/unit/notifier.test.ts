import { describe, expect, it } from 'vitest';
import { BURST_WINDOW_MS, COALESCE_MS, NotificationPolicy, waitingFor, type NotifyPrefs, type SessionContext } from '../../src/app/services/notifier';

const prefs: NotifyPrefs = { attention: true, done: true, doneMinSeconds: 10, terminal: true, sound: true };
const away: SessionContext = { agentName: 'Claude Code', folderLabel: 'api', userLooking: false };
const looking: SessionContext = { ...away, userLooking: true };

describe('notification policy', () => {
  it('notifies attention with agent, project and what it waits for', () => {
    const p = new NotificationPolicy(prefs);
    expect(p.stateChanged('s1', 'working', 'attention', 1000, { ...away, detail: 'Permission to run Bash' })).toEqual({
      sessionId: 's1',
      kind: 'attention',
      title: 'Claude Code needs you',
      message: 'api · Permission to run Bash',
    });
  });

  it('names the failure a session stopped on in the title', () => {
    const p = new NotificationPolicy(prefs);
    expect(p.stateChanged('s1', 'working', 'attention', 1000, { ...away, failure: 'stopped: usage limit, resets 14:00', detail: 'Asks to run Bash' })).toEqual({
      sessionId: 's1',
      kind: 'attention',
      title: 'Claude Code stopped: usage limit, resets 14:00',
      message: 'api',
    });
    expect(p.stateChanged('s2', 'working', 'attention', 1000, { ...away, failure: 'API error 401: log in again' })).toMatchObject({
      title: 'Claude Code stopped: API error 401: log in again',
    });
    expect(p.stateChanged('s3', 'idle', 'attention', 1000, { ...away, failure: 'exited with code 1: Unable to connect' })).toMatchObject({
      title: 'Claude Code exited with code 1: Unable to connect',
    });
    expect(new NotificationPolicy(prefs).stateChanged('s1', 'working', 'attention', 1000, { ...looking, failure: 'stopped: usage limit' })).toBeNull();
  });

  it('says nothing of a done its failure report already replaced, and still ends the turn', () => {
    const p = new NotificationPolicy(prefs);
    p.stateChanged('s1', 'idle', 'working', 0, away);
    expect(p.stateChanged('s1', 'working', 'done', 30_000, { ...away, superseded: true })).toBeNull();
    // The next turn is timed from its own start.
    p.stateChanged('s1', 'done', 'working', 40_000, away);
    expect(p.stateChanged('s1', 'working', 'done', 60_000, away)).toMatchObject({ kind: 'done', message: 'api · after 20s' });
  });

  it('stays quiet when the user is looking at that session, or the kind is off', () => {
    expect(new NotificationPolicy(prefs).stateChanged('s1', 'working', 'attention', 1000, looking)).toBeNull();
    expect(new NotificationPolicy({ ...prefs, attention: false }).stateChanged('s1', 'working', 'attention', 1000, away)).toBeNull();
  });

  it('notifies done only after a turn of at least doneMinSeconds', () => {
    const p = new NotificationPolicy(prefs);
    p.stateChanged('s1', 'idle', 'working', 0, away);
    expect(p.stateChanged('s1', 'working', 'done', 9_000, away)).toBeNull();
    p.stateChanged('s1', 'done', 'working', 20_000, away);
    expect(p.stateChanged('s1', 'working', 'done', 32_000, away)).toMatchObject({ kind: 'done', title: 'Claude Code finished', message: 'api · after 12s' });
  });

  it('coalesces a session flapping in and out of attention', () => {
    const p = new NotificationPolicy(prefs);
    expect(p.stateChanged('s1', 'working', 'attention', 0, away)).not.toBeNull();
    p.stateChanged('s1', 'attention', 'working', 500, away);
    expect(p.stateChanged('s1', 'working', 'attention', 1000, away)).toBeNull();
    p.stateChanged('s1', 'attention', 'working', COALESCE_MS, away);
    expect(p.stateChanged('s1', 'working', 'attention', COALESCE_MS + 1, away)).not.toBeNull();
  });

  it('folds a burst into one summary instead of a flood', () => {
    const p = new NotificationPolicy(prefs);
    const sent = ['a', 'b', 'c', 'd', 'e'].map((id, i) => p.stateChanged(id, 'working', 'attention', i * 10, away));
    expect(sent.filter(Boolean)).toHaveLength(3);
    expect(p.flush(100)).toBeNull(); // still inside the burst window
    expect(p.nextFlushAt()).toBe(BURST_WINDOW_MS);
    expect(p.flush(BURST_WINDOW_MS + 20)).toMatchObject({ kind: 'summary', title: '2 more agents need you', sessionId: null });
  });

  it('passes programs’ own notifications through unless the user is looking', () => {
    const p = new NotificationPolicy(prefs);
    expect(p.terminalNotification('s1', 'Build', 'finished', 0, away)).toMatchObject({ kind: 'terminal', title: 'Build', message: 'finished' });
    expect(p.terminalNotification('s2', 'Build', 'finished', 0, looking)).toBeNull();
  });

  it('coalesces a program repeating one message, not its different messages', () => {
    const p = new NotificationPolicy(prefs);
    expect(p.terminalNotification('s1', 'Build', 'finished', 0, away)).not.toBeNull();
    expect(p.terminalNotification('s1', 'Build', 'finished', 100, away)).toBeNull();
    expect(p.terminalNotification('s1', 'Deploy', 'all green', 200, away)).toMatchObject({ title: 'Deploy', message: 'all green' });
    expect(p.terminalNotification('s1', 'Build', 'finished', COALESCE_MS + 1, away)).not.toBeNull();
  });
});

describe('what an agent waits for', () => {
  it('names the tool, or the question or plan it asks about', () => {
    expect(waitingFor('Bash')).toBe('Asks to run Bash');
    expect(waitingFor('AskUserQuestion')).toBe('Has a question for you');
    expect(waitingFor('ExitPlanMode')).toBe('Wants you to approve a plan');
  });
});
