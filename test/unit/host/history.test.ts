// The conversation index through the real host: transcripts the real CLIs wrote (test/fixtures/
// history) laid out in a temporary HOME where each agent keeps them, found by `termio history
// search`, resumed by `termio history resume` in a real pty through the agent's resume plan,
// summed by `termio usage`; a broken line, a moved folder, a corrupt index file, and a first
// index of thousands of conversations during which the host keeps answering.
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Host } from '../../../src/app/host/host';
import type { Logger } from '../../../src/app/services/log';
import { ControlClient } from '../../../src/app/client/controlClient';
import { termio } from '../../helpers/controlHost';
import { waitFor } from '../../helpers/waitFor';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'history');
/** The folder the fixtures were recorded in, replaced by the test's own. */
const RECORDED_CWD = /\/tmp\/ts-[A-Za-z0-9]+\/cap-[A-Za-z0-9]+\/proj/g;

interface Rig {
  home: string;
  env: NodeJS.ProcessEnv;
  host: Host;
  warnings: string[];
  /** The real bin/termio: exit code, stdout, stderr. */
  cli(...args: string[]): Promise<{ code: number; out: string; err: string }>;
  json<T>(...args: string[]): Promise<T>;
}

/** A stand-in for the agent's program: answers its identify probe, writes where and how it was started, then waits. */
function standIn(bin: string, name: string, version: string): void {
  const file = join(bin, name);
  writeFileSync(file, `#!/bin/sh\ncase "$1" in --version|--help) echo "${version}"; exit 0;; esac\necho "$PWD|$*" > "$HOME/launched-${name}"\nexec cat\n`);
  chmodSync(file, 0o755);
}

function place(home: string, fixture: string, path: string, cwd: string): string {
  const file = join(home, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, readFileSync(join(FIXTURES, fixture), 'utf8').replace(RECORDED_CWD, cwd));
  return file;
}

const rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs.splice(0)) {
    await r.host.dispose();
    rmSync(r.home, { recursive: true, force: true });
  }
});

async function startRig(home: string, extraEnv: Record<string, string> = {}): Promise<Rig> {
  const bin = join(home, 'bin');
  mkdirSync(bin, { recursive: true });
  standIn(bin, 'claude', '2.1.337 (Claude Code)');
  standIn(bin, 'codex', 'codex-cli 0.171.0');
  const env = { ...process.env, HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: `${bin}:/usr/bin:/bin`, SHELL: '/bin/sh', ...extraEnv };
  const warnings: string[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    error: () => undefined,
    warn: (m, d) => warnings.push(`${m} ${JSON.stringify(d ?? {})}`),
  };
  const started = await Host.start({ env, logger, path: bin, notificationSink: { send: async () => undefined } });
  if (!started.ok) throw new Error(started.message);
  const cli = async (...args: string[]) => {
    const r = await termio(args, env, home);
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const json = async <T>(...args: string[]) => {
    const r = await cli(...args, '--json');
    if (r.code !== 0) throw new Error(`termio ${args.join(' ')}: ${r.err}`);
    return JSON.parse(r.out) as T;
  };
  const rig = { home, env, host: started.host, warnings, cli, json };
  rigs.push(rig);
  return rig;
}

function newHome(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'thist-')));
}

type Search = {
  results: {
    agent: string;
    conversation: string;
    cwd: string;
    machine: string | null;
    title: string;
    snippet: string;
    lines: { text: string; hits: { start: number; length: number }[] }[];
  }[];
};
type Status = { indexing: boolean; queued: number; scanned: boolean; conversations: number };

async function indexed(rig: Rig, conversations: number): Promise<void> {
  await waitFor(
    async () => {
      const s = await rig.json<Status>('history', 'status');
      return s.scanned && !s.indexing && s.conversations >= conversations;
      // A bound that only stops a hang: thousands of files on a loaded two-core machine.
    },
    { what: `${conversations} conversations indexed`, timeout: 150_000 },
  );
}

