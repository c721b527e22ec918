// Real temporary git repositories for the worktree tests: made with the git on PATH, with an
// identity of their own so commits never depend on the machine's configuration.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository on branch main with one commit holding `files` (default: a README). */
export function makeRepo(files: Record<string, string> = { 'README.md': '# demo\n' }, parent?: string): string {
  const base = parent ?? realpathSync(mkdtempSync(join(tmpdir(), 'termio-git-')));
  const dir = join(base, 'repo');
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'config', 'user.name', 'Termio Test');
  git(dir, 'config', 'user.email', 'test@termio.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  for (const [name, text] of Object.entries(files)) writeIn(dir, name, text);
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'initial');
  return dir;
}

export function writeIn(dir: string, name: string, text: string): void {
  const file = join(dir, name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function commitIn(dir: string, message: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) writeIn(dir, name, text);
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', message);
}
