// Fan-out through the real host and the real termio command: three fake agents (claude, codex,
// gemini stand-ins that record every line typed into them) in real ptys, a real temporary git
// repository. One prompt makes three worktrees on three branches and reaches each agent; merging
// one member leaves the others exactly as they were; the repository's test command runs per
// member; the group survives a host restart; bad input says what is wrong and starts nothing, and
// a member that cannot start after others did has those undone through the ordinary close.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import type { FanoutGroup } from '../../../src/protocol/control';
import { termio } from '../../helpers/controlHost';
import { commitIn, git, makeRepo, writeIn } from '../../helpers/gitRepo';
import { waitFor } from '../../helpers/waitFor';
import { enterTestHome, leaveTestHome, startHostHere } from '../../helpers/testHome';

const FAKE = resolve(__dirname, '..', '..', 'fakes', 'fake-agent.mjs');
let home: string;
let repo: string;
let host: Host | null;

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-fanout-')));
  // The repository names a test command: it passes where the agent's work made hello.txt.
  repo = makeRepo({ 'README.md': '# demo\n', '.termio/worktree.json': '{ "test": "test -f hello.txt && echo hello found" }\n' }, home);
  const bin = join(home, 'bin');
  mkdirSync(bin);
  // Each stand-in records the lines typed into it in a file named after its session.
  for (const agent of ['claude', 'codex', 'gemini'])
    writeFileSync(join(bin, agent), `#!/bin/sh\nFAKE_AGENT_INPUTS="$HOME/inputs-$TERMIO_SESSION.log" exec "${process.execPath}" "${FAKE}" ${agent} "$@"\n`, {
      mode: 0o755,
    });
  enterTestHome(home, bin);
  host = await startHostHere();
});

afterEach(async () => {
  await host?.dispose();
  host = null;
  leaveTestHome();
  rmSync(home, { recursive: true, force: true });
});

/** The real bin/termio (built dist) in `dir` (default: the repository). */
async function cli(argv: string[], dir = repo): Promise<{ code: number; out: string; err: string }> {
  const r = await termio(argv, process.env, dir);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function fanout(agents: string, prompt: string): Promise<FanoutGroup> {
  const r = await cli(['sessions', 'fanout', '--agents', agents, '--prompt', prompt, '--json']);
  expect(r.err).toBe('');
  return (JSON.parse(r.out) as { group: FanoutGroup }).group;
}

const typed = (sessionId: string): string[] => {
  const f = join(home, `inputs-${sessionId}.log`);
  return existsSync(f)
    ? readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string)
    : [];
};
const branches = () => git(repo, 'branch', '--format=%(refname:short)').trim().split('\n').sort();
const worktreeFolders = () =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));

/** What a member holds, as git and the file system say: compared before and after another's merge. */
const holding = (path: string, branch: string) => ({
  head: git(repo, 'rev-parse', `refs/heads/${branch}`).trim(),
  status: git(path, 'status', '--porcelain', '--untracked-files=all'),
  files: git(path, 'ls-files', '--cached', '--others', '--exclude-standard')
    .trim()
    .split('\n')
    .map((f) => [f, readFileSync(join(path, f), 'utf8')]),
});

