// Knowing the program before trusting it, over real files and real processes: a manifest's
// `identify` runs the program found on PATH and matches its answer; a program of the same name that
// answers otherwise is another program (not installed, not started); answers are asked once per
// program file; the run is bounded in output and time and leaves no process behind. Also what
// agents/verified.json marks: verified releases for bundled agents, "not verified here" for the
// rest, nothing for the user's, and nothing lost to a missing or broken file.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentCatalog, DEFAULT_BUNDLED_AGENTS_DIR, NOT_MANIFESTS, type CatalogOptions } from '../../../src/app/services/catalog';
import type { Logger } from '../../../src/app/services/log';
import { askProgram, identityOf, IDENTIFY_MAX_BYTES, unavailableNote } from '../../../src/app/services/programIdentity';
import { parseManifest } from '../../../src/protocol/manifestParse';
import { parseVerifiedFile, VERIFIED_FILE_NAME, verifiedNote } from '../../../src/protocol/verified';
import { waitFor } from '../../helpers/waitFor';

let root: string;
let bundledDir: string;
let userDir: string;
let binDir: string;
let env: NodeJS.ProcessEnv;
let logs: string[];
const open: AgentCatalog[] = [];

const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (m, d) => logs.push(`${m} ${JSON.stringify(d ?? {})}`),
  error: (m, d) => logs.push(`${m} ${JSON.stringify(d ?? {})}`),
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'termio-identity-'));
  bundledDir = join(root, 'agents');
  userDir = join(root, 'home', '.termio', 'config', 'agents');
  binDir = join(root, 'bin');
  for (const d of [bundledDir, userDir, binDir]) mkdirSync(d, { recursive: true });
  env = { HOME: join(root, 'home'), TERMIO_HOME: join(root, 'home', '.termio'), SHELL: '/bin/sh', PATH: binDir };
  logs = [];
  bundled('grok', { identify: { match: '^grok \\d+\\.\\d+\\S* \\([0-9a-f]{7,}\\)' } });
});

afterEach(async () => {
  for (const c of open.splice(0)) await c.dispose();
  rmSync(root, { recursive: true, force: true });
});

function bundled(id: string, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(bundledDir, `${id}.json`), JSON.stringify({ id, name: id[0]!.toUpperCase() + id.slice(1), command: id, ...extra }));
}

/** A program on PATH: a shell script body (each run appends a line to <name>.runs). */
function program(name: string, body: string): string {
  const file = join(binDir, name);
  writeFileSync(file, `#!/bin/sh\necho run >> "${file}.runs"\n${body}\n`, { mode: 0o755 });
  return file;
}

const runs = (file: string) => (existsSync(`${file}.runs`) ? readFileSync(`${file}.runs`, 'utf8').split('\n').filter(Boolean).length : 0);

async function catalog(opts: Partial<CatalogOptions> = {}): Promise<AgentCatalog> {
  const c = await AgentCatalog.create({ env, path: binDir, bundledDir, userDir, watch: false, logger, ...opts });
  open.push(c);
  return c;
}

