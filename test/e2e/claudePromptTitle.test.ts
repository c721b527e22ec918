// The real Claude Code CLI from npm through the real app: with Termio's hooks installed, typing a
// prompt fires UserPromptSubmit (offline, Claude then answers with an error and fires StopFailure)
// and the session is renamed after the prompt (the manifest's promptTitle), in the sidebar and in
// `sessions list` (screenshot test-output/screenshots/claude-prompt-title.png); and the transcript its
// hooks reported reads back through `sessions read --transcript` (the manifest's capturesTranscript).
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode, type AgentCli } from '../helpers/agentCli';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, cliJson, Display, e2eSkipReason, installRealClaude } from './harness';

interface Info {
  id: string;
  title: string;
  state: string;
}

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };

describe.skipIf(e2eSkipReason)('real Claude Code: the prompt names the session', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  beforeAll(async () => {
    display = await Display.start();
    cli = await ensureClaudeCode();
  }, 120_000);
  afterAll(async () => {
    await display?.stop();
  });
  afterEach(async () => {
    if (app) {
      app.screenshot('claude-prompt-title');
      await app.stop();
      app.cleanup();
      app = undefined;
    }
  });

  it('renames the session after the prompt typed into Claude', async (ctx) => {
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const project = join(home, 'project');
    mkdirSync(project);
    installRealClaude(home, cli.path, project);

    app = await AppUnderTest.launch(display, { home });
    await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const hooks = await app.cli(['hooks', 'install', '--agent', 'claude']);
    expect(hooks.code, hooks.stdout + hooks.stderr).toBe(0);
    const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = spawned.stdout.trim();
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('for shortcuts'), { timeout: 30_000, what: "Claude Code's prompt" });
    const before = (await cliJson<Info[]>(app, ['sessions', 'list']))[0]!;
    expect(before.title).not.toBe('summarise the open issues');

    await app.cli(['sessions', 'send', id, 'summarise the open issues', '--enter']);
    const renamed = await waitFor(async () => (await cliJson<Info[]>(app!, ['sessions', 'list'])).find((s) => s.id === id && s.title === 'summarise the open issues'), {
      timeout: 30_000,
      what: 'the session renamed after the prompt',
    });
    expect(renamed.title).toBe('summarise the open issues');
    // Offline, Claude ends the turn with an error: StopFailure reports it done, or the idle title
    // Claude sets right after (the pty and the hook socket race); the session keeps the prompt.
    await waitFor(async () => ['done', 'idle'].includes((await cliJson<Info[]>(app!, ['sessions', 'list']))[0]!.state), { timeout: 30_000, what: 'the turn to end' });
    expect((await cliJson<Info[]>(app, ['sessions', 'list']))[0]).toMatchObject({ id, title: 'summarise the open issues' });

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
});
