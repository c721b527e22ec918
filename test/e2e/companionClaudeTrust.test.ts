// The real Claude Code (from npm, cached outside the repo) asks its folder-trust question before
// any hook can report: the screen's question detector makes the session "needs you" with the
// question quoted as its reason, the phone page (real Chromium, phone size) shows the question
// with Claude's choices, and a tap answers it in Claude's own TUI.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import type { AgentCli } from '../helpers/agentCli';
import { launchChromium, PHONE_CONTEXT } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { waitFor } from '../helpers/waitFor';
import { CLAUDE_ENV, ensureNewestClaude, writeClaudeUser } from '../integration/agents/recipes/claude';
import { screenshotDir } from './harness';

let claude: AgentCli;
let browser: Browser;

beforeAll(async () => {
  claude = await ensureNewestClaude();
  browser = await launchChromium();
  mkdirSync(screenshotDir, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

it("shows Claude Code's folder-trust question on the page and answers it with a tap", async (ctx) => {
  if (!claude.ok) return ctx.skip(claude.reason);
  const host = await startHostInProcess({
    path: `${dirname(claude.path)}:${process.env.PATH ?? ''}`,
    // Offline on purpose: nothing here may reach the network, and the trust question needs none.
    env: { ...CLAUDE_ENV, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: '' },
  });
  const client = await ControlClient.connect(host.env);
  const context = await browser.newContext(PHONE_CONTEXT);
  try {
    if (!(client instanceof ControlClient)) throw new Error(client.message);
    // A user past onboarding, in a folder Claude has not seen.
    writeClaudeUser(host.home);
    const project = join(host.home, 'src', 'shop');
    mkdirSync(project, { recursive: true });
    const spawned = await client.request('sessions.spawn', { agent: 'claude', cwd: project });
    if (!spawned.ok) throw new Error(spawned.error.message);
    const id = spawned.result.id;

    await waitFor(() => host.host.registry.get(id)?.state === 'attention', { what: 'the trust question to make the session need you', timeout: 60_000 });
    const why = await client.request('sessions.why', { id });
    expect(why.ok && { channel: why.result.channel, event: why.result.event }).toEqual({
      channel: 'question',
      event: '“Is this a project you created or one you trust?”',
    });

    const page = await context.newPage();
    await page.goto(`${host.base}/#t=${host.token()}`);
    const card = page.locator(`#needs .question[data-session="${id}"]`);
    await waitFor(async () => (await card.locator('.q-text').textContent()) === 'Is this a project you created or one you trust?', {
      what: 'the question on the page',
    });
    // In the order Claude draws them: its newest releases put "No, exit" first, highlighted.
    expect(await card.locator('.c-label').allTextContents()).toEqual(['No, exit', 'Yes, I trust this folder']);
    expect(await card.locator('.q-context').textContent()).toContain(project);
    await page.screenshot({ path: join(screenshotDir, 'companion-claude-trust-phone.png') });

    await card.locator('.choice', { hasText: 'Yes, I trust this folder' }).click();
    // Claude records the answer in its own config, and the question leaves the screen.
    const trusted = (): boolean => {
      const file = join(host.home, '.claude.json');
      if (!existsSync(file)) return false;
      const projects = (JSON.parse(readFileSync(file, 'utf8')) as { projects?: Record<string, { hasTrustDialogAccepted?: boolean }> }).projects ?? {};
      return projects[project]?.hasTrustDialogAccepted === true;
    };
    await waitFor(trusted, { what: 'Claude to record the folder as trusted', timeout: 30_000 });
    await waitFor(() => !host.host.registry.get(id)!.session.screenLines().join('\n').includes('Is this a project you created'), {
      what: 'the question to leave the screen',
    });
  } finally {
    if (client instanceof ControlClient) client.close();
    await context.close();
    await host.stop();
  }
}, 120_000);
