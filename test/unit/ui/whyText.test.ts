import { describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../../src/protocol/status/sessionState';
import { whyText } from '../../../src/app/present/whyText';

const NOW = 1_700_000_000_000;
const status = (over: Partial<SessionStatus> & Pick<SessionStatus, 'why'>): SessionStatus => ({ state: 'working', since: NOW, health: [], ...over });

describe('why strip text', () => {
  it('names the channel, the event and how long ago', () => {
    const st = status({ why: { channel: 'hooks', event: 'PreToolUse', at: NOW - 3_000 } });
    expect(whyText({ state: 'working', stateWhy: '', status: st, now: NOW })).toBe('Working — hook PreToolUse, just now');
    expect(whyText({ state: 'working', stateWhy: '', status: st, now: NOW + 40_000 })).toBe('Working — hook PreToolUse, 43s ago');
  });

  it('shows the rule that matched for title and screen channels', () => {
    const st = status({ state: 'attention', why: { channel: 'status', rule: 'Do you want', at: NOW - 120_000 } });
    expect(whyText({ state: 'attention', stateWhy: '', status: st, now: NOW })).toBe('Needs you — screen /Do you want/, 2m ago');
  });

  it('says what a working or waiting agent is on, and only then', () => {
    const working = status({ why: { channel: 'hooks', event: 'PreToolUse', at: NOW - 10_000 } });
    expect(whyText({ state: 'working', stateWhy: '', status: working, tool: 'Bash', now: NOW })).toBe('Working — waiting on Bash — hook PreToolUse, 10s ago');
    const done = status({ state: 'done', why: { channel: 'hooks', event: 'Stop', at: NOW - 10_000 } });
    expect(whyText({ state: 'done', stateWhy: '', status: done, tool: 'Bash', now: NOW })).toBe('Done — hook Stop, 10s ago');
  });

  it('names no event for a look, and nothing yet for a fresh session', () => {
    expect(
      whyText({ state: 'idle', stateWhy: '', status: status({ state: 'idle', why: { channel: 'focus', event: 'user looked', at: NOW - 6_000 } }), now: NOW }),
    ).toBe('Idle — you looked at it, 6s ago');
    expect(whyText({ state: 'idle', stateWhy: '', status: status({ state: 'idle', why: { channel: 'start', at: NOW } }), now: NOW })).toBe(
      'Idle — nothing reported yet',
    );
  });

  it('adds each health note on its own line', () => {
    const st = status({
      why: { channel: 'start', at: NOW },
      health: [{ code: 'stalled', message: 'stalled: working with no output and no hook report for 130s', since: NOW }],
    });
    expect(whyText({ state: 'working', stateWhy: '', status: st, now: NOW })).toBe(
      'Working — nothing reported yet\n⚠ stalled: working with no output and no hook report for 130s',
    );
  });

  it('falls back to the registry reason for an untracked session', () => {
    expect(whyText({ state: 'done', stateWhy: 'exit 0', now: NOW })).toBe('Done — exit 0');
    expect(whyText({ state: 'idle', stateWhy: '', now: NOW })).toBe('Idle — no status channel');
  });

  it('says which failure stopped a session before the channel that reported it', () => {
    const st = status({
      state: 'attention',
      why: { channel: 'hooks', event: 'StopFailure', at: NOW - 130_000, failure: { kind: 'auth', reason: 'API error 401: log in again' } },
    });
    expect(whyText({ state: 'attention', stateWhy: '', status: st, tool: 'Bash', now: NOW })).toBe(
      'Stopped — API error 401: log in again — hook StopFailure, 2m ago',
    );
    const exit = status({ state: 'attention', why: { channel: 'exit', event: 'exit 1', at: NOW, failure: { kind: 'exit', reason: 'exited with code 1' } } });
    expect(whyText({ state: 'attention', stateWhy: '', status: exit, now: NOW })).toBe('Stopped — exited with code 1 — process exit 1, just now');
  });
});
