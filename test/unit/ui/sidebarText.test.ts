import { describe, expect, it } from 'vitest';
import type { SidebarRow } from '../../../src/app/present/sidebarModel';
import { sidebarDetail, sidebarHeading, sidebarRowTip } from '../../../src/app/present/sidebarText';

const NOW = 1_700_000_000_000;
const row = (over: Partial<SidebarRow> = {}): SidebarRow => ({
  id: 'a',
  agentId: 'claude',
  cwd: '/home/u/api',
  title: '',
  state: 'working',
  stateSince: NOW - 5 * 60_000,
  createdAt: NOW,
  agentName: 'Claude Code',
  label: 'Fix login',
  needsYou: false,
  nested: false,
  ...over,
});

describe('sidebar row text', () => {
  it('reads agent, state and age, with no seconds', () => {
    expect(sidebarDetail(row(), NOW)).toBe('Claude Code · Working 5m');
    expect(sidebarDetail(row({ stateSince: NOW - 42_000 }), NOW)).toBe('Claude Code · Working now');
  });

  it('marks a started session, progress while working, a stall and an exit', () => {
    expect(sidebarDetail(row({ parentId: 'p', progress: 40, stalled: true }), NOW)).toBe('↳ Claude Code · Working 40% 5m · stalled');
    // Progress shows only while the session works.
    expect(sidebarDetail(row({ state: 'done', progress: 40 }), NOW)).toBe('Claude Code · Done 5m');
    expect(sidebarDetail(row({ state: 'idle', exited: { exitCode: 2 } }), NOW)).toBe('Claude Code · Idle 5m · exited 2');
    expect(sidebarDetail(row({ state: 'idle', exited: { exitCode: 0, signal: 9 } }), NOW)).toBe('Claude Code · Idle 5m · exited by signal 9');
  });

  it('puts title, folder and state in the tooltip, and the whole path on a heading', () => {
    expect(sidebarRowTip(row({ state: 'attention' }))).toBe('Fix login\n/home/u/api\nNeeds you');
    expect(sidebarHeading({ folder: '/home/u/work/api', label: 'work/api', rows: [] })).toEqual({ text: 'WORK/API', tip: '/home/u/work/api' });
  });

  it('shows the failure a session stopped on instead of its state, in the detail and the tooltip', () => {
    const failed = row({ state: 'attention', needsYou: true, failure: 'stopped: usage limit, resets 14:00' });
    expect(sidebarDetail(failed, NOW)).toBe('Claude Code · stopped: usage limit, resets 14:00');
    expect(sidebarDetail({ ...failed, parentId: 'p' }, NOW)).toBe('↳ Claude Code · stopped: usage limit, resets 14:00');
    expect(sidebarRowTip(failed)).toBe('Fix login\n/home/u/api\nStopped — stopped: usage limit, resets 14:00');
    // A worktree session names its branch, as it does in every state.
    const wt = { ...failed, worktree: { branch: 'fix/login', repo: '/home/u/api', changed: 2 } };
    expect(sidebarDetail(wt, NOW)).toBe('2 changed · ⎇ fix/login · stopped: usage limit, resets 14:00');
  });
});
