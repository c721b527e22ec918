// The worktree service against real temporary git repositories: creation and its refusals,
// the review's diff (new files included, nothing leaking between worktrees), merge, rebase,
// conflicts, removal that keeps work, and prune.
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Git } from '../../../src/app/host/worktrees/git';
import { WorktreeService } from '../../../src/app/host/worktrees/worktreeService';
import { branchNameFor } from '../../../src/app/host/worktrees/worktreeCreate';
import { commitIn, git, makeRepo, writeIn } from '../../helpers/gitRepo';
import { transpileForChild } from '../../helpers/transpileForChild';
import { runWithoutFileOverride } from '../../helpers/withoutFileOverride';

const cleanups: string[] = [];
afterEach(() => {
  for (const d of cleanups.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(root = '') {
  const repo = makeRepo({ 'README.md': '# demo\n', 'src/app.js': 'console.log(1);\n' });
  cleanups.push(dirname(repo));
  const warnings: string[] = [];
  const service = new WorktreeService({ recordsFile: join(dirname(repo), 'termio', 'worktrees.json'), root: () => root, warn: (m) => warnings.push(m) });
  return { repo, service, warnings };
}

/** `service.prepare` for one worktree under `root`, in a child process where file permissions apply even as root. */
function prepareWithoutFileOverride(recordsFile: string, dir: string, root: string): unknown {
  const code = transpileForChild(['src/app/host/worktrees/worktreeService.ts']);
  try {
    const service = JSON.stringify(code.path('src/app/host/worktrees/worktreeService.ts'));
    const script = `const { WorktreeService } = require(${service});
new WorktreeService({ recordsFile: ${JSON.stringify(recordsFile)}, root: () => ${JSON.stringify(root)}, warn: () => {} })
  .prepare({ dir: ${JSON.stringify(dir)}, agent: 'claude' })
  .then((r) => { process.stdout.write(JSON.stringify(r)); process.exit(0); });`;
    return JSON.parse(runWithoutFileOverride([process.execPath, '-e', script]));
  } finally {
    code.dispose();
  }
}

async function made(service: WorktreeService, req: Parameters<WorktreeService['prepare']>[0]) {
  const r = await service.prepare(req);
  if (!r.ok) throw new Error(r.message);
  return r.worktree;
}

describe('creating worktrees', () => {
  it('gives two sessions in one repository two worktrees on two branches beside it', async () => {
    const { repo, service } = setup();
    const a = await made(service, { dir: repo, agent: 'claude', prompt: 'Fix the login redirect' });
    const b = await made(service, { dir: repo, agent: 'claude', prompt: 'Fix the login redirect' });
    expect(a.branch).toBe('claude/fix-the-login-redirect');
    expect(b.branch).toBe('claude/fix-the-login-redirect-2');
    expect(a.path).toBe(`${repo}.worktrees/claude/fix-the-login-redirect`);
    expect(a.base).toBe('main');
    expect(git(a.path, 'branch', '--show-current').trim()).toBe(a.branch);
    expect(git(b.path, 'branch', '--show-current').trim()).toBe(b.branch);
    expect(git(repo, 'worktree', 'list').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('names a branch after the agent and the prompt, or the time without one', () => {
    expect(branchNameFor('codex', 'Add a --json flag to `list`, please and thank you')).toBe('codex/add-a-json-flag-to-list');
    expect(branchNameFor('claude', undefined, new Date('2026-01-02T03:04:00Z'))).toBe('claude/session-20260102-0304');
  });

  it('puts worktrees under the root setting and takes a given branch and base', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'termio-root-')));
    cleanups.push(base);
    const { repo, service } = setup(base);
    commitIn(repo, 'second', { 'later.txt': 'x\n' });
    const wt = await made(service, { dir: repo, agent: 'claude', branch: 'feature/x', base: 'main~1' });
    expect(wt.path).toBe(join(base, 'repo', 'feature/x'));
    expect(existsSync(join(wt.path, 'later.txt'))).toBe(false);
  });

  it('refuses bad input with a message and creates nothing', async () => {
    const { repo, service } = setup();
    const notRepo = dirname(repo);
    const before = () => git(repo, 'worktree', 'list') + git(repo, 'branch', '--list');
    const start = before();
    expect(await service.prepare({ dir: notRepo, agent: 'claude' })).toEqual({ ok: false, message: `'${notRepo}' is not in a git repository` });
    const refused = await service.prepare({ dir: repo, agent: 'claude', branch: 'bad..name' });
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining("'bad..name' is not a valid branch name") });
    // git takes these two; Termio does not.
    expect(await service.prepare({ dir: repo, agent: 'claude', branch: 'refs/heads/x' })).toMatchObject({
      ok: false,
      message: expect.stringContaining("give it without 'refs/…' (e.g. 'x')"),
    });
    expect(await service.prepare({ dir: repo, agent: 'claude', branch: 'a;touch${IFS}inj' })).toMatchObject({
      ok: false,
      message: expect.stringContaining("it has ';', which a shell would read"),
    });
    const held = await service.prepare({ dir: repo, agent: 'claude', branch: 'main' });
    expect(held).toMatchObject({ ok: false, message: expect.stringContaining(`'main' is already checked out in ${repo}`) });
    expect(await service.prepare({ dir: repo, agent: 'claude', base: 'nope' })).toMatchObject({
      ok: false,
      message: expect.stringContaining("'nope' is not a commit"),
    });
    writeIn(repo, 'README.md', 'edited\n');
    const dirty = await service.prepare({ dir: repo, agent: 'claude' });
    expect(dirty).toMatchObject({ ok: false, message: expect.stringContaining('has uncommitted changes (1 file: README.md)') });
    git(repo, 'checkout', '--', 'README.md');
    expect(before()).toBe(start);
    expect(existsSync(`${repo}.worktrees`)).toBe(false);
  });

  it('refuses a root it cannot write to and a missing git', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'termio-root-')));
    cleanups.push(base);
    writeFileSync(join(base, 'file'), '');
    const { repo, service } = setup(join(base, 'file', 'sub'));
    const r = await service.prepare({ dir: repo, agent: 'claude' });
    expect(r).toMatchObject({ ok: false, message: expect.stringContaining(`${join(base, 'file')} is not a folder`) });
    expect(git(repo, 'branch', '--list').trim()).toBe('* main');
    // A folder made read-only stops the user, root too: the service runs in a child process
    // without root's power to override file permissions.
    const ro = join(base, 'ro');
    writeIn(base, 'ro/keep', '');
    chmodSync(ro, 0o555);
    expect(prepareWithoutFileOverride(join(base, 'w.json'), repo, ro)).toMatchObject({ ok: false, message: expect.stringContaining('not writable') });
    expect(git(repo, 'branch', '--list').trim()).toBe('* main');
    const noGit = new WorktreeService({ recordsFile: join(base, 'w2.json'), root: () => '', warn: () => {}, git: new Git('/nonexistent/git') });
    expect(await noGit.prepare({ dir: repo, agent: 'claude' })).toMatchObject({ ok: false, message: expect.stringContaining('git is not installed') });
  });

  it('reports a broken .termio/worktree.json before creating anything', async () => {
    const { repo, service } = setup();
    writeIn(repo, '.termio/worktree.json', '{"copy": [".env"], "run": "npm ci"}');
    const r = await service.prepare({ dir: repo, agent: 'claude' });
    expect(r).toMatchObject({ ok: false, message: expect.stringContaining('worktree.json: run:') });
    expect(git(repo, 'branch', '--list').trim()).toBe('* main');
  });
});

