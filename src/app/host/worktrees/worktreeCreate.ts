// Creating a session's worktree: which repository, which base, which new branch (named after the
// agent and the first prompt unless given, never one another worktree holds), where (the root
// setting, else `<repo>.worktrees/<branch>` beside the repository), then `git worktree add`.
// Every check runs before anything is written, and a failure part-way undoes what was made.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Git, GitError, GitMissing } from './git';
import { Repo } from './repo';

/** Words of the first prompt kept in a branch name: enough to recognise it in a list. */
const BRANCH_WORDS = 6;
/** Characters of the prompt part of a branch name (a sidebar row shows about this many). */
const BRANCH_SLUG_CHARS = 40;
/** Suffixes tried (-2, -3, …) before giving up on a free generated name. */
const MAX_NAME_TRIES = 100;

export interface WorktreeRef {
  /** The worktree's folder. */
  path: string;
  branch: string;
  /** The ref it started from as the user named it (a branch, usually), merged into on review. */
  base: string;
  /** The main checkout's folder. */
  repo: string;
}

export interface CreateRequest {
  /** A folder in the repository (the picker's or the spawn's folder). */
  dir: string;
  /** Manifest id, the first part of a generated branch name. */
  agent: string;
  prompt?: string;
  branch?: string;
  base?: string;
  /** The worktree root setting; '' = beside the repository. */
  root: string;
}

export type CreateResult = { ok: true; worktree: WorktreeRef; created: boolean } | { ok: false; message: string };

/** A branch name from the agent and the first prompt: `claude/fix-the-login-redirect`. */
export function branchNameFor(agent: string, prompt: string | undefined, now = new Date()): string {
  const agentPart = slug(agent, BRANCH_SLUG_CHARS) || 'agent';
  const words = (prompt ?? '').split(/\s+/).filter(Boolean).slice(0, BRANCH_WORDS).join(' ');
  const promptPart = slug(words, BRANCH_SLUG_CHARS);
  if (promptPart) return `${agentPart}/${promptPart}`;
  const stamp = now.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  return `${agentPart}/session-${stamp}`;
}

function slug(text: string, max: number): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');
}

/** Where a branch's worktree goes. */
export function worktreePath(repoRoot: string, branch: string, root: string): string {
  return root ? join(root, basename(repoRoot), branch) : join(`${repoRoot}.worktrees`, branch);
}

export async function createWorktree(git: Git, req: CreateRequest): Promise<CreateResult> {
  try {
    return await create(git, req);
  } catch (err) {
    if (err instanceof GitMissing || err instanceof GitError) return { ok: false, message: err.message };
    throw err;
  }
}

/** What createWorktree would check before making anything: the repository, and the base (a
 *  checkout with uncommitted changes refused). For starting several worktrees as one (fan-out). */
export async function checkBase(
  git: Git,
  req: { dir: string; base?: string },
): Promise<{ ok: true; repo: string; base: string } | { ok: false; message: string }> {
  try {
    const opened = await Repo.open(git, req.dir);
    if (!opened.ok) return opened;
    const base = await chooseBase(opened.value, req);
    return base.ok ? { ok: true, repo: opened.value.root, base: base.name } : base;
  } catch (err) {
    if (err instanceof GitMissing || err instanceof GitError) return { ok: false, message: err.message };
    throw err;
  }
}

async function create(git: Git, req: CreateRequest): Promise<CreateResult> {
  const opened = await Repo.open(git, req.dir);
  if (!opened.ok) return opened;
  const repo = opened.value;
  const base = await chooseBase(repo, req);
  if (!base.ok) return base;
  const target = await chooseBranch(repo, req);
  if (!target.ok) return target;
  const { branch, path, existing } = target;
  const made = makeParents(path);
  if (!made.ok) return made;
  const args = existing ? ['worktree', 'add', path, branch] : ['worktree', 'add', '-b', branch, path, base.commit];
  const r = await git.run(args, { cwd: repo.root });
  if (r.code !== 0) {
    if (!existing && (await repo.branchExists(branch)) && !(await repo.holderOf(branch))) await git.run(['branch', '-D', branch], { cwd: repo.root });
    removeEmpty(made.created);
    return { ok: false, message: `git worktree add failed: ${new GitError(args, r).message}` };
  }
  return { ok: true, worktree: { path, branch, base: base.name, repo: repo.root }, created: !existing };
}

