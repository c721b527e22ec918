// The attention queue rule (src/protocol/attentionQueue.ts) every consumer orders waiting sessions by, and its age wording.
import { describe, expect, it } from 'vitest';
import { attentionQueue, nextSession, queueFirst, waitingAge, waitingSinceMs, type QueueFacts } from '../../src/protocol/attentionQueue';

const s = (id: string, state: QueueFacts['state'], waitingSince: number | null, stateSince = 0): QueueFacts => ({ id, state, waitingSince, stateSince });

describe('attention queue', () => {
  it('orders the waiting sessions oldest first and leaves out handled and other sessions', () => {
    const sessions = [s('c', 'attention', 300), s('w', 'working', null), s('a', 'attention', 100), s('h', 'attention', null), s('b', 'attention', 200)];
    expect(attentionQueue(sessions).map((x) => x.id)).toEqual(['a', 'b', 'c']);
  });

  it('breaks a tie of the same moment by id, whatever the input order', () => {
    expect(attentionQueue([s('y', 'attention', 5), s('x', 'attention', 5)]).map((x) => x.id)).toEqual(['x', 'y']);
    expect(attentionQueue([s('x', 'attention', 5), s('y', 'attention', 5)]).map((x) => x.id)).toEqual(['x', 'y']);
  });

  it('next is the head of the queue, else the most recently done session, else nothing', () => {
    const done = [s('d1', 'done', null, 10), s('d2', 'done', null, 30), s('i', 'idle', null, 40)];
    expect(nextSession([...done, s('a', 'attention', 50), s('b', 'attention', 20)])).toEqual({ session: s('b', 'attention', 20), reason: 'waiting' });
    expect(nextSession(done)).toEqual({ session: s('d2', 'done', null, 30), reason: 'done' });
    // A handled session that still shows attention is not where next goes.
    expect(nextSession([s('h', 'attention', null, 5), s('i', 'idle', null)])).toBeNull();
  });

  it('next after the session looked at walks the queue, round to the head', () => {
    const sessions = [s('a', 'attention', 1), s('b', 'attention', 2), s('c', 'attention', 3), s('d', 'done', null, 9)];
    expect(nextSession(sessions, 'a')?.session.id).toBe('b');
    expect(nextSession(sessions, 'c')?.session.id).toBe('a');
    expect(nextSession(sessions, 'd')?.session.id).toBe('a');
    expect(nextSession([s('a', 'attention', 1)], 'a')?.session.id).toBe('a');
    expect(nextSession([s('d', 'done', null, 9)], 'd')).toEqual({ session: s('d', 'done', null, 9), reason: 'done' });
  });

  it('leaves out a session whose machine is away, waiting or done', () => {
    const away = { ...s('a', 'attention', 1), reachable: false };
    const awayDone = { ...s('d', 'done', null, 9), reachable: false };
    expect(attentionQueue([away, s('b', 'attention', 2)]).map((x) => x.id)).toEqual(['b']);
    expect(nextSession([away, awayDone, s('e', 'done', null, 5)])?.session.id).toBe('e');
  });

  it('queueFirst puts the queue in front and keeps the order of the rest', () => {
    const sessions = [s('w', 'working', null), s('b', 'attention', 2), s('h', 'attention', null), s('a', 'attention', 1), s('i', 'idle', null)];
    expect(queueFirst(sessions).map((x) => x.id)).toEqual(['a', 'b', 'w', 'h', 'i']);
  });
});

describe('waitingAge', () => {
  it.each([
    [0, 'waiting 0 s'],
    [-5_000, 'waiting 0 s'],
    [42_900, 'waiting 42 s'],
    [60_000, 'waiting 1 min'],
    [12 * 60_000 + 59_000, 'waiting 12 min'],
    [60 * 60_000, 'waiting 1 h'],
    [(2 * 60 + 5) * 60_000, 'waiting 2 h 5 min'],
    [24 * 3600_000, 'waiting 1 day'],
    [3 * 24 * 3600_000 + 5, 'waiting 3 days'],
  ])('%i ms reads "%s"', (ms, text) => expect(waitingAge(ms)).toBe(text));
});

describe('waitingSinceMs', () => {
  it('reads the wire time, and for a host that sends none falls back to when attention began', () => {
    const since = '2026-01-02T03:04:05.000Z';
    expect(waitingSinceMs({ state: 'attention', stateSince: since, waitingSince: '2026-01-02T03:00:00.000Z' })).toBe(Date.parse('2026-01-02T03:00:00.000Z'));
    expect(waitingSinceMs({ state: 'attention', stateSince: since, waitingSince: null })).toBeNull();
    expect(waitingSinceMs({ state: 'attention', stateSince: since })).toBe(Date.parse(since));
    expect(waitingSinceMs({ state: 'working', stateSince: since })).toBeNull();
  });
});
