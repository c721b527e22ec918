// Worktree sessions through the real host and the real termio command: a fake `claude` on the
// PATH in real ptys, real temporary git repositories. Two sessions in one repository get two
// worktrees; each one's diff has only its own work; the repository's set-up runs in the tab before
// the agent (and a failing one keeps the agent from starting); closing keeps work; a restart
// resumes the session in its worktree; bad input is a message and creates nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/app/client/controlClient';
import { Host } from '../../../src/app/host/host';
import type { ControlArgs, ControlVerb } from '../../../src/protocol/control';
import { termio } from '../../helpers/controlHost';
import { commitIn, git, makeRepo, writeIn } from '../../helpers/gitRepo';
import { waitFor } from '../../helpers/waitFor';
import { enterTestHome, leaveTestHome, startHostHere } from '../../helpers/testHome';

let home: string;
let repo: string;
let agentLog: string;
let host: Host | null;

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-wts-')));
  repo = makeRepo({ 'README.md': '# demo\n', 'src/app.js': 'console.log(1);\n' }, home);
  agentLog = join(home, 'agents.log');
  const bin = join(home, 'bin');
  mkdirSync(bin);
  // A stand-in for claude that says where it started (its session and folder), then reads its input.
  writeFileSync(
    join(bin, 'claude'),
    '#!/bin/sh\n[ "$1" = --version ] && { echo "2.1.332 (Claude Code)"; exit 0; }\necho "$TERMIO_SESSION $PWD" >> "$FAKE_AGENT_LOG"\necho "agent ready"\nexec cat\n',
    { mode: 0o755 },
  );
  enterTestHome(home, bin, { FAKE_AGENT_LOG: agentLog });
  host = await startHostHere();
});

afterEach(async () => {
  await host?.dispose();
  host = null;
  leaveTestHome();
  rmSync(home, { recursive: true, force: true });
});

async function ask<V extends ControlVerb>(verb: V, args: ControlArgs<V>) {
  const c = await ControlClient.connect(process.env);
  if (!(c instanceof ControlClient)) throw new Error(c.message);
  try {
    return await c.request(verb, args);
  } finally {
    c.close();
  }
}

async function spawnIn(dir: string, extra: Partial<ControlArgs<'sessions.spawn'>> = {}) {
  const r = await ask('sessions.spawn', { agent: 'claude', cwd: dir, worktree: {}, ...extra });
  if (!r.ok) throw new Error(r.error.message);
  return r.result;
}

