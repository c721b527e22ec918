// The questions asked before closing a worktree session: keep its worktree or remove it, and,
// when removing would lose uncommitted files or commits its base lacks, a second, explicit yes.
// Pure; the app opens them in the window's quick-open panel.
import type { PromptItem } from './sessionPrompts';

export function worktreeClosePrompt(branch: string): { title: string; items: PromptItem[]; hint: string } {
  return {
    title: 'CLOSE · IT WORKS IN A GIT WORKTREE',
    items: [
      { id: 'keep', label: 'Close and keep the worktree', detail: `the folder and the branch ${branch} stay (termio worktrees list)` },
      { id: 'remove', label: 'Close and remove the worktree', detail: 'asks again if it holds uncommitted or unmerged work' },
    ],
    hint: 'Enter closes, Esc keeps the session open',
  };
}

/** The second question, with the host's account of what is at stake. */
export function worktreeForcePrompt(stake: string): { title: string; items: PromptItem[]; hint: string } {
  return {
    title: 'REMOVE THE WORKTREE ANYWAY?',
    items: [
      { id: 'keep', label: 'Keep the worktree (close the session only)', detail: stake },
      { id: 'force', label: 'Remove it anyway', detail: 'uncommitted files are lost; a branch with unmerged commits is kept' },
    ],
    hint: 'Enter chooses, Esc keeps the session open',
  };
}
