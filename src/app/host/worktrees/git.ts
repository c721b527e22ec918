// Running git for the worktree service: always an argv through child_process (never a shell, so
// no branch name or path is ever interpreted), with a bounded output and time, and a missing git
// told apart from git refusing.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';

/** A diff of a large change set can be many megabytes; 64 MiB bounds a runaway one. */
const MAX_GIT_OUTPUT_BYTES = 64 * 1024 * 1024;
/** A merge or rebase of a big branch, or `git add` on a large tree, takes seconds; two minutes is
 *  a stuck git (a lock held, a hook waiting on a terminal it does not have). */
const GIT_TIMEOUT_MS = 120_000;

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  /** Extra environment (GIT_INDEX_FILE for a scratch index). */
  env?: Record<string, string>;
}

export class GitMissing extends Error {
  constructor(command: string) {
    super(`git is not installed: '${command}' was not found on PATH (install git to use worktrees)`);
  }
}

/** The git a service runs: its command (tests point it at a missing one). */
export class Git {
  constructor(readonly command = 'git') {}

  /** Runs `git ARGS` in cwd; resolves with its exit code and output, throws GitMissing only. */
  run(args: string[], opts: GitOptions): Promise<GitResult> {
    // A missing cwd and a missing git both surface as ENOENT from spawn: tell them apart first.
    if (!existsSync(opts.cwd)) return Promise.reject(new Error(`'${opts.cwd}' does not exist`));
    return new Promise((resolve, reject) => {
      execFile(
        this.command,
        args,
        {
          cwd: opts.cwd,
          // A prompt for credentials or an editor would hang with no terminal to ask on.
          env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_MERGE_AUTOEDIT: 'no', LC_ALL: 'C', ...opts.env },
          maxBuffer: MAX_GIT_OUTPUT_BYTES,
          timeout: GIT_TIMEOUT_MS,
          encoding: 'utf8',
        },
        (err, stdout, stderr) => {
          const e = err as (NodeJS.ErrnoException & { code?: unknown }) | null;
          if (e && e.code === 'ENOENT' && typeof e.syscall === 'string' && e.syscall.startsWith('spawn')) {
            reject(new GitMissing(this.command));
            return;
          }
          const code = e ? (typeof e.code === 'number' ? e.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  /** Runs git and returns its stdout, or throws a GitError with git's own words. */
  async ok(args: string[], opts: GitOptions): Promise<string> {
    const r = await this.run(args, opts);
    if (r.code !== 0) throw new GitError(args, r);
    return r.stdout;
  }
}

/** git refused: its first line of stderr is what the user reads. */
export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult,
  ) {
    super(gitWords(result) || `git ${args[0] ?? ''} failed with status ${result.code}`);
  }
}

/** git's own message, without its "fatal: " / "error: " prefixes and hint lines. */
export function gitWords(r: GitResult): string {
  return (r.stderr || r.stdout)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('hint:'))
    .map((l) => l.replace(/^(fatal|error): /, ''))
    .slice(0, 3)
    .join('; ');
}

/** git's absolute path on a PATH (the login shell's, which the host's own may lack), else plain 'git'. */
export function gitCommand(path: string): string {
  for (const dir of path.split(':')) {
    if (!dir) continue;
    const candidate = join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return 'git';
}
