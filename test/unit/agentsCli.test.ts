// `termio agents list|validate`, without the GUI: the command handler with captured output (vitest
// cannot require() the lazily registered .ts module through main), and the real bin/termio
// (needs `npm run build`, which npm test runs first).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/app/cli/agents';
import type { CliIo } from '../../src/app/cli/cliIo';
import { NOT_MANIFESTS } from '../../src/app/services/catalog';

const REPO = resolve(__dirname, '..', '..');

let root: string;
let home: string;
let userDir: string;
let binDir: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'termio-agents-cli-'));
  home = join(root, 'home');
  userDir = join(home, '.termio', 'config', 'agents');
  binDir = join(root, 'bin');
  mkdirSync(userDir, { recursive: true });
  mkdirSync(binDir);
  // A login shell that keeps the PATH it was given (a real one would read the user's dotfiles).
  const shell = join(root, 'login-shell');
  writeFileSync(shell, '#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ "$1" = -c ]; then exec /bin/sh -c "$2"; fi\n  shift\ndone\n');
  chmodSync(shell, 0o755);
  env = { HOME: home, SHELL: shell, PATH: binDir };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

async function termio(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), env, cwd: root };
  const code = await run(args, io);
  return { code, out, err };
}

/** A program on PATH; `answer` is what it prints (to `--version`, `--help`, anything). */
function install(command: string, answer = ''): void {
  writeFileSync(join(binDir, command), `#!/bin/sh\necho "${answer}"\n`);
  chmodSync(join(binDir, command), 0o755);
}

const label = (name: string) => `~/.termio/config/agents/${name}`;

