// How a fan-out member reads in the compare view and `termio sessions fanout show`: the diff stat
// (or why there is none), the last test run, the state, the merge button's words, the heading.
import { describe, expect, it } from 'vitest';
import { fanoutHeading, memberStateText, memberStatText, memberTestText, mergeLabel } from '../../../src/app/present/fanoutText';
import type { FanoutGroup, FanoutMemberStatus } from '../../../src/protocol/control';

const member = (over: Partial<FanoutMemberStatus> = {}): FanoutMemberStatus => ({
  agent: 'claude',
  sessionId: 'a1b2c3d4',
  branch: 'claude/greet',
  path: '/r.worktrees/claude/greet',
  test: null,
  state: 'idle',
  present: true,
  files: 3,
  added: 42,
  removed: 7,
  uncommitted: 0,
  ...over,
});
const run = (passed: boolean, exitCode: number | null) => ({ command: 'npm test', passed, exitCode, output: '', at: '2026-05-01T12:00:00.000Z' });

describe('fan-out member text', () => {
  it('says the diff stat, or why there is none', () => {
    expect(memberStatText(member())).toBe('3 files  +42 −7');
    expect(memberStatText(member({ files: 1, added: 1, removed: 0 }))).toBe('1 file  +1 −0');
    expect(memberStatText(member({ files: 0 }))).toBe('no changes');
    expect(memberStatText(member({ files: null }))).toBe('diff unreadable');
    expect(memberStatText(member({ present: false, files: null }))).toBe('worktree removed');
  });

  it('says the last test run, the state and what Merge does', () => {
    expect(memberTestText(member())).toBe('');
    expect(memberTestText(member({ test: run(true, 0) }))).toBe('tests passed');
    expect(memberTestText(member({ test: run(false, 2) }))).toBe('tests failed (exit 2)');
    expect(memberTestText(member({ test: run(false, null) }))).toBe('tests failed (ended)');
    expect(memberStateText(member({ state: 'attention' }))).toBe('needs you');
    expect(memberStateText(member({ state: 'closed' }))).toBe('closed');
    expect(mergeLabel(member())).toBe('Merge');
    expect(mergeLabel(member({ uncommitted: 2 }))).toBe('Commit and Merge');
  });

  it('heads the view with the prompt’s first line and where the members started', () => {
    const g: FanoutGroup = {
      id: 'f00d',
      repo: '/home/me/greeter',
      base: 'main',
      prompt: 'Greet politely\nand say goodbye',
      createdAt: '2026-05-01T12:00:00.000Z',
      members: [member(), member({ agent: 'codex', branch: 'codex/greet' })].map(({ agent, sessionId, branch, path, test }) => ({
        agent,
        sessionId,
        branch,
        path,
        test,
      })),
      merged: null,
    };
    const home = (p: string) => p.replace('/home/me', '~');
    expect(fanoutHeading(g, home)).toEqual({ title: '“Greet politely”', detail: '2 agents from main in ~/greeter' });
    expect(fanoutHeading({ ...g, merged: 'codex/greet' }, home).detail).toBe('2 agents from main in ~/greeter  ·  merged codex/greet');
  });
});
