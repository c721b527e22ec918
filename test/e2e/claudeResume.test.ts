// The real Claude Code CLI from npm through the real app: a session is created with
// Claude's --session-id under an id Termio minted, Claude writes its transcript (it does so
// offline, when the first prompt is submitted), the app is restarted, and the tab is relaunched
// with --resume of that same id — checked on the relaunched process's own command line. And with
// Termio's hooks installed, typing a prompt fires UserPromptSubmit (offline, Claude then answers
// with an error and fires StopFailure: not logged in, the session stops on "API error: log in again") and is renamed after the prompt (the manifest's
// promptTitle) in the sidebar and `sessions list` (screenshot claude-prompt-title.png); the
// transcript its hooks reported reads back through `sessions read --transcript` (capturesTranscript).
// And `termio sessions spawn --agent claude --prompt "hello" --wait` types the prompt once Claude
// is ready and returns once the turn has ended: offline, Claude answers with an API error and
// reports it through its StopFailure hook, which is what ends the wait (the session needs you).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCli } from '../helpers/agentCli';
import { ensureNewestClaude } from '../integration/agents/recipes/claude';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, installRealClaude, listSessions } from './harness';

interface Info {
  id: string;
  pid: number;
  title: string;
  state: string;
  status: { why: { failure?: { kind: string; reason: string } } } | null;
  resume?: { family: string; boundId: string | null; mode: string | null; argv: string[] | null };
}

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };

