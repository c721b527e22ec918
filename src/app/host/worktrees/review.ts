// What a worktree changed against its base: committed work since the fork point, uncommitted
// edits and new (untracked, not ignored) files, as a file list, a stat or a unified diff. New
// files are counted through a scratch copy of the worktree's index with them marked
// intent-to-add, so the user's own index is never touched.
import { copyFileSync, existsSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Git } from './git';

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'changed';

export interface ChangedFile {
  path: string;
  kind: ChangeKind;
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
}

/** Where each worktree's index file is (it never moves while the worktree exists): one git run saved per count. */
const indexFiles = new Map<string, string>();

async function indexFileOf(git: Git, dir: string): Promise<string> {
  let file = indexFiles.get(dir);
  if (!file) {
    const p = (await git.ok(['rev-parse', '--git-path', 'index'], { cwd: dir })).trim();
    file = isAbsolute(p) ? p : join(dir, p);
    indexFiles.set(dir, file);
  }
  return file;
}

/** Runs fn with GIT_INDEX_FILE set to a scratch copy of `dir`'s index holding every new file as intent-to-add. */
async function withScratchIndex<T>(git: Git, dir: string, fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const real = await indexFileOf(git, dir);
  const scratch = join(tmpdir(), `termio-index-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    // A fresh repository has no index yet; git starts an empty one.
    if (existsSync(real)) {
      copyFileSync(real, scratch);
      // The copy keeps the index's time: git compares it with each file's to spot a file saved in
      // the same instant the index was written (whose size and time alone cannot tell a change).
      const { atime, mtime } = statSync(real);
      utimesSync(scratch, atime, mtime);
    }
    const env = { GIT_INDEX_FILE: scratch };
    await git.ok(['add', '--all', '--intent-to-add', '--', '.'], { cwd: dir, env });
    return await fn(env);
  } finally {
    rmSync(scratch, { force: true });
  }
}

/** The commit the worktree's branch forked from its base (what the review compares with). */
export async function forkPoint(git: Git, dir: string, base: string): Promise<string> {
  return (await git.ok(['merge-base', '--end-of-options', base, 'HEAD'], { cwd: dir })).trim();
}

/** Every file that differs from the fork point, with its line counts. */
export async function changedFiles(git: Git, dir: string, base: string): Promise<ChangedFile[]> {
  const from = await forkPoint(git, dir, base);
  return withScratchIndex(git, dir, async (env) => {
    const [status, numstat] = await Promise.all([
      git.ok(['diff', '--no-renames', '--name-status', '-z', from, '--'], { cwd: dir, env }),
      git.ok(['diff', '--no-renames', '--numstat', '-z', from, '--'], { cwd: dir, env }),
    ]);
    const counts = new Map<string, [number | null, number | null]>();
    for (const rec of numstat.split('\0')) {
      const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(rec);
      if (m) counts.set(m[3]!, [m[1] === '-' ? null : Number(m[1]), m[2] === '-' ? null : Number(m[2])]);
    }
    const parts = status.split('\0');
    const files: ChangedFile[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const path = parts[i + 1]!;
      const [added, removed] = counts.get(path) ?? [null, null];
      files.push({ path, kind: kindOf(parts[i]!), added, removed });
    }
    return files;
  });
}

function kindOf(letter: string): ChangeKind {
  if (letter === 'A') return 'added';
  if (letter === 'D') return 'deleted';
  if (letter === 'M') return 'modified';
  return 'changed';
}

/** How many files differ from the fork point (the sidebar's live count). The fork point is
 *  found while the scratch index is made, so a count costs two git runs one after the other. */
export async function changedCount(git: Git, dir: string, base: string): Promise<number> {
  const fork = forkPoint(git, dir, base);
  // Settled either way here, so a failing merge-base is never an unhandled rejection; awaited below.
  fork.catch(() => undefined);
  return withScratchIndex(git, dir, async (env) => {
    const out = await git.ok(['diff', '--no-renames', '--name-only', '-z', await fork, '--'], { cwd: dir, env });
    return out.split('\0').filter(Boolean).length;
  });
}

/** The unified diff against the fork point (of one file, or all), or git's --stat summary. */
export async function diffText(git: Git, dir: string, base: string, opts: { stat?: boolean; file?: string } = {}): Promise<string> {
  const from = await forkPoint(git, dir, base);
  return withScratchIndex(git, dir, (env) => {
    const args = ['diff', '--no-renames', '--no-color', '--no-ext-diff', opts.stat ? '--stat' : '--patch', from, '--'];
    if (opts.file !== undefined) args.push(`:(literal)${opts.file}`);
    return git.ok(args, { cwd: dir, env });
  });
}