describe('reviewing a worktree', () => {
  it('shows a change and a new file in its own diff only', async () => {
    const { repo, service } = setup();
    const a = await made(service, { dir: repo, agent: 'claude', prompt: 'one' });
    const b = await made(service, { dir: repo, agent: 'claude', prompt: 'two' });
    writeIn(a.path, 'src/app.js', 'console.log(2);\n');
    writeIn(a.path, 'src/new.js', 'export const fresh = true;\n');
    expect(await service.files(a)).toEqual([
      { path: 'src/app.js', kind: 'modified', added: 1, removed: 1 },
      { path: 'src/new.js', kind: 'added', added: 1, removed: 0 },
    ]);
    const patch = await service.diff(a, {});
    expect(patch).toContain('-console.log(1);\n+console.log(2);');
    expect(patch).toContain('+++ b/src/new.js');
    expect(await service.diff(a, { stat: true })).toMatch(/2 files changed, 2 insertions\(\+\), 1 deletion\(-\)/);
    expect(await service.files(b)).toEqual([]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // The user's own index is untouched: the new file is still untracked there.
    expect(git(a.path, 'status', '--porcelain')).toBe(' M src/app.js\n?? src/new.js\n');
  });

  it('commits everything, then merges by fast-forward', async () => {
    const { repo, service } = setup();
    const wt = await made(service, { dir: repo, agent: 'claude', prompt: 'Add the greeting\nand more' });
    service.adopt('s1', wt, { agentId: 'claude', prompt: 'Add the greeting\nand more' });
    const rec = service.ofSession('s1')!;
    expect(service.proposedMessage(rec, '')).toBe('Add the greeting');
    writeIn(wt.path, 'hello.txt', 'hi\n');
    expect(await service.act(rec, 'merge')).toMatchObject({ ok: false, code: 'refused', message: expect.stringContaining('commit them first') });
    expect(await service.act(rec, 'commit')).toEqual({ ok: true, message: `committed 1 file on ${wt.branch}` });
    expect(git(wt.path, 'log', '-1', '--format=%s').trim()).toBe('Add the greeting');
    expect(await service.act(rec, 'merge')).toEqual({ ok: true, message: `merged ${wt.branch} into main (fast-forward)` });
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('merges with a merge commit when the base moved, and rebases', async () => {
    const { repo, service } = setup();
    const wt = await made(service, { dir: repo, agent: 'claude', prompt: 'x' });
    service.adopt('s1', wt, { agentId: 'claude', prompt: 'x' });
    const rec = service.ofSession('s1')!;
    commitIn(wt.path, 'side', { 'side.txt': 'side\n' });
    commitIn(repo, 'main moves', { 'main.txt': 'main\n' });
    expect(await service.act(rec, 'rebase')).toEqual({ ok: true, message: `rebased ${wt.branch} on main` });
    expect(existsSync(join(wt.path, 'main.txt'))).toBe(true);
    commitIn(repo, 'main moves again', { 'main2.txt': 'main\n' });
    expect(await service.act(rec, 'merge')).toEqual({ ok: true, message: `merged ${wt.branch} into main (merge commit)` });
    expect(git(repo, 'log', '-1', '--format=%P').trim().split(' ')).toHaveLength(2);
    expect(existsSync(join(repo, 'side.txt'))).toBe(true);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('reports a conflict with its files and leaves everything as it was', async () => {
    const { repo, service } = setup();
    const wt = await made(service, { dir: repo, agent: 'claude', prompt: 'x' });
    service.adopt('s1', wt, { agentId: 'claude', prompt: 'x' });
    const rec = service.ofSession('s1')!;
    commitIn(wt.path, 'ours', { 'README.md': 'from the worktree\n' });
    commitIn(repo, 'theirs', { 'README.md': 'from main\n' });
    const mainHead = git(repo, 'rev-parse', 'main');
    const branchHead = git(repo, 'rev-parse', wt.branch);
    const merge = await service.act(rec, 'merge');
    expect(merge).toMatchObject({ ok: false, code: 'conflict', files: ['README.md'] });
    const rebase = await service.act(rec, 'rebase');
    expect(rebase).toMatchObject({ ok: false, code: 'conflict', files: ['README.md'], message: expect.stringContaining('the rebase was undone') });
    expect(git(repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(repo, 'rev-parse', wt.branch)).toBe(branchHead);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(wt.path, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(wt.path, 'README.md'), 'utf8')).toBe('from the worktree\n');
  });
});

describe('removing and pruning', () => {
  it('refuses to remove uncommitted or unmerged work until confirmed, and keeps an unmerged branch', async () => {
    const { repo, service } = setup();
    const wt = await made(service, { dir: repo, agent: 'claude', prompt: 'x' });
    service.adopt('s1', wt, { agentId: 'claude', prompt: 'x' });
    const rec = service.ofSession('s1')!;
    writeIn(wt.path, 'draft.txt', 'unsaved\n');
    const refused = await service.remove(rec, false);
    expect(refused).toMatchObject({ ok: false, code: 'unsaved', uncommitted: ['draft.txt'], unmerged: 0 });
    expect(readFileSync(join(wt.path, 'draft.txt'), 'utf8')).toBe('unsaved\n');
    git(wt.path, 'add', '--all');
    git(wt.path, 'commit', '--quiet', '-m', 'draft');
    expect(await service.remove(rec, false)).toMatchObject({ ok: false, code: 'unsaved', uncommitted: [], unmerged: 1 });
    const removed = await service.remove(rec, true);
    expect(removed).toEqual({ ok: true, message: `removed ${wt.path}; kept the branch ${wt.branch} (1 commit not in main)` });
    expect(existsSync(wt.path)).toBe(false);
    expect(existsSync(`${repo}.worktrees`)).toBe(false);
    expect(git(repo, 'branch', '--list', wt.branch).trim()).toBe(wt.branch);
    expect(service.ofSession('s1')).toBeUndefined();
  });

  it('prunes only merged and clean worktrees whose session is closed', async () => {
    const { repo, service } = setup();
    const clean = await made(service, { dir: repo, agent: 'claude', prompt: 'clean' });
    const dirty = await made(service, { dir: repo, agent: 'claude', prompt: 'dirty' });
    const ahead = await made(service, { dir: repo, agent: 'claude', prompt: 'ahead' });
    const open = await made(service, { dir: repo, agent: 'claude', prompt: 'open' });
    for (const [i, wt] of [clean, dirty, ahead, open].entries()) service.adopt(`s${i}`, wt, { agentId: 'claude', prompt: null });
    writeIn(dirty.path, 'x.txt', 'x\n');
    commitIn(ahead.path, 'ahead', { 'y.txt': 'y\n' });
    const { removed, kept } = await service.prune((id) => id === 's3');
    expect(removed.map((r) => r.branch)).toEqual([clean.branch]);
    expect(kept.map((r) => r.branch).sort()).toEqual([dirty.branch, ahead.branch, open.branch].sort());
    expect(existsSync(clean.path)).toBe(false);
    expect(git(repo, 'branch', '--list', clean.branch).trim()).toBe('');
    expect(existsSync(join(dirty.path, 'x.txt'))).toBe(true);
    const listed = await service.list();
    expect(listed.find((l) => l.path === dirty.path)).toMatchObject({ present: true, uncommitted: 1, unmerged: 0, changed: 1 });
    expect(listed.find((l) => l.path === ahead.path)).toMatchObject({ uncommitted: 0, unmerged: 1, changed: 1 });
  });
});
