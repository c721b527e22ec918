// How a fan-out member reads, in the compare view and in `termio sessions fanout show`: its diff
// stat, its last test run, its state, and the group's heading. Pure text.
import type { FanoutGroup, FanoutMemberStatus } from '../../protocol/control';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "3 files  +42 −7", or why there is none. */
export function memberStatText(m: FanoutMemberStatus): string {
  if (!m.present) return 'worktree removed';
  if (m.files === null) return 'diff unreadable';
  if (m.files === 0) return 'no changes';
  return `${plural(m.files, 'file')}  +${m.added} −${m.removed}`;
}

/** The last test run: "tests passed", "tests failed (exit 1)", or '' when none ran. */
export function memberTestText(m: FanoutMemberStatus): string {
  if (!m.test) return '';
  if (m.test.passed) return 'tests passed';
  return `tests failed (${m.test.exitCode === null ? 'ended' : `exit ${m.test.exitCode}`})`;
}

/** The state as a word a person reads: attention is "needs you". */
export function memberStateText(m: FanoutMemberStatus): string {
  return m.state === 'attention' ? 'needs you' : m.state;
}

/** The merge button's words: a member with uncommitted files is committed first. */
export function mergeLabel(m: FanoutMemberStatus): string {
  return m.uncommitted > 0 ? 'Commit and Merge' : 'Merge';
}

/** The compare view's heading: the prompt's first line, and where the members started. */
export function fanoutHeading(g: FanoutGroup, shortPath: (p: string) => string): { title: string; detail: string } {
  const first = g.prompt.split('\n')[0]!.trim();
  const merged = g.merged ? `  ·  merged ${g.merged}` : '';
  return { title: `“${first}”`, detail: `${plural(g.members.length, 'agent')} from ${g.base} in ${shortPath(g.repo)}${merged}` };
}