describe.skipIf(e2eSkipReason)('real Claude Code through the app', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  let shot = '';
  beforeAll(async () => {
    display = await Display.start();
    cli = await ensureNewestClaude();
  }, 120_000);
  afterAll(async () => {
    await display?.stop();
  });
  afterEach(async () => {
    if (app) {
      app.screenshot(shot);
      await app.stop();
      await app.cleanup();
      app = undefined;
    }
  });

  /** A fresh HOME with the real Claude Code on its PATH and a trusted project; the app started on it. */
  async function launchWithClaude(): Promise<{ home: string; project: string; started: AppUnderTest }> {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const project = join(home, 'project');
    mkdirSync(project);
    installRealClaude(home, (cli as { path: string }).path, project);
    // Quitting ends the sessions (the setting): a relaunch must resume them, not reattach.
    const started = await AppUnderTest.launch(display, { home, settings: { sessions: { onQuit: 'end' } } });
    app = started;
    await started.waitForWindow();
    await waitFor(async () => (await started.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    return { home, project, started };
  }

  it('relaunches the tab with --resume of the id it was created with', async (ctx) => {
    shot = 'claude-resumed';
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const { home, project, started } = await launchWithClaude();
    app = started;
    const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = spawned.stdout.trim();
    const first = (await listSessions<Info>(app))[0]!;
    const minted = first.resume!.boundId!;
    expect(first.resume).toMatchObject({ family: 'pinned' });
    const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(cmdline(first.pid)).toEqual(expect.arrayContaining(['--session-id', minted]));
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });
    await app.cli(['sessions', 'send', id, 'hello from the first run', '--enter']);
    const transcript = join(home, '.claude', 'projects', project.replace(/[^A-Za-z0-9]/g, '-'), `${minted}.jsonl`);
    await waitFor(() => existsSync(transcript), { timeout: 30_000, what: `the transcript ${transcript}` });
    await app.stop();

    app = await AppUnderTest.launch(display, { home });
    await app.waitForWindow();
    const again = await waitFor(
      async () => {
        const r = await app!.cli(['sessions', 'list', '--json']);
        const list = r.code === 0 ? (JSON.parse(r.stdout) as { sessions: Info[] }).sessions : [];
        return list.find((s) => s.id === id);
      },
      { timeout: 20_000, what: 'the restored tab' },
    );
    expect(again.resume).toMatchObject({ family: 'pinned', boundId: minted, mode: 'resume' });
    expect(cmdline(again.pid)).toEqual(expect.arrayContaining(['--resume', minted]));
    expect(cmdline(again.pid)).not.toContain('--session-id');
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('hello from the first run'), {
      timeout: 30_000,
      what: 'the resumed conversation on screen',
    });
  }, 120_000);

  it('renames the session after the prompt typed into Claude', async (ctx) => {
    shot = 'claude-prompt-title';
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const { home, project, started } = await launchWithClaude();
    app = started;
    const hooks = await app.cli(['hooks', 'install', '--agent', 'claude']);
    expect(hooks.code, hooks.stdout + hooks.stderr).toBe(0);
    const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = spawned.stdout.trim();
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });
    const before = (await listSessions<Info>(app))[0]!;
    expect(before.title).not.toBe('summarise the open issues');

    await app.cli(['sessions', 'send', id, 'summarise the open issues', '--enter']);
    const renamed = await waitFor(async () => (await listSessions<Info>(app!)).find((s) => s.id === id && s.title === 'summarise the open issues'), {
      timeout: 30_000,
      what: 'the session renamed after the prompt',
    });
    expect(renamed.title).toBe('summarise the open issues');
    // Offline and with no key, Claude ends the turn with an auth error: StopFailure reports the
    // failure, and the session needs you to log in (the idle title Claude sets after does not end
    // that); the session keeps the prompt.
    const failed = await waitFor(
      async () => {
        const s = (await listSessions<Info>(app!))[0]!;
        return s.state === 'attention' ? s.status?.why.failure : undefined;
      },
      { timeout: 30_000, what: 'the turn to stop on its error' },
    );
    expect(failed).toEqual({ kind: 'auth', reason: 'API error: log in again' });
    expect((await listSessions<Info>(app))[0]).toMatchObject({ id, title: 'summarise the open issues' });

    // capturesTranscript: the transcript its hooks reported, read through the CLI.
    // Claude writes the transcript a moment after the hooks report it.
    const read = await waitFor(
      async () => {
        const r = await app!.cli(['sessions', 'read', id, '--transcript', '--json']);
        const out = r.code === 0 ? (JSON.parse(r.stdout) as { transcript: string; lines: string[] }) : null;
        return out?.lines.some((l) => l.includes('summarise the open issues')) ? out : null;
      },
      { timeout: 30_000, what: 'the prompt in the transcript' },
    );
    expect(read.transcript).toMatch(new RegExp(`^${join(home, '.claude', 'projects').replace(/[.]/g, '\\.')}/[^/]+/[0-9a-f-]{36}\\.jsonl$`));
    expect(read.lines.some((l) => l.includes('summarise the open issues'))).toBe(true);
    const tail = await app.cli(['sessions', 'read', id, '--transcript', '--lines', '1']);
    expect(tail.stdout.trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it('spawn --prompt --wait returns once the StopFailure hook has reported the end of the turn', async (ctx) => {
    shot = 'claude-drive';
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const { project, started } = await launchWithClaude();
    app = started;
    const hooks = await app.cli(['hooks', 'install', '--agent', 'claude']);
    expect(hooks.code, hooks.stdout + hooks.stderr).toBe(0);

    const r = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project, '--prompt', 'hello', '--wait', '--timeout', '90', '--json']);
    // 0: the wait settled; 5: it ended with the session needing you (the failed turn's report came first).
    expect([0, 5], r.stdout + r.stderr).toContain(r.code);
    const reply = JSON.parse(r.stdout);
    // The turn ended: Claude's idle title may end the wait a moment before its StopFailure
    // report arrives (the pty and the hook socket race), or the report first, with the session
    // needing you; either way the session then stops on the API's error.
    expect(reply).toMatchObject({ schemaVersion: 1, ok: true, wait: { outcome: expect.stringMatching(/^(settled|attention)$/), until: 'turn' } });
    // The host had the StopFailure report for the session (its log is written as it goes).
    await app.waitForLog(new RegExp(`state \\{"id":"${reply.id}"[^\\n]*"why":"hooks: StopFailure \\(API error: log in again\\)"`), 5_000);
    expect(reply.wait.lines.join('\n')).toMatch(/hello/);
  }, 150_000);
});
