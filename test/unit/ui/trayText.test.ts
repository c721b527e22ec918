import { describe, expect, it } from 'vitest';
import { trayAgents, trayItems, trayItemText, trayMenu, trayTooltip, type TrayItem } from '../../../src/app/ui/presenters/trayText';

const NOW = 1_700_000_000_000;
const item = (id: string, state: TrayItem['state'], since: number, over: Partial<TrayItem> = {}): TrayItem => ({
  id,
  label: `Task ${id}`,
  folderLabel: 'api',
  agentName: 'Claude Code',
  state,
  stateSince: NOW - since,
  waitingSince: state === 'attention' ? NOW - since : null,
  ...over,
});

describe('tray text', () => {
  it('summarises counts in the tooltip', () => {
    expect(trayTooltip({ attention: 1, working: 2, done: 0, idle: 3 })).toBe('Termio — 1 needs you, 2 working, 3 idle');
    expect(trayTooltip({ attention: 2, working: 0, done: 1, idle: 0 })).toBe('Termio — 2 need you, 1 done');
    expect(trayTooltip({ attention: 0, working: 0, done: 0, idle: 0 })).toBe('Termio — no sessions');
  });

  it('names the agent once per session line', () => {
    expect(trayItemText(item('1', 'working', 42_000), NOW)).toBe('Task 1 (Claude Code) — api   Working 42s');
    expect(trayItemText(item('1', 'done', 0, { label: 'Claude Code' }), NOW)).toBe('Claude Code — api   Done now');
  });

  it('labels folders as the sidebar does and falls back to the agent name', () => {
    const sessions = [
      { id: 'a', agentId: 'claude', cwd: '/home/u/work/api', title: '  ', state: 'idle' as const, stateSince: 1, waitingSince: null },
      { id: 'b', agentId: null, cwd: '/home/u/play/api', title: 'Deploy', state: 'working' as const, stateSince: 2, waitingSince: null },
    ];
    const items = trayItems(
      sessions,
      (id) => (id ? 'Claude Code' : 'Terminal'),
      (id) => (id ? '/icons/claude.svg' : undefined),
      '/home/u',
    );
    expect(items).toEqual([
      {
        id: 'a',
        label: 'Claude Code',
        folderLabel: 'work/api',
        agentName: 'Claude Code',
        state: 'idle',
        stateSince: 1,
        waitingSince: null,
        agentIcon: '/icons/claude.svg',
      },
      { id: 'b', label: 'Deploy', folderLabel: 'play/api', agentName: 'Terminal', state: 'working', stateSince: 2, waitingSince: null },
    ]);
  });

  it('lists sessions most urgent first, then the fixed entries', () => {
    const m = trayMenu(
      [item('1', 'idle', 5_000), item('2', 'attention', 6_000), item('3', 'attention', 60_000)],
      [
        { id: 'codex', name: 'Codex', unavailable: 'not installed' },
        { id: 'grok', name: 'Grok', unavailable: 'another program named grok' },
      ],
      NOW,
    );
    expect(m.sessions.map((s) => s.id)).toEqual(['3', '2', '1']);
    expect(m.empty).toBeNull();
    expect(m.newSession.agents).toEqual([
      { agentId: null, text: 'Terminal', enabled: true },
      { agentId: 'codex', text: 'Codex (not installed)', enabled: false },
      { agentId: 'grok', text: 'Grok (another program named grok)', enabled: false },
    ]);
    expect([m.newSession.title, m.show, m.history, m.usage, m.settings, m.quit, m.quitEnd]).toEqual([
      'New Session',
      'Show Termio',
      'History…',
      'Usage…',
      'Settings…',
      'Quit Termio',
      'Quit and End All Sessions',
    ]);
  });

  it('lists the attention queue first, longest waiting on top, with how long each has waited', () => {
    // 'h' was handled: it still shows attention, out of the queue, after it.
    const m = trayMenu(
      [
        item('w', 'working', 1_000),
        item('h', 'attention', 3_600_000, { waitingSince: null }),
        item('new', 'attention', 12 * 60_000 + 5_000),
        item('old', 'attention', 2 * 3_600_000, { failure: 'API error 401: log in again' }),
      ],
      [],
      NOW,
    );
    expect(m.sessions.map((s) => s.id)).toEqual(['old', 'new', 'h', 'w']);
    expect(m.sessions.map((s) => s.text.split('   ')[1])).toEqual([
      'Stopped: API error 401: log in again, waiting 2 h',
      'waiting 12 min',
      'Needs you 1h',
      'Working now',
    ]);
  });

  it('says when there are no sessions, and keys a menu by what it shows', () => {
    expect(trayMenu([], [], NOW).empty).toBe('No sessions');
    const a = trayMenu([item('1', 'working', 10_000)], [], NOW);
    // The same rounded time: same key; a new state or agent: a new key.
    expect(trayMenu([item('1', 'working', 10_400)], [], NOW).key).toBe(a.key);
    expect(trayMenu([item('1', 'done', 10_000)], [], NOW).key).not.toBe(a.key);
    expect(trayMenu([item('1', 'working', 10_000)], [{ id: 'x', name: 'X', unavailable: null }], NOW).key).not.toBe(a.key);
  });

  it('offers the enabled agents but the plain terminal, which the menu lists first on its own', () => {
    const unchecked = { state: 'unchecked' as const };
    const entries = [
      { id: 'terminal', installed: true, identity: unchecked, manifest: { id: 'terminal', name: 'Terminal' } },
      { id: 'claude', installed: true, identity: unchecked, iconFile: '/icons/claude.svg', manifest: { id: 'claude', name: 'Claude Code', command: 'claude' } },
      { id: 'codex', installed: false, identity: unchecked, manifest: { id: 'codex', name: 'Codex', command: 'codex' } },
      { id: 'grok', installed: false, identity: { state: 'other' as const, answer: '1.0.1' }, manifest: { id: 'grok', name: 'Grok', command: 'grok' } },
    ];
    // The same words the picker and Settings use for an agent that cannot start (unavailableNote).
    expect(trayAgents(entries, 'terminal')).toEqual([
      { id: 'claude', name: 'Claude Code', unavailable: null, icon: '/icons/claude.svg' },
      { id: 'codex', name: 'Codex', unavailable: 'not installed' },
      { id: 'grok', name: 'Grok', unavailable: 'another program named grok' },
    ]);
  });

  it('shows the failure a session stopped on, and marks it failed for its red dot', () => {
    const items = trayItems(
      [
        {
          id: 'a',
          agentId: 'claude',
          cwd: '/home/u/api',
          title: 'Fix login',
          state: 'attention',
          stateSince: NOW,
          waitingSince: null,
          status: { why: { failure: { reason: 'stopped: usage limit, resets 14:00' } } },
        },
        { id: 'b', agentId: 'claude', cwd: '/home/u/api', title: 'Docs', state: 'attention', stateSince: NOW, waitingSince: null, status: { why: {} } },
      ],
      () => 'Claude Code',
      () => undefined,
      '/home/u',
    );
    expect(items[0]).toMatchObject({ failure: 'stopped: usage limit, resets 14:00' });
    expect(items[1]!.failure).toBeUndefined();
    expect(trayItemText(items[0]!, NOW)).toBe('Fix login (Claude Code) — api   Stopped: usage limit, resets 14:00');
    expect(trayItemText(item('c', 'attention', 0, { failure: 'API error 401: log in again', waitingSince: null }), NOW)).toBe(
      'Task c (Claude Code) — api   Stopped: API error 401: log in again',
    );
    const menu = trayMenu(items, [], NOW);
    expect(menu.sessions.map((s) => s.failed ?? false)).toEqual([true, false]);
  });
});