describe('sessions fanout', () => {
  it('starts one prompt in three worktrees on three branches, and merging one leaves the others as they were', async () => {
    const g = await fanout('claude,codex,gemini', 'Add a greeting');
    expect(g).toMatchObject({ repo, base: 'main', prompt: 'Add a greeting', merged: null });
    expect(g.members.map((m) => [m.agent, m.branch, m.path])).toEqual(
      ['claude', 'codex', 'gemini'].map((a) => [a, `${a}/add-a-greeting`, `${repo}.worktrees/${a}/add-a-greeting`]),
    );
    expect(branches()).toEqual(['claude/add-a-greeting', 'codex/add-a-greeting', 'gemini/add-a-greeting', 'main']);
    expect(worktreeFolders()).toEqual([repo, ...g.members.map((m) => m.path)]);
    for (const m of g.members) {
      expect(host!.registry.get(m.sessionId)?.cwd).toBe(m.path);
      await waitFor(() => typed(m.sessionId).includes('Add a greeting'), { what: `the prompt typed into ${m.agent}` });
    }
    const [claude, codex, gemini] = g.members as [(typeof g.members)[0], (typeof g.members)[0], (typeof g.members)[0]];
    // Each agent's work: claude commits hello.txt, codex leaves an edit uncommitted, gemini commits another file.
    commitIn(claude.path, 'greet', { 'hello.txt': 'hello\n' });
    writeIn(codex.path, 'README.md', '# demo, edited\n');
    commitIn(gemini.path, 'greet differently', { 'greeting.md': 'hi\n', 'hello.txt': 'hi there\n' });

    const tested = await cli(['sessions', 'fanout', 'test', g.id, '--member', 'codex']);
    expect(tested).toMatchObject({ code: 1, out: expect.stringContaining('codex/add-a-greeting: failed (test -f hello.txt && echo hello found)') });
    expect(await cli(['sessions', 'fanout', 'test', g.id.slice(0, 4), '--member', claude.sessionId.slice(0, 8)])).toMatchObject({
      code: 0,
      out: 'claude/add-a-greeting: passed (test -f hello.txt && echo hello found)\nhello found\n',
    });
    const shown = JSON.parse((await cli(['sessions', 'fanout', 'show', g.id, '--json'])).out) as {
      members: Array<Record<string, unknown>>;
      testCommand: string;
    };
    expect(shown.testCommand).toBe('test -f hello.txt && echo hello found');
    expect(shown.members.map((m) => [m.branch, m.files, m.added, m.removed, m.uncommitted, (m.test as { passed: boolean } | null)?.passed ?? null])).toEqual([
      ['claude/add-a-greeting', 1, 1, 0, 0, true],
      ['codex/add-a-greeting', 1, 1, 1, 1, false],
      ['gemini/add-a-greeting', 2, 2, 0, 0, null],
    ]);

    const others = [codex, gemini].map((m) => ({ m, before: holding(m.path, m.branch) }));
    const merged = await cli(['sessions', 'fanout', 'merge', g.id, '--member', 'claude/add-a-greeting']);
    expect(merged).toMatchObject({
      code: 0,
      out: 'merged claude/add-a-greeting into main (fast-forward)\nKept as they were: codex/add-a-greeting, gemini/add-a-greeting\n',
    });
    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hello\n');
    for (const { m, before } of others) {
      expect(holding(m.path, m.branch)).toEqual(before);
      expect(host!.registry.get(m.sessionId)?.session.exited).toBeNull();
    }
    expect(branches()).toEqual(['claude/add-a-greeting', 'codex/add-a-greeting', 'gemini/add-a-greeting', 'main']);
    expect(worktreeFolders()).toEqual([repo, ...g.members.map((m) => m.path)]);
    const text = await cli(['sessions', 'fanout', 'show', g.id]);
    // One line per member (its state is whatever the fake agent reached: left out here).
    const rows = text.out.split('\n').map((l) => l.replace(/ {2}(working|attention|done|idle) {2}/, '  STATE  '));
    expect(rows).toEqual([
      `${g.id}  3 agents  ${repo} (main)  Add a greeting  merged claude/add-a-greeting`,
      '  claude/add-a-greeting  claude  STATE  no changes  tests passed  merged',
      '  codex/add-a-greeting  codex  STATE  1 file  +1 −1  1 uncommitted  tests failed (exit 1)',
      '  gemini/add-a-greeting  gemini  STATE  2 files  +2 −0',
      'Test command: test -f hello.txt && echo hello found',
      '',
    ]);
    const listed = JSON.parse((await cli(['sessions', 'fanout', 'list', '--json'])).out) as { groups: FanoutGroup[] };
    expect(listed.groups.map((x) => [x.id, x.merged])).toEqual([[g.id, 'claude/add-a-greeting']]);

    // An uncommitted member refuses the merge until asked to commit first; a conflict changes nothing.
    expect(await cli(['sessions', 'fanout', 'merge', g.id, '--member', 'codex'])).toMatchObject({
      code: 1,
      err: `termio: ${codex.path} has 1 uncommitted file: commit them first\n`,
    });
    const mainBefore = git(repo, 'rev-parse', 'main').trim();
    expect(await cli(['sessions', 'fanout', 'merge', g.id, '--member', 'gemini'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('merging gemini/add-a-greeting into main conflicts in 1 file: hello.txt; nothing was changed'),
    });
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(mainBefore);
  });

  it('keeps the group across a host restart', async () => {
    const g = await fanout('claude,codex', 'Survive a restart');
    for (const m of g.members) await waitFor(() => typed(m.sessionId).includes('Survive a restart'), { what: `the prompt typed into ${m.agent}` });
    await host!.dispose();
    host = await startHostHere();
    for (const w of host.savedWindows()) await host.restoreWindow(w);
    const shown = await cli(['sessions', 'fanout', 'show', g.id, '--json']);
    const r = JSON.parse(shown.out) as { group: FanoutGroup; members: Array<{ branch: string; sessionId: string; present: boolean; state: string }> };
    expect(r.group).toEqual(g);
    expect(r.members.map((m) => [m.branch, m.present])).toEqual([
      ['claude/survive-a-restart', true],
      ['codex/survive-a-restart', true],
    ]);
    for (const m of g.members) expect(host.registry.get(m.sessionId)?.cwd).toBe(m.path);
  });

  it('gives a repeated agent a branch of its own', async () => {
    const g = await fanout('claude,claude', 'Same agent twice');
    expect(g.members.map((m) => m.branch)).toEqual(['claude/same-agent-twice', 'claude/same-agent-twice-2']);
    expect(new Set(g.members.map((m) => m.sessionId)).size).toBe(2);
    expect(await cli(['sessions', 'fanout', 'test', g.id, '--member', 'claude'])).toMatchObject({
      code: 1,
      err: `termio: 'claude' matches 2 members of fan-out ${g.id}: name one by its branch (claude/same-agent-twice, claude/same-agent-twice-2)\n`,
    });
  });

  it('refuses bad input with what was wrong, and starts nothing', async () => {
    const nothingMade = () => {
      expect(branches()).toEqual(['main']);
      expect(worktreeFolders()).toEqual([repo]);
      expect(host!.registry.list()).toEqual([]);
    };
    const unknown = await cli(['sessions', 'fanout', '--agents', 'claude,nope', '--prompt', 'x']);
    expect(unknown).toMatchObject({ code: 1, err: "termio: sessions.fanout: nothing was started: no agent with id 'nope' (see termio agents list)\n" });
    nothingMade();
    const plain = join(home, 'plain');
    mkdirSync(plain);
    expect(await cli(['sessions', 'fanout', '--agents', 'claude', '--prompt', 'x'], plain)).toMatchObject({
      code: 1,
      err: `termio: sessions.fanout: nothing was started: '${plain}' is not in a git repository\n`,
    });
    writeIn(repo, 'README.md', '# changed but not committed\n');
    expect(await cli(['sessions', 'fanout', '--agents', 'claude,codex', '--prompt', 'x'])).toMatchObject({
      code: 1,
      err: expect.stringContaining(`termio: sessions.fanout: nothing was started: ${repo} has uncommitted changes (1 file: README.md)`),
    });
    nothingMade();
    expect(await cli(['sessions', 'fanout', '--agents', 'claude,', '--prompt', 'x'])).toMatchObject({
      code: 2,
      err: expect.stringContaining("--agents has an empty name in 'claude,'"),
    });
    expect(await cli(['sessions', 'fanout', '--agents', 'claude'])).toMatchObject({ code: 2, err: expect.stringContaining('missing --prompt TEXT') });
    expect(await cli(['sessions', 'fanout', 'show', 'zzzz'])).toMatchObject({ code: 1, err: "termio: no fan-out group 'zzzz' (known: none)\n" });
    nothingMade();
  });

  it('undoes the members already started when a later one cannot start, through the ordinary close', async () => {
    // Codex's worktree would go under <repo>.worktrees/codex/, which is a file: its start fails
    // after Claude's has been made.
    mkdirSync(`${repo}.worktrees`);
    writeFileSync(`${repo}.worktrees/codex`, 'in the way\n');
    const r = await cli(['sessions', 'fanout', '--agents', 'claude,codex', '--prompt', 'Half way']);
    expect(r).toMatchObject({
      code: 1,
      err: `termio: sessions.fanout: codex did not start: the worktree root cannot be used: ${repo}.worktrees/codex is not a folder; of the members started before it: closed claude/half-way and removed its worktree\n`,
    });
    expect(branches()).toEqual(['main']);
    expect(worktreeFolders()).toEqual([repo]);
    await waitFor(() => host!.registry.list().length === 0, { what: "claude's session closed" });
    expect(JSON.parse((await cli(['sessions', 'fanout', 'list', '--json'])).out)).toMatchObject({ groups: [] });
  });
});