describe('conversation history through the host', () => {
  it("finds each agent's conversation by a word of its reply, with its agent and folder", async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    place(home, 'claude-2.1.337.jsonl', '.claude/projects/-proj/c7576f42-5c60-43bf-9cae-98a3dffa60a7.jsonl', proj);
    place(home, 'codex-0.171.0.jsonl', '.codex/sessions/2026/12/07/rollout-2026-12-07T20-54-30-01a25249-61f2-78a3-a8c4-bfb38cb89309.jsonl', proj);
    place(home, 'gemini-0.61.0.jsonl', '.gemini/tmp/proj/chats/session-2026-12-07T20-54-24616263.jsonl', proj);
    writeFileSync(join(home, '.gemini/tmp/proj/.project_root'), proj);
    place(home, 'qwen-0.24.4.jsonl', '.qwen/projects/-proj/chats/85cb31aa-371d-4be6-94af-0fd45293a982.jsonl', proj);
    const rig = await startRig(home);
    await indexed(rig, 4);

    const found = await rig.json<Search>('history', 'search', 'zebrafish');
    expect(found.results.map((r) => r.agent).sort()).toEqual(['claude', 'codex', 'gemini', 'qwen']);
    for (const r of found.results) {
      expect(r).toMatchObject({ cwd: proj, machine: null, title: 'Tell me about the flaky upload test' });
      const line = r.lines[0]!;
      expect(line.text.slice(line.hits[0]!.start, line.hits[0]!.start + line.hits[0]!.length)).toBe('ZEBRAFISH');
    }
    const text = await rig.cli('history', 'search', 'flaky', 'upl*', '--agent', 'codex');
    expect(text.code).toBe(0);
    expect(text.out).toContain('codex  ~/proj  this machine');
    expect(text.out).toContain('> Tell me about the «flaky» «upload» test');
    expect((await rig.json<Search>('history', 'search', 'zebrafish', '--since', '2027-01-01')).results).toEqual([]);
  });

  it('resumes a hit in its folder through the resume plan, once; a moved folder is refused with its path', async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    const claudeId = 'c7576f42-5c60-43bf-9cae-98a3dffa60a7';
    const codexId = '01a25249-61f2-78a3-a8c4-bfb38cb89309';
    place(home, 'claude-2.1.337.jsonl', `.claude/projects/-proj/${claudeId}.jsonl`, proj);
    place(home, 'codex-0.171.0.jsonl', `.codex/sessions/2026/12/07/rollout-2026-12-07T20-54-30-${codexId}.jsonl`, proj);
    const rig = await startRig(home);
    await indexed(rig, 2);

    const hit = (await rig.json<Search>('history', 'search', 'zebrafish', '--agent', 'claude')).results[0]!;
    const opened = await rig.json<{ id: string; opened: boolean }>('history', 'resume', hit.conversation);
    expect(opened.opened).toBe(true);
    const launched = await waitFor(() => readFileSync(join(home, 'launched-claude'), 'utf8').trim() || null, { what: 'claude launched' }).catch(() => null);
    expect(launched).toBe(`${proj}|--resume ${claudeId}`);
    const again = await rig.json<{ id: string; opened: boolean }>('history', 'resume', claudeId.slice(0, 8));
    expect(again).toMatchObject({ id: opened.id, opened: false });

    await rig.json('history', 'resume', codexId);
    expect(await waitFor(() => readFileSync(join(home, 'launched-codex'), 'utf8').trim() || null, { what: 'codex launched' }).catch(() => null)).toBe(
      `${proj}|resume ${codexId}`,
    );

    renameSync(proj, join(home, 'moved'));
    await rig.cli('sessions', 'close', opened.id);
    const refused = await rig.cli('history', 'resume', claudeId, '--json');
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toMatchObject({ ok: false, code: 'folderGone' });
    expect(refused.err).toContain(`its folder ${proj} is gone (moved or deleted)`);
    expect((await rig.cli('history', 'resume', 'no-such-id')).err).toContain("no conversation 'no-such-id'");
  });

  it('sums usage per agent as the transcripts recorded it, priced only where a price is known', async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    place(home, 'claude-2.1.337.jsonl', '.claude/projects/-proj/c7576f42-5c60-43bf-9cae-98a3dffa60a7.jsonl', proj);
    place(home, 'gemini-matrix-two-turns.jsonl', '.gemini/tmp/proj/chats/session-2026-12-07T14-15-527c7d28.jsonl', proj);
    mkdirSync(join(home, '.termio', 'config'), { recursive: true });
    const price = { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 };
    writeFileSync(join(home, '.termio', 'config', 'settings.json'), JSON.stringify({ prices: { 'claude-opus-5-5': price } }));
    const rig = await startRig(home);
    await indexed(rig, 2);

    type Usage = {
      rows: { key: string; input: number; output: number; cacheRead: number; cost: number; unpriced: string[] }[];
      total: { input: number; output: number; unpriced: string[] };
      prices: { overridden: string[] };
    };
    const u = await rig.json<Usage>('usage', '--by', 'agent');
    const claude = u.rows.find((r) => r.key === 'claude')!;
    expect(claude).toMatchObject({ input: 12272, output: 8, cacheRead: 0, unpriced: [] });
    expect(claude.cost).toBeCloseTo((12272 * 2 + 8 * 10) / 1e6, 12);
    expect(u.rows.find((r) => r.key === 'gemini')).toMatchObject({ input: 12090 + 12208, output: 16, cost: 0, unpriced: ['gemini-3.1-pro-preview'] });
    expect(u.total).toMatchObject({ input: 12272 + 12090 + 12208, output: 24 });
    expect(u.prices.overridden).toEqual(['claude-opus-5-5']);
    const text = await rig.cli('usage', '--by', 'model');
    expect(text.out).toMatch(/gemini-3\.1-pro-preview\s+24,298\s+16\s+0\s+0\s+price unknown: gemini-3\.1-pro-preview/);

    // One conversation's usage (the app's why strip asks by the session bound to it): only its tokens.
    const client = await ControlClient.connect(rig.env);
    if (!(client instanceof ControlClient)) throw new Error(client.message);
    try {
      const one = (await client.request('usage', { conversation: 'c7576f42-5c60-43bf-9cae-98a3dffa60a7' })) as { ok: true; result: Usage };
      expect(one.result.total).toMatchObject({ input: 12272, output: 8 });
      const opened = await rig.json<{ id: string }>('history', 'resume', 'c7576f42');
      const bySession = (await client.request('usage', { session: opened.id })) as { ok: true; result: Usage };
      expect(bySession.result.total).toEqual(one.result.total);
      // The same from the CLI: `termio usage --session ID`.
      expect((await rig.json<Usage>('usage', '--session', opened.id)).total).toEqual(one.result.total);
      expect((await rig.cli('usage', '--session', opened.id, '--by', 'model')).out).toMatch(/claude-opus-5-5\s+12,272\s+8\s/);
      // A session bound to no conversation counts nothing (not everything).
      const none = (await client.request('usage', { session: 'no-such-session' })) as { ok: true; result: Usage };
      expect(none.result.total).toMatchObject({ input: 0, output: 0 });
    } finally {
      client.close();
    }
  });

  it('reads a turn appended later, skipping a broken line with a warning', async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    const file = place(home, 'qwen-0.24.4.jsonl', '.qwen/projects/-proj/chats/85cb31aa-371d-4be6-94af-0fd45293a982.jsonl', proj);
    const rig = await startRig(home);
    await indexed(rig, 1);
    const turn = {
      uuid: 'later',
      sessionId: '85cb31aa-371d-4be6-94af-0fd45293a982',
      timestamp: '2026-12-07T21:00:00.000Z',
      type: 'user',
      cwd: proj,
      message: { role: 'user', parts: [{ text: 'what about the OCELOT?' }] },
    };
    appendFileSync(file, `{"uuid":"broken",\n${JSON.stringify(turn)}\n`);
    const found = await waitFor(async () => (await rig.json<Search>('history', 'search', 'ocelot')).results[0], { what: 'the appended turn found' });
    expect(found.conversation).toBe('85cb31aa-371d-4be6-94af-0fd45293a982');
    expect(rig.warnings.some((w) => w.startsWith('history: skipped unreadable transcript lines') && w.includes('"line":6'))).toBe(true);
    expect((await rig.json<Search>('history', 'search', 'zebrafish')).results).toHaveLength(1);
  });

  it('finds a conversation of an agent whose store did not exist when the host started (its first run)', async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    const rig = await startRig(home);
    await indexed(rig, 0);
    place(home, 'qwen-0.24.4.jsonl', '.qwen/projects/-proj/chats/85cb31aa-371d-4be6-94af-0fd45293a982.jsonl', proj);
    const hit = await waitFor(async () => (await rig.json<Search>('history', 'search', 'zebrafish')).results[0], { what: 'the new store read' });
    expect(hit).toMatchObject({ agent: 'qwen', cwd: proj });
  });

  it('rebuilds an index file that is not a database, with a log line', async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    place(home, 'qwen-0.24.4.jsonl', '.qwen/projects/-proj/chats/85cb31aa-371d-4be6-94af-0fd45293a982.jsonl', proj);
    mkdirSync(join(home, '.termio', 'state'), { recursive: true });
    writeFileSync(join(home, '.termio', 'state', 'history.sqlite'), 'this is not a database '.repeat(200));
    const rig = await startRig(home);
    await indexed(rig, 1);
    expect(rig.warnings.some((w) => w.startsWith('history: the index could not be used; rebuilding it'))).toBe(true);
    expect((await rig.json<Search>('history', 'search', 'zebrafish')).results).toHaveLength(1);
  });

  it('keeps answering while a first index of 2,000 conversations runs', { timeout: 300_000 }, async () => {
    const home = newHome();
    const proj = join(home, 'proj');
    mkdirSync(proj);
    const COUNT = 2000;
    const template = readFileSync(join(FIXTURES, 'claude-2.1.337.jsonl'), 'utf8').replace(RECORDED_CWD, proj);
    for (let i = 0; i < COUNT; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const text = template.replaceAll('c7576f42-5c60-43bf-9cae-98a3dffa60a7', id).replace('ZEBRAFISH', `ZEBRAFISH word${i}`);
      const dir = join(home, '.claude', 'projects', `-proj-${i % 40}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${id}.jsonl`), text);
    }
    const rig = await startRig(home);
    // The control socket answers between files: asked as soon as the host is up, while the
    // stores are walked and read.
    const client = await ControlClient.connect(rig.env);
    if (!(client instanceof ControlClient)) throw new Error(client.message);
    try {
      const during = (await client.request('history.status', {})) as { ok: true; result: Status };
      // Still walking the stores, or reading the files found.
      expect(!during.result.scanned || during.result.indexing).toBe(true);
      expect(during.result.conversations).toBeLessThan(COUNT);
      expect(await client.request('ping', {})).toMatchObject({ ok: true });
    } finally {
      client.close();
    }
    await indexed(rig, COUNT);
    const last = await rig.json<Search>('history', 'search', `word${COUNT - 1}`);
    expect(last.results.map((r) => r.conversation)).toEqual([`00000000-0000-4000-8000-${String(COUNT - 1).padStart(12, '0')}`]);
  });
});
