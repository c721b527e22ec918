// The real Claude Code CLI from npm, driven through the real app by the termio command: `spawn
// --agent claude --prompt "hello" --wait` types the prompt once Claude is ready and returns once
// the turn has ended — offline, Claude answers with an API error and reports it through its
// StopFailure hook, which is what ends the wait.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode, realClaudeHome, type AgentCli } from '../helpers/agentCli';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason } from './harness';

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };

describe.skipIf(e2eSkipReason)('real Claude Code driven by termio sessions spawn --prompt --wait', () => {
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
      app.screenshot('claude-drive');
      await app.stop();
      app.cleanup();
      app = undefined;
    }
  });

  it('returns once the StopFailure hook has reported the end of the turn', async (ctx) => {
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const { home, project } = realClaudeHome(cli.path);

    app = await AppUnderTest.launch(display, { home });
    await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
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