describe('termio agents list', () => {
  it('--json lists every agent in picker order with availability, resume family, status channels and problems', async () => {
    install('mine');
    install('claude', '2.1.332 (Claude Code)');
    writeFileSync(join(userDir, 'mine.json'), JSON.stringify({ id: 'mine', name: 'Mine', command: 'mine', order: 1, extra: true }));
    writeFileSync(join(userDir, 'broken.json'), '{"id": "broken"');
    const r = await termio('list', '--json');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const data = JSON.parse(r.out) as { agents: Record<string, unknown>[]; problems: Record<string, unknown>[] };
    expect(data.agents[0]).toEqual({
      id: 'mine',
      name: 'Mine',
      source: 'user',
      file: join(userDir, 'mine.json'),
      installed: true,
      identity: { state: 'unchecked' },
      command: 'mine',
      resolvedCommand: join(binDir, 'mine'),
      install: null,
      resumeFamily: 'none',
      statusChannels: [],
      disabled: [],
      wire: 'mine',
      skills: null,
      order: 1,
      icon: join(REPO, 'assets', 'icons', 'agent.svg'),
      overrides: null,
      warnings: [`${label('mine.json')}: extra: unknown field, ignored by this version of Termio`],
      errors: [],
    });
    expect(data.agents.find((a) => a.id === 'claude')).toMatchObject({
      installed: true,
      identity: { state: 'matched', answer: '2.1.332 (Claude Code)' },
      resumeFamily: 'pinned',
      statusChannels: ['hooks', 'title'],
      source: 'bundled',
    });
    expect(data.agents.find((a) => a.id === 'codex')).toMatchObject({
      installed: false,
      install: 'https://github.com/openai/codex',
      resumeFamily: 'discovered',
    });
    expect(data.agents.find((a) => a.id === 'terminal')).toMatchObject({ installed: true, command: null, resolvedCommand: env.SHELL });
    // An agent the release matrix never runs (npm has no Cursor) is not verified here.
    expect(data.agents.find((a) => a.id === 'cursor')).toMatchObject({ verified: null });
    // Verification is said of bundled agents only: not of the user's, not of the plain Terminal.
    expect(data.agents.filter((a) => 'verified' in a).map((a) => a.id)).toEqual(
      data.agents.filter((a) => a.source === 'bundled' && a.id !== 'terminal').map((a) => a.id),
    );
    expect(data.agents.map((a) => a.id).at(-1)).toBe('terminal');
    expect(data.problems).toEqual([
      {
        file: join(userDir, 'broken.json'),
        source: 'user',
        errors: [`${label('broken.json')}: not valid JSON: expected "," or "}", found the end of the file (line 1, column 16)`],
        warnings: [],
      },
    ]);
  });

  it('prints a table and then every problem', async () => {
    writeFileSync(join(userDir, 'codex.json'), JSON.stringify({ id: 'codex', name: 'My Codex', command: 'codex', order: 0, titleStatus: {} }));
    writeFileSync(join(userDir, 'bad.json'), JSON.stringify({ id: 'bad', name: 'Bad', command: 'bad', resume: { resume: '--resume' } }));
    const r = await termio('list');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +INSTALLED +RESUME +STATUS +OFF +VERIFIED +SOURCE$/);
    expect(lines[1]).toMatch(/^codex +My Codex +no +none +title +- +- +user, overrides bundled: ~\/\.termio\/config\/agents\/codex\.json$/);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^claude +Claude Code +no \(https:\/\/github\.com\/anthropics\/claude-code\) +pinned +hooks,title +- +(verified on|failed checks on)\b.* +bundled: agents\/claude\.json$/,
      ),
    );
    expect(r.out.slice(r.out.indexOf('\nProblems:\n'))).toBe(
      [
        '',
        'Problems:',
        `  ${label('codex.json')}: titleStatus: declares no rules`,
        `  ${label('bad.json')}: resume: cannot tell which conversation to resume: add "create", "storeRoot" and "storeMatch" (pinned id), "discover" (discovered id), or "hooks.conversation" (the id arrives in a hook payload)`,
        `  ${label('bad.json')}: resume.resume: must contain {id}, got "--resume"`,
        '',
      ].join('\n'),
    );
  });

  it('shows a command that answers as another program as such, in the table and in --json', async () => {
    // What npm's @vibe-kit/grok-cli answers to --version; Grok Build says "grok <release> (<commit>)".
    install('grok', '1.0.1');
    install('copilot', 'GitHub Copilot CLI 1.0.102.');
    const json = JSON.parse((await termio('list', '--json')).out) as { agents: Record<string, unknown>[] };
    expect(json.agents.find((a) => a.id === 'grok')).toMatchObject({
      installed: false,
      resolvedCommand: join(binDir, 'grok'),
      identity: { state: 'other', answer: '1.0.1' },
    });
    expect(json.agents.find((a) => a.id === 'copilot')).toMatchObject({ installed: true, identity: { state: 'matched' } });
    const lines = (await termio('list')).out.split('\n');
    expect(lines.find((l) => l.startsWith('grok '))).toMatch(
      new RegExp(
        `^grok +Grok +no: another program named grok at ${join(binDir, 'grok').replaceAll('/', '\\/')} \\(https://x\\.ai/cli\\) +pinned +hooks +- +not verified here +bundled: agents/grok\\.json$`,
      ),
    );
    expect(lines.find((l) => l.startsWith('copilot '))).toMatch(/^copilot +GitHub Copilot +yes +/);
  });

  it('rejects unknown arguments and verbs with exit 2', async () => {
    expect(await termio('list', '--yaml')).toMatchObject({ code: 2, err: expect.stringContaining("termio agents list: Unknown option '--yaml'") });
    expect(await termio('frob')).toMatchObject({ code: 2, err: expect.stringContaining("termio agents: unknown command 'frob'") });
    expect(await termio()).toMatchObject({ code: 2, out: expect.stringContaining('termio agents validate PATH...') });
    expect(await termio('--help')).toMatchObject({ code: 0, out: expect.stringContaining('termio agents list [--json]') });
  });
});