/** The base: the given ref, else the branch checked out where the session was asked for. A
 *  checkout with uncommitted changes is refused as the base: the worktree would not have them. */
async function chooseBase(
  repo: Repo,
  req: { dir: string; base?: string | undefined },
): Promise<{ ok: true; name: string; commit: string } | { ok: false; message: string }> {
  if (req.base !== undefined) {
    const commit = await repo.resolve(req.base);
    return commit.ok ? { ok: true, name: req.base, commit: commit.value } : commit;
  }
  const here = (await repo.git.ok(['rev-parse', '--show-toplevel'], { cwd: req.dir })).trim();
  const branch = await repo.currentBranch(here);
  const commit = await repo.resolve('HEAD', here);
  if (!commit.ok) return { ok: false, message: `${here} has no commit yet: a worktree starts from one (commit first)` };
  const dirty = await repo.uncommitted(here, { untracked: false });
  if (dirty.length > 0) {
    const shown = dirty.slice(0, 3).join(', ') + (dirty.length > 3 ? ', …' : '');
    return {
      ok: false,
      message: `${here} has uncommitted changes (${dirty.length} file${dirty.length === 1 ? '' : 's'}: ${shown}); a new worktree starts from the last commit and would not have them: commit or stash them, or name a base`,
    };
  }
  return { ok: true, name: branch ?? commit.value, commit: commit.value };
}

type BranchChoice = { ok: true; branch: string; path: string; existing: boolean } | { ok: false; message: string };

async function chooseBranch(repo: Repo, req: CreateRequest): Promise<BranchChoice> {
  if (req.branch !== undefined) {
    const valid = await repo.checkBranchName(req.branch);
    if (!valid.ok) return valid;
    const branch = valid.value;
    const path = worktreePath(repo.root, branch, req.root);
    const holder = await repo.holderOf(branch);
    if (holder) return { ok: false, message: `the branch '${branch}' is already checked out in ${holder}; pick another name` };
    if (occupied(path)) return { ok: false, message: `${path} already exists and is not empty; pick another branch name or root` };
    return { ok: true, branch, path, existing: await repo.branchExists(branch) };
  }
  const stem = branchNameFor(req.agent, req.prompt);
  for (let i = 1; i <= MAX_NAME_TRIES; i++) {
    const branch = i === 1 ? stem : `${stem}-${i}`;
    const path = worktreePath(repo.root, branch, req.root);
    if (!(await repo.branchExists(branch)) && !occupied(path)) {
      const valid = await repo.checkBranchName(branch);
      if (!valid.ok) return valid;
      return { ok: true, branch, path, existing: false };
    }
  }
  return { ok: false, message: `no free branch name like '${stem}' (tried ${MAX_NAME_TRIES}); name one` };
}

function occupied(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return !statSync(path).isDirectory() || readdirSync(path).length > 0;
  } catch {
    return true;
  }
}

/** Creates the worktree's parent folders, after checking the nearest existing one is a writable folder. */
function makeParents(path: string): { ok: true; created: string[] } | { ok: false; message: string } {
  const missing: string[] = [];
  let dir = dirname(path);
  while (!existsSync(dir)) {
    missing.unshift(dir);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  try {
    if (!statSync(dir).isDirectory()) return { ok: false, message: `the worktree root cannot be used: ${dir} is not a folder` };
    accessSync(dir, constants.W_OK);
  } catch {
    return {
      ok: false,
      message: `the worktree root is not writable: cannot create folders in ${dir} (change worktrees.root in settings.json, or its permissions)`,
    };
  }
  const created: string[] = [];
  for (const d of missing) {
    try {
      mkdirSync(d);
      created.push(d);
    } catch (err) {
      removeEmpty(created);
      return { ok: false, message: `could not create ${d}: ${(err as Error).message}` };
    }
  }
  return { ok: true, created };
}

/** Removes folders this attempt created, deepest first, while they are empty. */
export function removeEmpty(dirs: string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      // Not empty (something else wrote there) or already gone: leave it.
    }
  }
}
