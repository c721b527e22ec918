// What the review does to a worktree: commit everything, merge into the base branch (fast-forward
// when it can, a merge commit otherwise), rebase on the base, and remove it. Each either finishes
// or leaves everything as it was: a merge is computed with `git merge-tree` before any ref moves,
// a conflicting rebase is aborted, and a removal with work at stake needs a second yes.
// Neither merge nor rebase starts while the user is in the middle of a rebase, merge or
// cherry-pick that touches either branch: finishing or aborting theirs would undo ours (or ours
// would throw theirs away), so the user finishes first.
import { rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { GitError, type Git } from './git';
import { Repo } from './repo';
import type { WorktreeRef } from './worktreeCreate';

/** Characters of a commit subject proposed from a prompt: git's customary 72-column limit. */
const SUBJECT_CHARS = 72;

export type ActionResult =
  | { ok: true; message: string }
  | { ok: false; code: 'conflict'; message: string; files: string[] }
  | { ok: false; code: 'refused'; message: string }
  | { ok: false; code: 'unsaved'; message: string; uncommitted: string[]; unmerged: number };

/** The commit message the review proposes: the first prompt's first line, cut at 72 characters. */
export function proposedMessage(prompt: string | null | undefined, fallback: string): string {
  const line =
    (prompt ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const text = line || fallback;
  return text.length <= SUBJECT_CHARS ? text : `${text.slice(0, SUBJECT_CHARS - 1).trimEnd()}…`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `git add --all` and one commit with the message. */
export async function commitAll(git: Git, wt: WorktreeRef, message: string): Promise<ActionResult> {
  const repo = new Repo(git, wt.repo);
  const pending = await repo.uncommitted(wt.path, { untracked: true });
  if (pending.length === 0) return { ok: false, code: 'refused', message: `nothing to commit in ${wt.path}` };
  if (!message.trim()) return { ok: false, code: 'refused', message: 'the commit message is empty' };
  await git.ok(['add', '--all', '--', '.'], { cwd: wt.path });
  const r = await git.run(['commit', '--quiet', '--no-verify', '-m', message], { cwd: wt.path });
  if (r.code !== 0) {
    // Leave the index as it was: the user staged nothing of this.
    await git.run(['reset', '--quiet'], { cwd: wt.path });
    return { ok: false, code: 'refused', message: `git commit failed: ${new GitError(['commit'], r).message}` };
  }
  return { ok: true, message: `committed ${plural(pending.length, 'file')} on ${wt.branch}` };
}

/** The refusal when a checkout is in the middle of an operation on the worktree or its branches. */
async function busyWith(repo: Repo, wt: WorktreeRef, action: string): Promise<ActionResult | null> {
  const ops = await repo.operationsInProgress();
  const op = ops.find((o) => o.path === wt.path || o.branch === wt.base || o.branch === wt.branch);
  if (!op) return null;
  const on = op.path === wt.path ? '' : ` on ${op.branch}`;
  return {
    ok: false,
    code: 'refused',
    message: `${op.path} is in the middle of ${op.what}${on}: finish it (--continue) or abort it (--abort) there before ${action}; nothing was changed`,
  };
}

/** Merges the worktree's branch into its base: the base's checkout (if any) must be clean. */
export async function mergeIntoBase(git: Git, wt: WorktreeRef): Promise<ActionResult> {
  const repo = new Repo(git, wt.repo);
  if (!(await repo.branchExists(wt.base)))
    return { ok: false, code: 'refused', message: `the base '${wt.base}' is not a local branch, so there is nothing to merge into` };
  const busy = await busyWith(repo, wt, 'merging');
  if (busy) return busy;
  const pending = await repo.uncommitted(wt.path, { untracked: true });
  if (pending.length > 0) return { ok: false, code: 'refused', message: `${wt.path} has ${plural(pending.length, 'uncommitted file')}: commit them first` };
  const holder = await repo.holderOf(wt.base);
  if (holder) {
    const dirty = await repo.uncommitted(holder, { untracked: false });
    if (dirty.length > 0)
      return {
        ok: false,
        code: 'refused',
        message: `${holder} (where ${wt.base} is checked out) has uncommitted changes: commit or stash them before merging`,
      };
  }
  const baseSha = (await git.ok(['rev-parse', '--verify', `refs/heads/${wt.base}`], { cwd: wt.repo })).trim();
  const branchSha = (await git.ok(['rev-parse', '--verify', `refs/heads/${wt.branch}`], { cwd: wt.repo })).trim();
  const mergeBase = (await git.ok(['merge-base', baseSha, branchSha], { cwd: wt.repo })).trim();
  if (mergeBase === branchSha) return { ok: false, code: 'refused', message: `${wt.base} already has everything on ${wt.branch}` };
  let target = branchSha;
  let how = 'fast-forward';
  if (mergeBase !== baseSha) {
    const tree = await git.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', baseSha, branchSha], { cwd: wt.repo });
    if (tree.code === 1) {
      const files = tree.stdout.split('\n').slice(1).filter(Boolean);
      return {
        ok: false,
        code: 'conflict',
        message: `merging ${wt.branch} into ${wt.base} conflicts in ${plural(files.length, 'file')}: ${files.join(', ')}; nothing was changed (rebase on ${wt.base} and resolve them in the worktree)`,
        files,
      };
    }
    if (tree.code !== 0) throw new GitError(['merge-tree'], tree);
    const treeSha = tree.stdout.split('\n')[0]!.trim();
    target = (
      await git.ok(['commit-tree', treeSha, '-p', baseSha, '-p', branchSha, '-m', `Merge branch '${wt.branch}' into ${wt.base}`], { cwd: wt.repo })
    ).trim();
    how = 'merge commit';
  }
  if (holder) await git.ok(['merge', '--ff-only', '--quiet', target], { cwd: holder });
  else await git.ok(['update-ref', `refs/heads/${wt.base}`, target, baseSha], { cwd: wt.repo });
  return { ok: true, message: `merged ${wt.branch} into ${wt.base} (${how})` };
}

/** Rebases the worktree's branch on its base; a conflict is aborted (only the rebase started here) and reported. */
export async function rebaseOnBase(git: Git, wt: WorktreeRef): Promise<ActionResult> {
  const repo = new Repo(git, wt.repo);
  const busy = await busyWith(repo, wt, 'rebasing');
  if (busy) return busy;
  const pending = await repo.uncommitted(wt.path, { untracked: false });
  if (pending.length > 0)
    return { ok: false, code: 'refused', message: `${wt.path} has ${plural(pending.length, 'uncommitted file')}: commit them before rebasing` };
  const r = await git.run(['rebase', '--quiet', '--end-of-options', wt.base], { cwd: wt.path });
  if (r.code === 0) return { ok: true, message: `rebased ${wt.branch} on ${wt.base}` };
  const conflicted = (await git.run(['diff', '--name-only', '--diff-filter=U'], { cwd: wt.path })).stdout.split('\n').filter(Boolean);
  // No rebase was waiting before this one (busyWith), so one waiting now is ours to undo.
  if ((await repo.operationIn(wt.path, wt.branch))?.what === 'a rebase') await git.run(['rebase', '--abort'], { cwd: wt.path });
  if (conflicted.length === 0) return { ok: false, code: 'refused', message: `git rebase failed: ${new GitError(['rebase'], r).message}` };
  return {
    ok: false,
    code: 'conflict',
    message: `rebasing ${wt.branch} on ${wt.base} conflicts in ${plural(conflicted.length, 'file')}: ${conflicted.join(', ')}; the rebase was undone`,
    files: conflicted,
  };
}

export interface WorkAtStake {
  uncommitted: string[];
  unmerged: number;
}

/** What removing the worktree would put at risk: uncommitted files, commits its base lacks. */
export async function workAtStake(git: Git, wt: WorktreeRef): Promise<WorkAtStake> {
  const repo = new Repo(git, wt.repo);
  const uncommitted = await repo.uncommitted(wt.path, { untracked: true });
  const unmerged = (await repo.branchExists(wt.branch)) ? await repo.unmergedCount(wt.branch, wt.base).catch(() => 0) : 0;
  return { uncommitted, unmerged };
}

/** Removes the worktree folder; its branch goes too unless it has unmerged commits (then it is kept). */
export async function removeWorktree(git: Git, wt: WorktreeRef, opts: { force: boolean; stopAt: string; keepBranch?: boolean }): Promise<ActionResult> {
  const stake = await workAtStake(git, wt);
  if (!opts.force && (stake.uncommitted.length > 0 || stake.unmerged > 0)) {
    const what = [
      stake.uncommitted.length ? plural(stake.uncommitted.length, 'uncommitted file') : '',
      stake.unmerged ? `${plural(stake.unmerged, 'commit')} not in ${wt.base}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return { ok: false, code: 'unsaved', message: `${wt.path} has ${what}; confirm again (--force) to remove it anyway`, ...stake };
  }
  await git.ok(['worktree', 'remove', '--force', wt.path], { cwd: wt.repo });
  let kept = '';
  if (stake.unmerged > 0) kept = `; kept the branch ${wt.branch} (${plural(stake.unmerged, 'commit')} not in ${wt.base})`;
  else if (!opts.keepBranch) await git.run(['branch', '-D', wt.branch], { cwd: wt.repo });
  // Tidy the folders the branch name made (claude/…), up to the worktrees root.
  for (let dir = dirname(wt.path); dir.startsWith(opts.stopAt) && dir !== opts.stopAt; dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      break;
    }
  }
  return { ok: true, message: `removed ${wt.path}${kept}` };
}
