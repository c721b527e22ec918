import { describe, expect, it } from 'vitest';
import { aggregateState, buildSidebar, byUrgency, folderLabels, formatAge, formatDuration, type SessionSummary } from '../../src/app/present/sidebarModel';

const s = (id: string, cwd: string, state: SessionSummary['state'], createdAt: number, title = '', agentId: string | null = 'claude'): SessionSummary => ({
  id,
  agentId,
  cwd,
  title,
  state,
  stateSince: createdAt,
  createdAt,
});

describe('sidebar model', () => {
  it('aggregates attention over working over done over idle', () => {
    expect(aggregateState([])).toBe('idle');
    expect(aggregateState(['idle', 'done'])).toBe('done');
    expect(aggregateState(['done', 'working', 'idle'])).toBe('working');
    expect(aggregateState(['working', 'attention', 'done'])).toBe('attention');
  });

  it('labels folders by name and adds parents only to tell clashes apart', () => {
    const labels = folderLabels(['/home/u/work/api', '/home/u/play/api', '/home/u/web', '/home/u'], '/home/u');
    expect(Object.fromEntries(labels)).toEqual({
      '/home/u/work/api': 'work/api',
      '/home/u/play/api': 'play/api',
      '/home/u/web': 'web',
      '/home/u': '~',
    });
  });

  it('with needs-you-first, leads with the attention queue in each folder and the folders by their longest wait', () => {
    const wait = (x: SessionSummary, since: number | null): SessionSummary => ({ ...x, waitingSince: since });
    const sessions = [
      s('a', '/p/api', 'working', 1),
      wait(s('b', '/p/api', 'attention', 2), 50),
      s('c', '/p/web', 'idle', 3),
      wait(s('d', '/p/web', 'attention', 4), 20),
      wait(s('e', '/p/web', 'attention', 5), 10),
      // Handled: it still needs you, out of the queue, in its place.
      wait(s('f', '/p/web', 'attention', 6), null),
      { ...wait(s('g', '/p/api', 'attention', 7), 40), parentId: 'a' },
    ];
    const ids = (opts?: { needsYouFirst?: boolean }) =>
      buildSidebar(sessions, () => 'Claude Code', '/home/u', opts).map((g) => [g.label, g.rows.map((r) => `${r.id}${r.nested ? '>' : ''}`)]);
    expect(ids()).toEqual([
      ['api', ['a', 'g>', 'b']],
      ['web', ['c', 'd', 'e', 'f']],
    ]);
    expect(ids({ needsYouFirst: true })).toEqual([
      ['web', ['e', 'd', 'c', 'f']],
      ['api', ['g', 'b', 'a']],
    ]);
  });

  it('groups by folder in order of first session, titles falling back to the agent name', () => {
    const groups = buildSidebar(
      [s('c', '/p/web', 'idle', 3), s('a', '/p/api', 'working', 1, 'Fix login'), s('b', '/p/web', 'attention', 2, '', null)],
      (id) => (id === 'claude' ? 'Claude Code' : 'Terminal'),
      '/home/u',
    );
    expect(groups.map((g) => [g.label, g.rows.map((r) => [r.id, r.label, r.needsYou])])).toEqual([
      ['api', [['a', 'Fix login', false]]],
      [
        'web',
        [
          ['b', 'Terminal', true],
          ['c', 'Claude Code', false],
        ],
      ],
    ]);
  });

  it('nests a session under the one that started it, in the same folder', () => {
    const child = (id: string, parentId: string, at: number) => ({ ...s(id, '/p/web', 'working', at), parentId });
    const groups = buildSidebar(
      [
        s('p', '/p/web', 'idle', 1),
        s('q', '/p/web', 'idle', 2),
        child('c1', 'p', 3),
        child('c2', 'p', 4),
        { ...s('x', '/p/api', 'idle', 5), parentId: 'p' },
        child('orphan', 'gone', 6),
      ],
      () => 'Terminal',
      '/home/u',
    );
    expect(groups.map((g) => g.rows.map((r) => [r.id, r.nested]))).toEqual([
      [
        ['p', false],
        ['c1', true],
        ['c2', true],
        ['q', false],
        ['orphan', false],
      ],
      // Another folder: listed there, not nested (its parent is in another group).
      [['x', false]],
    ]);
  });

  it('orders by urgency, then longest waiting first', () => {
    const items = [s('1', '/', 'done', 5), s('2', '/', 'attention', 9), s('3', '/', 'working', 1), s('4', '/', 'attention', 3)];
    expect(byUrgency(items).map((i) => i.id)).toEqual(['4', '2', '3', '1']);
  });

  it('formats time in state compactly', () => {
    expect([0, 4_999, 42_000, 5 * 60_000, 2 * 3600_000, 3 * 86400_000].map(formatDuration)).toEqual(['now', 'now', '42s', '5m', '2h', '3d']);
    // The sidebar's coarser age: no seconds, so rows do not change text every second.
    expect([0, 42_000, 59_999, 60_000, 5 * 60_000, 2 * 3600_000].map(formatAge)).toEqual(['now', 'now', 'now', '1m', '5m', '2h']);
  });
});
