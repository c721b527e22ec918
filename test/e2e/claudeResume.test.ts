// The real Claude Code CLI from npm through the real app (issue 8): a session is created with
// Claude's --session-id under an id Termio minted, Claude writes its transcript (it does so
// offline, when the first prompt is submitted), the app is restarted, and the tab is relaunched
// with --resume of that same id — checked on the relaunched process's own command line.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureClaudeCode, type AgentCli } from '../helpers/agentCli';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, cliJson, Display, e2eSkipReason } from './harness';

interface Info {
  id: string;
  pid: number;
  resume?: { family: string; boundId: string | null; mode: string | null; argv: string[] | null };
}

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };

describe.skipIf(e2eSkipReason)('real Claude Code: exact resume across an app restart', () => {
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
      app.screenshot('claude-resumed');
      await app.stop();
      await app.cleanup();
      app = undefined;
    }
  });

  it('relaunches the tab with --resume of the id it was created with', async (ctx) => {
    if (!cli.ok) {
      ctx.skip(`Claude Code could not be installed from npm: ${cli.reason}`);
      return;
    }
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    const project = join(home, 'project');
    mkdirSync(project);
    mkdirSync(join(home, 'bin'));
    // `claude` on the login shell's PATH, as a user's install would be; env -u drops variables a
    // developer's or CI's environment may carry (an API key prompt, another config dir), and
    // self-updates stay off (one would npm install -g on this machine).
    writeFileSync(
      join(home, 'bin', 'claude'),
      `#!/bin/sh\nexec env -u CLAUDE_CONFIG_DIR -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN DISABLE_AUTOUPDATER=1 "${cli.path}" "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(home, '.bash_profile'), `export PATH="${join(home, 'bin')}:$PATH"\n`);
    // Onboarding done and the folder trusted: without it the CLI asks the network and exits.
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, projects: { [project]: { hasTrustDialogAccepted: true } } }));

    app = await AppUnderTest.launch(display, { home });
    await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const spawned = await app.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = spawned.stdout.trim();
    const first = (await cliJson<Info[]>(app, ['sessions', 'list']))[0]!;
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
      const list = r.code === 0 ? (JSON.parse(r.stdout) as Info[]) : [];
      return list.find((s) => s.id === id);
    }, { timeout: 20_000, what: 'the restored tab' });
    expect(again.resume).toMatchObject({ family: 'pinned', boundId: minted, mode: 'resume' });
    expect(cmdline(again.pid)).toEqual(expect.arrayContaining(['--resume', minted]));
    expect(cmdline(again.pid)).not.toContain('--session-id');
    await waitFor(async () => (await app!.cli(['sessions', 'read', id])).stdout.includes('hello from the first run'), { timeout: 30_000, what: 'the resumed conversation on screen' });
  }, 120_000);
});
