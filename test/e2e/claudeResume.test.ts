// The real Claude Code CLI from npm through the real app: a session is created with
// Claude's --session-id under an id Termio minted, Claude writes its transcript (it does so
// offline, when the first prompt is submitted), the app is restarted, and the tab is relaunched
// with --resume of that same id — checked on the relaunched process's own command line. And
// `termio sessions spawn --agent claude --prompt "hello" --wait` types the prompt once Claude is
// ready and returns once the turn has ended: offline, Claude answers with an API error and reports
// it through its StopFailure hook, which is what ends the wait.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode, realClaudeHome, type AgentCli } from '../helpers/agentCli';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, listSessions } from './harness';

interface Info {
  id: string;
  pid: number;
  resume?: { family: string; boundId: string | null; mode: string | null; argv: string[] | null };
}

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };

describe.skipIf(e2eSkipReason)('real Claude Code through the app: exact resume, and driven by termio', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  beforeAll(async () => {
    display = await Display.start();
    cli = await ensureClaudeCode();
  }, 120_000);
  afterAll(async () => {
    await display?.stop();
  });
  afterEach(async (ctx) => {
    if (app) {
      app.screenshot(ctx.task.name.startsWith('relaunches') ? 'claude-resumed' : 'claude-drive');
      await app.stop();
      app.cleanup();
      app = undefined;
    }
  });

  /** The app in a real-Claude HOME, once its control socket answers. */
  async function launched(home: string): Promise<AppUnderTest> {
    const a = await AppUnderTest.launch(display, { home });
    await a.waitForWindow();
    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    return a;
  }

  it('relaunches the tab with --resume of the id it was created with', async (ctx) => {
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const { home, project } = realClaudeHome(cli.path);
    app = await launched(home);
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
    const again = await waitFor(async () => {
      const r = await app!.cli(['sessions', 'list', '--json']);
      const list = r.code === 0 ? (JSON.parse(r.stdout) as { sessions: Info[] }).sessions : [];
      return list.find((s) => s.id === id);
    }, { timeout: 20_000, what: 'the restored tab' });
    expect(again.resume).toMatchObject({ family: 'pinned', boundId: minted, mode: 'resume' });
    expect(cmdline(again.pid)).toEqual(expect.arrayContaining(['--resume', minted]));
    expect(cmdline(again.pid)).not.toContain('--session-id');
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('hello from the first run'), { timeout: 30_000, what: 'the resumed conversation on screen' });
  }, 120_000);

  it('spawn --prompt --wait returns once the StopFailure hook has reported the end of the turn', async (ctx) => {
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const { home, project } = realClaudeHome(cli.path);
    app = await launched(home);
    const hooks = await app.cli(['hooks', 'install', '--agent', 'claude']);
    expect(hooks.code, hooks.stdout + hooks.stderr).toBe(0);

    const r = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project, '--prompt', 'hello', '--wait', '--timeout', '90', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const reply = JSON.parse(r.stdout);
    expect(reply).toMatchObject({ schemaVersion: 1, ok: true, wait: { outcome: 'settled', until: 'turn' } });
    // By the time the command returned, the app had the StopFailure report for this session.
    expect(app.log()).toMatch(new RegExp(`state \\{"id":"${reply.id}"[^\\n]*"why":"hooks: StopFailure"`));
    expect(reply.wait.lines.join('\n')).toMatch(/hello/);
  }, 150_000);
});