describe('termio agents validate', () => {
  it('exits 0 for valid files (warnings allowed) and 1 with every message otherwise', async () => {
    writeFileSync(join(root, 'ok.json'), JSON.stringify({ id: 'ok', name: 'Ok', command: 'ok', future: 1 }));
    writeFileSync(
      join(root, 'bad.json'),
      JSON.stringify({
        id: 'B d',
        name: 'Bad',
        command: 'bad',
        hooks: { type: 'json', dialect: 'x', file: '~/x.json', events: [{ on: 'Stop', state: 'finished' }] },
      }),
    );
    expect(await termio('validate', 'ok.json')).toEqual({
      code: 0,
      out: 'warning: ok.json: future: unknown field, ignored by this version of Termio\nok.json: ok (ok)\n',
      err: '',
    });
    expect(await termio('validate', 'ok.json', 'bad.json', 'missing.json')).toEqual({
      code: 1,
      out: [
        'warning: ok.json: future: unknown field, ignored by this version of Termio',
        'ok.json: ok (ok)',
        'error: bad.json: id: expected a stable id that is a safe file name: letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. "my-agent"), got "B d"',
        'error: bad.json: hooks.events[0].state: expected "working", "attention", "done" or "idle", got "finished"',
        'error: missing.json: does not exist',
        '',
      ].join('\n'),
      err: '',
    });
  });

  it('refuses a status pattern that nests a repeat in a repeat, or needs backtracking, saying which and why', async () => {
    writeFileSync(
      join(root, 'slow.json'),
      JSON.stringify({
        id: 'slow',
        name: 'Slow',
        command: 'slow',
        titleStatus: { working: ['^(a+)+$', '^✦ (?:\\w+\\s*)*$', '^(a|b)+$'] },
        status: { attention: ['(?=Allow)Allow', '(x)\\1'] },
      }),
    );
    const r = await termio('validate', 'slow.json');
    expect(r.code).toBe(1);
    expect(r.out.split('\n').filter(Boolean)).toEqual([
      'error: slow.json: titleStatus.working[0]: "(a+)+" repeats a group that itself repeats (a nested quantifier): a backtracking engine can take exponential time on it; repeat once, e.g. "(a+)+" as "a+"',
      'error: slow.json: titleStatus.working[1]: "(?:\\\\w+\\\\s*)*" repeats a group that itself repeats (a nested quantifier): a backtracking engine can take exponential time on it; repeat once, e.g. "(a+)+" as "a+"',
      expect.stringMatching(
        /^error: slow\.json: status\.attention\[0\]: not a valid regular expression: .*`\(\?=`.*lookaround and backreferences are not supported: status patterns run in linear time\)$/,
      ),
      expect.stringMatching(
        /^error: slow\.json: status\.attention\[1\]: not a valid regular expression: .*`\\1`.*lookaround and backreferences are not supported/,
      ),
    ]);
  });

  it('needs at least one file', async () => {
    expect(await termio('validate')).toMatchObject({ code: 2, err: expect.stringContaining('give at least one manifest file') });
  });

  it('validates every manifest in a folder, one line per file', async () => {
    const dir = join(root, 'folder');
    mkdirSync(dir);
    writeFileSync(join(dir, 'b-ok.json'), JSON.stringify({ id: 'ok', name: 'Ok', command: 'ok', future: 1, icon: { asset: 'ok-mark' } }));
    writeFileSync(join(dir, 'a-bad.json'), JSON.stringify({ id: 'bad', name: 'Bad', command: '-x' }));
    writeFileSync(join(dir, 'c-plain.json'), JSON.stringify({ id: 'plain', name: 'Plain', command: 'plain' }));
    writeFileSync(join(dir, '.hidden.json'), '[');
    writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
    const r = await termio('validate', 'folder');
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    expect(r.out.split('\n')).toEqual([
      'folder/a-bad.json: error: command: expected a program or a command line, got the flag "-x"',
      'folder/b-ok.json: ok (ok); warnings: icon.asset: unknown field, ignored by this version of Termio; future: unknown field, ignored by this version of Termio; icon: no icon kind this version draws (expected one of "vector", "path" or "symbol"); the generic mark is shown; this agent loads without icon',
      'folder/c-plain.json: ok (plain)',
      '',
    ]);
    rmSync(join(dir, 'a-bad.json'));
    expect(await termio('validate', 'folder')).toMatchObject({ code: 0 });
  });
});

describe('termio agents validate, every shape ATP allows', () => {
  it('accepts command lines, no command, resume "none", icon.asset, camelCase ids, installURL and named dialects', async () => {
    const r = await termio('validate', join(REPO, 'test', 'fixtures', 'manifests', 'atp-shapes'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const l of lines) expect(l).toMatch(/: ok \(/);
  });
});

describe('bin/termio agents (the built CLI)', () => {
  const bin = join(REPO, 'bin', 'termio');
  it('validates the bundled manifests and refuses a broken one', () => {
    const bundled = readdirSync(join(REPO, 'agents'))
      .filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f))
      .map((f) => join('agents', f));
    const ok = spawnSync(bin, ['agents', 'validate', ...bundled], { cwd: REPO, encoding: 'utf8', env: { ...env, PATH: process.env.PATH } });
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(ok.stdout.trim().split('\n')).toHaveLength(bundled.length);
    writeFileSync(join(root, 'x.json'), '[]');
    const bad = spawnSync(bin, ['agents', 'validate', 'x.json'], { cwd: root, encoding: 'utf8', env: { ...env, PATH: process.env.PATH } });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toBe('error: x.json: expected a JSON object at the top level, got a list\n');
  });

  it('lists agents as JSON without the app running', () => {
    const r = spawnSync(bin, ['agents', 'list', '--json'], { encoding: 'utf8', env: { ...env, PATH: `${binDir}:${process.env.PATH}` } });
    expect(r.status).toBe(0);
    const ids = (JSON.parse(r.stdout) as { agents: { id: string }[] }).agents.map((a) => a.id);
    expect(ids).toContain('claude');
    expect(ids.at(-1)).toBe('terminal');
  });
});