describe('identify', () => {
  it('takes a program whose answer matches for the agent, and one that answers otherwise for another program', async () => {
    const grok = program('grok', 'echo "1.0.1"');
    const c = await catalog();
    await c.identified();
    expect(c.get('grok')).toMatchObject({ installed: false, resolvedCommand: grok, identity: { state: 'other', answer: '1.0.1' } });
    expect(unavailableNote(c.get('grok')!)).toBe('another program named grok');

    // The real one installed over it (another file): asked again, and now it is the agent.
    program('grok', 'echo "grok 1.0.3 (1a29d5bc12d4) [stable]"; echo "a warning on stderr" >&2');
    c.refreshAvailability();
    await c.identified();
    expect(c.get('grok')).toMatchObject({
      installed: true,
      identity: { state: 'matched', answer: 'grok 1.0.3 (1a29d5bc12d4) [stable] | a warning on stderr' },
    });
    expect(unavailableNote(c.get('grok')!)).toBeNull();
  });

  it('matches stdout and stderr together, escape sequences removed, whatever the exit status', async () => {
    bundled('claude', { identify: { args: ['--help'], match: '^Claude Code - ' } });
    program('claude', '[ "$1" = --help ] || exit 3\nprintf "Usage: claude\\n\\033[1mClaude Code\\033[0m - starts a session\\n" >&2\nexit 1');
    const c = await catalog();
    await c.identified();
    expect(c.get('claude')).toMatchObject({ installed: true, identity: { state: 'matched' } });
  });

  it('asks each program file once, however often availability is refreshed', async () => {
    const grok = program('grok', 'echo "grok 1.0.3 (1a29d5bc12d4)"');
    const c = await catalog();
    await c.identified();
    for (let i = 0; i < 3; i++) {
      c.refreshAvailability();
      await c.identified();
    }
    expect(c.get('grok')!.identity.state).toBe('matched');
    expect(runs(grok)).toBe(1);
  });

  it('keeps answers for the next process: another catalog over the same state folder asks nothing', async () => {
    const grok = program('grok', 'echo "grok 1.0.3 (1a29d5bc12d4)"');
    await (await catalog()).identified();
    const next = await catalog();
    expect(next.get('grok')!.identity).toEqual({ state: 'matched', answer: 'grok 1.0.3 (1a29d5bc12d4)' });
    expect(runs(grok)).toBe(1);
    // Updated since: the kept answer is for another file, so it is asked again.
    program('grok', 'echo "grok 1.0.4 (2b3c4d5e6f70)"');
    const after = await catalog();
    await after.identified();
    expect(after.get('grok')!.identity).toEqual({ state: 'matched', answer: 'grok 1.0.4 (2b3c4d5e6f70)' });
  });

  it('waits for one agent’s answer alone when asked for that agent (a session starting)', async () => {
    bundled('slow', { identify: { match: 'slow' } });
    const flag = join(root, 'go');
    program('slow', `while [ ! -f "${flag}" ]; do /bin/sleep 0.05; done; echo slow`);
    program('grok', 'echo "1.0.1"');
    const c = await catalog();
    await c.identified('grok');
    expect(c.get('grok')!.identity.state).toBe('other');
    expect(c.get('slow')!.identity.state).toBe('checking');
    writeFileSync(flag, '');
    await c.identified();
    expect(c.get('slow')!.identity.state).toBe('matched');
  });

  it('tells listeners when an answer changes an agent, and only then', async () => {
    program('grok', 'echo "1.0.1"');
    const c = await catalog();
    const changes: unknown[] = [];
    c.onChange((e) => changes.push(e));
    await c.identified();
    expect(changes).toEqual([{ files: [] }]);
    c.refreshAvailability();
    await c.identified();
    expect(changes).toHaveLength(1);
  });

  it('does not ask when there is nothing to ask: no rule, not installed, or a user manifest without one', async () => {
    bundled('plain');
    const plain = program('plain', 'echo hello');
    writeFileSync(join(userDir, 'grok.json'), JSON.stringify({ id: 'grok', name: 'My grok', command: 'grok' }));
    const grok = program('grok', 'echo "1.0.1"');
    const c = await catalog();
    await c.identified();
    expect(c.get('plain')).toMatchObject({ installed: true, identity: { state: 'unchecked' } });
    expect(c.get('grok')).toMatchObject({ installed: true, identity: { state: 'unchecked' }, overrides: join(bundledDir, 'grok.json') });
    expect(runs(plain) + runs(grok)).toBe(0);
  });

  it('does not ask the login shell for a command line whose program the shell decides', async () => {
    bundled('wrapped', { command: 'WRAPPED_MODE=1 wrapped --fast', identify: { match: '^wrapped ' } });
    const shell = program('login-shell', 'echo "zsh 5.9"');
    env.SHELL = shell;
    const c = await catalog();
    await c.identified();
    expect(c.get('wrapped')).toMatchObject({ installed: true, resolvedCommand: shell, identity: { state: 'unchecked' } });
    expect(runs(shell)).toBe(0);
  });

  it('starts a program that cannot be run as before: unanswered is not another program', async () => {
    writeFileSync(join(binDir, 'grok'), '#!/nonexistent/interpreter\n', { mode: 0o755 });
    const c = await catalog();
    await c.identified();
    expect(c.get('grok')).toMatchObject({ installed: true, identity: { state: 'unanswered', reason: expect.stringMatching(/^could not run it: /) } });
    expect(unavailableNote(c.get('grok')!)).toBeNull();
    expect(logs).toContainEqual(expect.stringMatching(/^catalog: could not tell what a program is; it starts as before .*"problem":"could not run it: /));
    expect(logs.find((l) => l.includes('could not tell'))).toContain(JSON.stringify(join(binDir, 'grok')));
  });

  it('takes a program that answers nothing for another program', async () => {
    program('grok', 'exit 0');
    const c = await catalog();
    await c.identified();
    expect(c.get('grok')).toMatchObject({ installed: false, identity: { state: 'other', answer: '' } });
  });

  it('reads at most the first IDENTIFY_MAX_BYTES and ends a program that keeps talking', async () => {
    const answer = await askProgram('/bin/sh', ['-c', 'echo "grok 1.0.3 (1a29d5bc12d4)"; exec yes'], process.env);
    expect(answer.ok).toBe(true);
    if (!answer.ok) return;
    expect(answer.text.startsWith('grok 1.0.3 (1a29d5bc12d4)\ny\ny\n')).toBe(true);
    expect(answer.text.length).toBe(IDENTIFY_MAX_BYTES);
  });

  it('gives up on a program that does not answer in time, ending what it started', async () => {
    const pidFile = join(root, 'child.pid');
    const answer = await askProgram('/bin/sh', ['-c', `sleep 600 & echo $! > "${pidFile}"; wait`], process.env, 300);
    expect(answer).toEqual({ ok: false, reason: 'it did not answer within 0.3 s' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(pid), { what: 'the program’s child to be ended' });
  });

  it('ends a program still being asked when the catalog closes', async () => {
    const pidFile = join(root, 'grok.pid');
    program('grok', `echo $$ > "${pidFile}"; exec /bin/sleep 600`);
    const c = await catalog();
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), { what: 'grok to be asked' });
    await c.dispose();
    expect(c.get('grok')!.identity.state).toBe('checking');
    expect(alive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('refuses a manifest whose identify pattern does not compile, naming the field', () => {
    const r = parseManifest(JSON.stringify({ id: 'x', name: 'X', command: 'x', identify: { match: '(unclosed' } }), 'x.json');
    expect(r.manifest).toBeUndefined();
    expect(r.errors).toEqual(['x.json: identify.match: not a valid regular expression: Unterminated group']);
  });
});

describe('a long answer', () => {
  it('is matched whole: a --help whose name line comes first and runs past what a screen rule reads still matches', () => {
    // Qwen Code 0.24's --help: its name on line 3, then about 9 KB of options.
    const help = `Usage: qwen [options] [command]\n\nQwen Code - Launch an interactive CLI\n\n${'  --option   what it does\n'.repeat(400)}`;
    expect(help.length).toBeGreaterThan(8 * 1024);
    expect(identityOf({ args: ['--help'], match: '^Qwen Code\\b' }, { ok: true, text: help })).toMatchObject({ state: 'matched' });
    expect(identityOf({ args: ['--help'], match: '^Grok\\b' }, { ok: true, text: help })).toMatchObject({ state: 'other' });
  });
});

describe('verified here', () => {
  const verified = (agents: Record<string, unknown>) => writeFileSync(join(bundledDir, 'verified.json'), JSON.stringify({ generated: '2026-12-07', agents }));

  it('gives bundled agents the releases the matrix ran, oldest first and split by whether every check passed, and null to the others; nothing to the user’s or the Terminal', async () => {
    bundled('qwen');
    bundled('cursor');
    writeFileSync(join(bundledDir, 'terminal.json'), JSON.stringify({ id: 'terminal', name: 'Terminal', loginShell: true }));
    writeFileSync(join(userDir, 'mine.json'), JSON.stringify({ id: 'mine', name: 'Mine', command: 'mine' }));
    verified({
      qwen: { package: '@qwen-code/qwen-code', releases: { '0.24.10': { launch: 'pass' }, '0.24.4': { launch: 'pass', resume: 'fail', later: 'x' } } },
    });
    const c = await catalog();
    expect(c.get('qwen')!.verified).toEqual({ package: '@qwen-code/qwen-code', releases: ['0.24.10'], failed: ['0.24.4'] });
    expect(c.get('cursor')!.verified).toBeNull();
    expect(c.get('terminal')!.verified).toBeUndefined();
    expect(c.get('mine')!.verified).toBeUndefined();
    expect(verifiedNote(c.get('qwen')!.verified)).toBe('verified on 0.24.10; failed checks on 0.24.4');
    expect(verifiedNote({ package: 'p', releases: [], failed: ['1.0.0'] })).toBe('failed checks on 1.0.0');
    expect(verifiedNote(c.get('cursor')!.verified)).toBe('not verified here');
    expect(verifiedNote(c.get('mine')!.verified)).toBeNull();
    // It is not a manifest: nothing reports it as one.
    expect(c.problems()).toEqual([]);
    expect(logs).toEqual([]);
  });

  it('the bundled agents/verified.json, as the matrix last wrote it, reads without error and names only bundled agents', () => {
    const parsed = parseVerifiedFile(readFileSync(join(DEFAULT_BUNDLED_AGENTS_DIR, VERIFIED_FILE_NAME), 'utf8'), 'agents/verified.json');
    if (!parsed.ok) throw new Error(parsed.error);
    const bundledIds = readdirSync(DEFAULT_BUNDLED_AGENTS_DIR)
      .filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f))
      .map((f) => f.replace(/\.json$/, ''));
    expect(Object.keys(parsed.file.agents).filter((id) => !bundledIds.includes(id))).toEqual([]);
  });

  it('a user manifest overriding a verified bundled one shows nothing of it', async () => {
    bundled('qwen');
    verified({ qwen: { package: '@qwen-code/qwen-code', releases: { '0.24.4': { launch: 'pass' } } } });
    writeFileSync(join(userDir, 'qwen.json'), JSON.stringify({ id: 'qwen', name: 'My Qwen', command: 'qwen' }));
    const c = await catalog();
    expect(c.get('qwen')!.verified).toBeUndefined();
  });

  it.each([
    ['missing', null, 'the file is missing'],
    ['not JSON', '{"generated": "2026-12-07",', 'agents/verified.json: not valid JSON: '],
    [
      'of the wrong shape',
      JSON.stringify({ generated: '2026-12-07', agents: { qwen: { package: 'q', releases: { '1.0.0': { launch: 'yes' } } } } }),
      'agents/verified.json: agents.qwen.releases["1.0.0"].launch: ',
    ],
  ])('a %s verified.json loses nothing: every bundled agent is not verified, and the log says which file and why', async (_what, text, problem) => {
    bundled('qwen');
    if (text !== null) writeFileSync(join(bundledDir, 'verified.json'), text);
    const c = await catalog({ verifiedFile: join(bundledDir, 'verified.json') });
    expect(c.list().map((e) => e.id)).toEqual(['grok', 'qwen']);
    expect(c.get('qwen')!.verified).toBeNull();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('catalog: no bundled agent is verified here');
    expect(logs[0]).toContain(JSON.stringify(join(bundledDir, 'verified.json')));
    // The log line is JSON: the problem's quotes come escaped.
    expect(logs[0]).toContain(JSON.stringify(problem).slice(1, -1));
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