/** The real bin/termio (built dist) in the repository's folder. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await termio(argv, process.env, repo);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The sessions the agent started in, each once per start; with the folder it started in. */
const agentRuns = (): Array<[string, string]> =>
  existsSync(agentLog)
    ? readFileSync(agentLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ', 2) as [string, string])
    : [];
const agentStarts = (): string[] => agentRuns().map(([id]) => id);
const screen = (id: string) => host!.registry.get(id)!.session.screenLines().join('\n');

/** Starts the user's own interactive rebase of the last three commits in `dir`: it stops at
 *  the first (edit) with a squash still to come, as a user part-way through one would be. */
function startUsersRebase(dir: string): void {
  execFileSync('git', ['rebase', '--interactive', 'HEAD~3'], {
    cwd: dir,
    env: { ...process.env, GIT_SEQUENCE_EDITOR: "sed -i -e '1s/^pick/edit/' -e '3s/^pick/squash/'", GIT_EDITOR: 'true' },
    stdio: 'ignore',
  });
}

/** Finishes that rebase as the user would. */
function continueUsersRebase(dir: string): void {
  execFileSync('git', ['rebase', '--continue'], { cwd: dir, env: { ...process.env, GIT_EDITOR: 'true' }, stdio: 'ignore' });
}

const rebaseInProgress = (dir: string) => existsSync(git(dir, 'rev-parse', '--path-format=absolute', '--git-path', 'rebase-merge').trim());

describe('worktree sessions', () => {
  it('gives two sessions in one repository two worktrees, and each diff holds only its own work', async () => {
    const a = await spawnIn(repo, { prompt: 'Refactor the app' });
    const b = await spawnIn(repo, { prompt: 'Write the docs' });
    expect(a.session.worktree).toMatchObject({ path: `${repo}.worktrees/claude/refactor-the-app`, branch: 'claude/refactor-the-app', base: 'main', repo });
    expect(b.session.worktree?.branch).toBe('claude/write-the-docs');
    expect(a.session.cwd).toBe(a.session.worktree!.path);
    await waitFor(() => agentStarts().includes(a.id) && agentStarts().includes(b.id), { what: 'both agents started' });
    expect(agentRuns().find(([id]) => id === a.id)?.[1]).toBe(a.session.cwd);
    writeIn(a.session.cwd, 'src/app.js', 'console.log(2);\n');
    writeIn(a.session.cwd, 'src/extra.js', 'export {};\n');
    const listed = await cli('sessions', 'list', '--json');
    const sessions = (JSON.parse(listed.out) as { sessions: Array<{ id: string; worktree?: unknown }> }).sessions;
    const { path, branch, base } = a.session.worktree!;
    expect(sessions.find((s) => s.id === a.id)?.worktree).toMatchObject({ path, branch, base });
    const stat = await cli('sessions', 'diff', a.id.slice(0, 8), '--stat');
    expect(stat).toMatchObject({ code: 0, out: expect.stringMatching(/src\/app\.js[\s\S]*src\/extra\.js[\s\S]*2 files changed/) });
    const patch = await cli('sessions', 'diff', a.id);
    expect(patch.out).toContain('+++ b/src/extra.js');
    const other = await cli('sessions', 'diff', b.id, '--json');
    expect(JSON.parse(other.out)).toMatchObject({ ok: true, files: [], text: '' });
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // The live count follows the saves.
    await waitFor(() => host!.worktrees.count(a.id) === 2, { what: 'changed-files count 2' });
    expect(host!.worktrees.count(b.id)).toBe(0);
  });

  it('commits, merges and lists through the CLI; prune removes only what is merged and clean', async () => {
    const a = await spawnIn(repo, { prompt: 'Add a greeting' });
    const b = await spawnIn(repo, { prompt: 'Keep this' });
    writeIn(a.session.cwd, 'hello.txt', 'hi\n');
    writeIn(b.session.cwd, 'draft.txt', 'unsaved\n');
    expect(await cli('sessions', 'commit', a.id)).toMatchObject({ code: 0, out: `committed 1 file on claude/add-a-greeting\n` });
    expect(git(a.session.cwd, 'log', '-1', '--format=%s').trim()).toBe('Add a greeting');
    expect(await cli('sessions', 'merge', a.id)).toMatchObject({ code: 0, out: 'merged claude/add-a-greeting into main (fast-forward)\n' });
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hi\n');
    const kept = await cli('sessions', 'close', a.id);
    expect(kept.out).toContain(`kept ${a.session.cwd}`);
    expect(await cli('sessions', 'close', b.id)).toMatchObject({ code: 0 });
    const list = JSON.parse((await cli('worktrees', 'list', '--json')).out) as { worktrees: Array<{ branch: string; uncommitted: number; open: boolean }> };
    expect(list.worktrees.map((w) => [w.branch, w.uncommitted, w.open])).toEqual([
      ['claude/add-a-greeting', 0, false],
      ['claude/keep-this', 1, false],
    ]);
    const pruned = await cli('worktrees', 'prune');
    expect(pruned.out).toMatch(/^Removed:\nBRANCH.*\nclaude\/add-a-greeting .*\nKept \(open, uncommitted or unmerged\):\nBRANCH.*\nclaude\/keep-this /);
    expect(existsSync(a.session.cwd)).toBe(false);
    expect(readFileSync(join(b.session.cwd, 'draft.txt'), 'utf8')).toBe('unsaved\n');
    const refused = await cli('worktrees', 'remove', b.id);
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining('1 uncommitted file; confirm again (--force)') });
  });

  it('closing asks before removing work: refused with uncommitted files, the session stays; --force removes', async () => {
    const a = await spawnIn(repo, { prompt: 'x' });
    writeIn(a.session.cwd, 'work.txt', 'w\n');
    const refused = await cli('sessions', 'close', a.id, '--remove-worktree');
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining('uncommitted file') });
    expect(host!.registry.get(a.id)).toBeDefined();
    expect(existsSync(join(a.session.cwd, 'work.txt'))).toBe(true);
    const forced = await cli('sessions', 'close', a.id, '--remove-worktree', '--force');
    expect(forced).toMatchObject({ code: 0, out: `removed ${a.session.cwd}\n` });
    expect(host!.registry.get(a.id)).toBeUndefined();
    expect(git(repo, 'branch', '--list', 'claude/x').trim()).toBe('');
  });

  it("runs the repository's set-up in the tab before the agent, and a failing one keeps the agent from starting", async () => {
    writeIn(repo, '.termio/worktree.json', JSON.stringify({ copy: ['.env', 'missing.txt'], run: ['echo ran > setup-marker'] }));
    git(repo, 'add', '.termio');
    git(repo, 'commit', '--quiet', '-m', 'set-up');
    writeFileSync(join(repo, '.env'), 'SECRET=1\n');
    writeFileSync(join(repo, '.git', 'info', 'exclude'), '.env\n');
    const ok = await spawnIn(repo, { prompt: 'with setup' });
    await waitFor(() => agentStarts().includes(ok.id), { what: 'the agent started after the set-up' });
    expect(readFileSync(join(ok.session.cwd, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(readFileSync(join(ok.session.cwd, 'setup-marker'), 'utf8')).toBe('ran\n');
    const steps = /copy .*\.env[\s\S]*skip .*missing\.txt[\s\S]*\$ echo ran > setup-marker[\s\S]*set-up done[\s\S]*agent ready/;
    await waitFor(() => steps.test(screen(ok.id)), { what: 'the set-up steps on screen' });

    writeIn(repo, '.termio/worktree.json', JSON.stringify({ run: ['echo failing; exit 3'] }));
    git(repo, 'commit', '--quiet', '-am', 'failing set-up');
    const bad = await spawnIn(repo, { prompt: 'failing setup' });
    await waitFor(() => host!.registry.get(bad.id)?.session.exited, { what: 'the set-up to fail' });
    expect(host!.registry.get(bad.id)!.session.exited?.exitCode).toBe(3);
    await waitFor(
      () => screen(bad.id).replace(/\s+/g, ' ').includes('the worktree set-up failed: "echo failing; exit 3" exited with status 3; the agent was not started'),
      { what: 'the failure on screen' },
    );
    expect(agentStarts()).not.toContain(bad.id);
  });

  it('resumes a worktree session in its worktree after a restart', async () => {
    const a = await spawnIn(repo, { prompt: 'Survive a restart' });
    await waitFor(() => agentStarts().includes(a.id), { what: 'the agent started' });
    await host!.dispose();
    host = await startHostHere();
    for (const w of host.savedWindows()) await host.restoreWindow(w);
    const back = host.registry.get(a.id);
    expect(back?.cwd).toBe(a.session.worktree!.path);
    await waitFor(() => agentStarts().filter((id) => id === a.id).length === 2, { what: 'the agent started again' });
    expect(
      agentRuns()
        .filter(([id]) => id === a.id)
        .map(([, cwd]) => cwd),
    ).toEqual([a.session.cwd, a.session.cwd]);
    const listed = await ask('sessions.list', {});
    const { path, branch, base } = a.session.worktree!;
    expect(listed.ok && listed.result.sessions.find((s) => s.id === a.id)?.worktree).toMatchObject({ path, branch, base });
  });

  it("refuses to rebase a worktree in the middle of the user's own rebase, and leaves that rebase to finish", async () => {
    const a = await spawnIn(repo, { prompt: 'Three steps' });
    for (const n of [1, 2, 3]) commitIn(a.session.cwd, `step ${n}`, { [`step${n}.txt`]: `${n}\n` });
    commitIn(repo, 'base moved', { 'base.txt': 'b\n' });
    startUsersRebase(a.session.cwd);
    expect(rebaseInProgress(a.session.cwd)).toBe(true);
    const refused = await cli('sessions', 'rebase', a.id);
    expect(refused).toMatchObject({
      code: 1,
      err: expect.stringContaining(`${a.session.cwd} is in the middle of a rebase: finish it (--continue) or abort it (--abort) there before rebasing`),
    });
    // The user's rebase is still there and finishes: step 3 squashed into step 2.
    expect(rebaseInProgress(a.session.cwd)).toBe(true);
    continueUsersRebase(a.session.cwd);
    expect(git(a.session.cwd, 'log', '--format=%s', 'main..HEAD').trim().split('\n')).toEqual(['step 2', 'step 1']);
    // With the user's rebase over, Termio's goes ahead.
    expect(await cli('sessions', 'rebase', a.id)).toMatchObject({ code: 0, out: `rebased ${a.session.worktree!.branch} on main\n` });
  });

  it('refuses to merge into a base branch that is being rebased in its checkout, so the merge is never lost', async () => {
    const a = await spawnIn(repo, { prompt: 'Feature' });
    commitIn(a.session.cwd, 'feature', { 'feature.txt': 'f\n' });
    for (const n of [1, 2, 3]) commitIn(repo, `main ${n}`, { [`main${n}.txt`]: `${n}\n` });
    startUsersRebase(repo);
    const mainBefore = git(repo, 'rev-parse', 'refs/heads/main').trim();
    const refused = await cli('sessions', 'merge', a.id);
    expect(refused).toMatchObject({
      code: 1,
      err: expect.stringContaining(`${repo} is in the middle of a rebase on main: finish it (--continue) or abort it (--abort) there before merging`),
    });
    expect(git(repo, 'rev-parse', 'refs/heads/main').trim()).toBe(mainBefore);
    continueUsersRebase(repo);
    expect(git(repo, 'log', '--format=%s', '-2').trim().split('\n')).toEqual(['main 2', 'main 1']);
    expect(await cli('sessions', 'merge', a.id)).toMatchObject({ code: 0, out: expect.stringContaining(`merged ${a.session.worktree!.branch} into main`) });
  });

  it('refuses bad input in the CLI with a message and creates nothing', async () => {
    const notRepo = join(home, 'plain');
    mkdirSync(notRepo);
    const r1 = await cli('sessions', 'spawn', '--agent', 'claude', '--cwd', notRepo, '--worktree');
    expect(r1).toMatchObject({ code: 1, err: `termio: '${notRepo}' is not in a git repository\n` });
    const r2 = await cli('sessions', 'spawn', '--agent', 'claude', '--worktree', '--branch', 'no spaces');
    expect(r2).toMatchObject({ code: 1, err: expect.stringContaining("'no spaces' is not a valid branch name") });
    writeIn(repo, 'README.md', 'dirty\n');
    const r3 = await cli('sessions', 'spawn', '--agent', 'claude', '--worktree', '--json');
    expect(JSON.parse(r3.out)).toMatchObject({ ok: false, code: 'worktreeRefused', message: expect.stringContaining('has uncommitted changes') });
    expect(await cli('sessions', 'spawn', '--branch', 'x')).toMatchObject({ code: 2, err: expect.stringContaining('--branch and --base go with --worktree') });
    expect(host!.registry.size).toBe(0);
    expect(git(repo, 'branch', '--list').trim()).toBe('* main');
    expect(existsSync(`${repo}.worktrees`)).toBe(false);
  });
});
