// What the worktree service asks a repository: where its main checkout is, which branch is
// checked out where, whether a name is a branch git accepts, whether a checkout has uncommitted
// changes, and which checkouts are in the middle of a rebase, merge, cherry-pick or revert.
// Read-only; every answer comes from git itself (or the files git names for an operation).
import { existsSync, readFileSync } from 'node:fs';
import { Git, GitError } from './git';

/** What git leaves in a checkout's git folder while an operation waits for the user. */
const OPERATIONS_IN_PROGRESS: ReadonlyArray<{ file: string; what: string }> = [
  { file: 'rebase-merge', what: 'a rebase' },
  { file: 'rebase-apply', what: 'a rebase' },
  { file: 'MERGE_HEAD', what: 'a merge' },
  { file: 'CHERRY_PICK_HEAD', what: 'a cherry-pick' },
  { file: 'REVERT_HEAD', what: 'a revert' },
];

/** A checkout in the middle of an operation the user has to finish or abort. */
export interface OperationInProgress {
  path: string;
  /** "a rebase", "a merge", … */
  what: string;
  /** The branch it works on: the checkout's branch, or the one a rebase will move when it ends. */
  branch: string | null;
}

export interface WorktreeEntry {
  path: string;
  /** refs/heads/… stripped; null when detached. */
  branch: string | null;
  head: string;
}

export type RepoAnswer<T> = { ok: true; value: T } | { ok: false; message: string };

export class Repo {
  constructor(
    readonly git: Git,
    /** The main checkout's top folder. */
    readonly root: string,
  ) {}

  /** The repository `dir` belongs to, by its main checkout (a folder inside a worktree counts as its repository). */
  static async open(git: Git, dir: string): Promise<RepoAnswer<Repo>> {
    const top = await git.run(['rev-parse', '--show-toplevel'], { cwd: dir });
    if (top.code !== 0) return { ok: false, message: `'${dir}' is not in a git repository` };
    const bare = await git.ok(['rev-parse', '--is-bare-repository'], { cwd: dir });
    if (bare.trim() === 'true') return { ok: false, message: `'${dir}' is a bare repository: worktrees need a checkout to start from` };
    const entries = parseWorktreeList(await git.ok(['worktree', 'list', '--porcelain'], { cwd: dir }));
    const main = entries[0]?.path ?? top.stdout.trim();
    return { ok: true, value: new Repo(git, main) };
  }

  async worktrees(): Promise<WorktreeEntry[]> {
    return parseWorktreeList(await this.git.ok(['worktree', 'list', '--porcelain'], { cwd: this.root }));
  }

  /** The branch checked out in `dir` (null: detached). */
  async currentBranch(dir = this.root): Promise<string | null> {
    const r = await this.git.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: dir });
    return r.code === 0 ? r.stdout.trim() : null;
  }

  async branchExists(name: string): Promise<boolean> {
    const r = await this.git.run(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { cwd: this.root });
    return r.code === 0;
  }

  /** git's verdict on a branch name, with its reason when it refuses. */
  async checkBranchName(name: string): Promise<RepoAnswer<string>> {
    if (name.startsWith('-')) return { ok: false, message: `'${name}' is not a valid branch name (it starts with '-')` };
    // git takes these, but git's own output then reads them as refs (refs/heads/refs/heads/x), and
    // the branch names a folder and appears in commands people copy into a shell.
    if (name.startsWith('refs/'))
      return { ok: false, message: `'${name}' is not accepted as a branch name: give it without 'refs/…' (e.g. '${name.split('/').pop()}')` };
    const odd = /[;$`'"|&<>(){}!#%\\]/.exec(name);
    if (odd) return { ok: false, message: `'${name}' is not accepted as a branch name: it has '${odd[0]}', which a shell would read` };
    const r = await this.git.run(['check-ref-format', '--branch', name], { cwd: this.root });
    if (r.code !== 0) return { ok: false, message: `'${name}' is not a valid branch name (git check-ref-format refuses it)` };
    return { ok: true, value: r.stdout.trim() };
  }

  /** The commit a ref names, or why it names none. */
  async resolve(ref: string, dir = this.root): Promise<RepoAnswer<string>> {
    if (ref.startsWith('-')) return { ok: false, message: `'${ref}' is not a commit, branch or tag` };
    const r = await this.git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { cwd: dir });
    return r.code === 0 ? { ok: true, value: r.stdout.trim() } : { ok: false, message: `'${ref}' is not a commit, branch or tag in ${this.root}` };
  }

  /** Tracked files with uncommitted changes in a checkout (staged or not). */
  async uncommitted(dir: string, opts: { untracked: boolean }): Promise<string[]> {
    const out = await this.git.ok(['status', '--porcelain=v1', '-z', `--untracked-files=${opts.untracked ? 'all' : 'no'}`], { cwd: dir });
    return porcelainPaths(out);
  }

  /** Commits on `branch` that `base` does not have. */
  async unmergedCount(branch: string, base: string): Promise<number> {
    const r = await this.git.run(['rev-list', '--count', `${base}..${branch}`, '--'], { cwd: this.root });
    if (r.code !== 0) throw new GitError(['rev-list'], r);
    return Number(r.stdout.trim());
  }

  /** The operation waiting in checkout `dir` (rebase, merge, cherry-pick, revert), or null. */
  async operationIn(dir: string, branch: string | null): Promise<OperationInProgress | null> {
    const args = OPERATIONS_IN_PROGRESS.flatMap((o) => ['--git-path', o.file]);
    const paths = (await this.git.ok(['rev-parse', '--path-format=absolute', ...args], { cwd: dir })).split('\n');
    const found = OPERATIONS_IN_PROGRESS.findIndex((_, i) => paths[i] && existsSync(paths[i]));
    if (found === -1) return null;
    const op = OPERATIONS_IN_PROGRESS[found]!;
    // A rebase detaches HEAD; the branch it will move is in its head-name file.
    let target = branch;
    if (op.what === 'a rebase') {
      try {
        target =
          readFileSync(`${paths[found]}/head-name`, 'utf8')
            .trim()
            .replace(/^refs\/heads\//, '') || branch;
      } catch {
        // No head-name: a rebase of a detached HEAD.
      }
    }
    return { path: dir, what: op.what, branch: target };
  }

  /** Every checkout of the repository that is in the middle of an operation. */
  async operationsInProgress(): Promise<OperationInProgress[]> {
    const found = await Promise.all((await this.worktrees()).map((w) => this.operationIn(w.path, w.branch).catch(() => null)));
    return found.filter((o): o is OperationInProgress => o !== null);
  }

  /** The folder where `branch` is checked out, if any. */
  async holderOf(branch: string): Promise<string | null> {
    return (await this.worktrees()).find((w) => w.branch === branch)?.path ?? null;
  }
}

/** `git worktree list --porcelain` → its entries, the main checkout first. */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const out: WorktreeEntry[] = [];
  for (const block of text.split('\n\n')) {
    let path = '';
    let branch: string | null = null;
    let head = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
      else if (line.startsWith('HEAD ')) head = line.slice('HEAD '.length);
      else if (line.startsWith('branch ')) branch = line.slice('branch '.length).replace(/^refs\/heads\//, '');
    }
    if (path) out.push({ path, branch, head });
  }
  return out;
}

/** `git status --porcelain -z` → the paths it names (a rename's new path). */
export function porcelainPaths(z: string): string[] {
  const parts = z.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    // A rename or copy is followed by its source path.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}
