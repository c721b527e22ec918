// Searching past conversations from the phone page (real Chromium, phone size, the real
// termio-host process with its indexing worker): two Claude Code conversations (the recorded
// fixture, one in a folder that exists, one in a folder since removed) are written into the HOME
// of a running host. Typing a word of a reply lists that conversation with its agent, folder and
// date and the word marked (screenshots, dark and light); a tap resumes it — a session in its
// folder running Claude Code's resume of that id — and the page opens it; a second tap opens the
// same session instead of another; the conversation whose folder is gone says so.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { launchChromium, PHONE_CONTEXT } from '../helpers/browser';
import { startHostProcess } from '../helpers/companionHost';
import { writeClaudeConversation } from '../helpers/historyFixture';
import { endProcessesWithHome } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';
import { installFakeAgents, screenshotDir } from './harness';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(screenshotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

it('finds a past conversation by a word of its reply, resumes it on a tap, and says when its folder is gone', async () => {
  const host = await startHostProcess();
  let control: ControlClient | null = null;
  const context = await browser.newContext(PHONE_CONTEXT);
  try {
    // A stand-in `claude` on the login shell's PATH (/bin/sh reads ~/.profile): the resume's argv
    // is what is checked, not the CLI.
    const bin = installFakeAgents(host.home, ['claude']);
    writeFileSync(join(host.home, '.profile'), `export PATH="${bin}:$PATH"\n`);
    const project = join(host.home, 'work', 'app');
    mkdirSync(project, { recursive: true });
    const live = '11111111-2222-4333-8444-555555555555';
    const gone = '66666666-7777-4888-8999-aaaaaaaaaaaa';
    writeClaudeConversation(host.home, live, project, 'ZEBRAFISH');
    writeClaudeConversation(host.home, gone, join(host.home, 'removed'), 'QUOKKA');
    const c = await ControlClient.connect(host.env);
    if (!(c instanceof ControlClient)) throw new Error(c.message);
    control = c;
    const listed = async () => {
      const r = await c.request('sessions.list', {});
      if (!r.ok) throw new Error(`sessions.list: ${r.error.message}`);
      return r.result.sessions;
    };
    await waitFor(
      async () => {
        const r = await c.request('history.status', {});
        if (!r.ok) throw new Error(`history.status: ${r.error.message}`);
        return r.result.conversations === 2 && r.result.scanned && !r.result.indexing;
      },
      { what: 'the host to index both conversations' },
    );

    const page = await context.newPage();
    await page.goto(`${host.base}/#t=${host.token()}`);
    await waitFor(() => page.locator('#search').isVisible(), { what: 'the search box' });
    await page.locator('#search').fill('zebrafish');
    const hits = page.locator('#search-hits .hit');
    await waitFor(async () => (await hits.count()) === 1, { what: 'one result for zebrafish' });
    expect(await page.locator('#groups').isVisible()).toBe(false);
    expect(await hits.locator('.title').textContent()).toBe('Tell me about the flaky upload test');
    expect(await hits.locator('.facts').textContent()).toMatch(/^Claude Code · ~\/work\/app · \w/);
    expect(await hits.locator('mark').allTextContents()).toEqual(['ZEBRAFISH']);
    expect(await page.locator('#search-status').textContent()).toBe('1 conversation.');
    await page.screenshot({ path: join(screenshotDir, 'companion-history-search-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: join(screenshotDir, 'companion-history-search-light.png') });

    // A tap resumes it: a session in its folder running Claude Code's resume of that id, opened on the page.
    const status = async () => (await page.locator('#search-status').textContent()) ?? '';
    await hits.click();
    await waitFor(
      async () => {
        if ((await status()).startsWith('Not resumed')) throw new Error(await status());
        return page.locator('#term-view').isVisible();
      },
      { what: 'the page to open the resumed session' },
    );
    const sessions = await listed();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ agentId: 'claude', cwd: project });
    expect(sessions[0]!.argv.join(' ')).toMatch(new RegExp(`--resume ${live}\\b`));

    // Back on the results, the same hit opens that session again rather than a second one.
    await page.locator('#back').click();
    await waitFor(() => hits.isVisible(), { what: 'the results again' });
    await hits.click();
    await waitFor(() => page.locator('#term-view').isVisible(), { what: 'the page to open the same session' });
    expect((await listed()).map((s) => s.id)).toEqual([sessions[0]!.id]);

    // A conversation whose folder is gone is not resumed, and the page says why.
    await page.locator('#back').click();
    await page.locator('#search').fill('quokka');
    await waitFor(async () => (await hits.count()) === 1 && (await hits.locator('mark').textContent()) === 'QUOKKA', { what: 'the result for quokka' });
    await hits.click();
    await waitFor(async () => (await status()).startsWith('Not resumed:'), { what: 'the refusal' });
    expect(await status()).toContain(`its folder ${join(host.home, 'removed')} is gone`);
    expect(await listed()).toHaveLength(1);
  } finally {
    control?.close();
    await context.close();
    await host.stop();
    await endProcessesWithHome(host.home);
  }
});
