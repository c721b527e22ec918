// "New session" on the phone page (real Chromium, phone size, real host): an agent and one of the
// recent folders, with a first prompt the host types once the program is ready; the page opens
// the new session. A folder the host did not offer is refused.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, PHONE_CONTEXT } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { waitFor } from '../helpers/waitFor';
import { screenshotDir } from './harness';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(screenshotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

it('starts a session in a recent folder with its first prompt, and refuses a folder not offered', async () => {
  const host = await startHostInProcess();
  const context = await browser.newContext(PHONE_CONTEXT);
  try {
    const folder = join(host.home, 'work', 'api');
    mkdirSync(folder, { recursive: true });
    await host.spawnShell('earlier', folder);
    const page = await context.newPage();
    await page.goto(`${host.base}/#t=${host.token()}`);
    await waitFor(() => page.locator('#new-session').isVisible(), { what: 'the New button' });
    await page.locator('#new-session').click();
    expect(await page.locator('#new-folder option').allTextContents()).toContain('api');
    expect(await page.locator('#new-agent option').allTextContents()).toContain('Terminal');
    await page.locator('#new-agent').selectOption({ label: 'Terminal' });
    await page.locator('#new-folder').selectOption(folder);
    await page.locator('#new-prompt').fill('echo started-from-the-phone');
    await page.screenshot({ path: join(screenshotDir, 'companion-new-session-phone.png') });
    const before = host.host.registry.list().length;
    await page.locator('#new-start').click();
    await waitFor(() => host.host.registry.list().length === before + 1, { what: 'the new session' });
    const created = host.host.registry.list().at(-1)!;
    expect(created.cwd).toBe(folder);
    await waitFor(() => created.session.screenLines().some((l) => l.trim() === 'started-from-the-phone'), { what: 'the first prompt to run', timeout: 20_000 });
    await waitFor(() => page.locator('#term-view').isVisible(), { what: 'the page to open the new session' });

    // The page starts nothing the host did not offer.
    const refused = await page.evaluate(
      async () =>
        new Promise<string>((resolve) => {
          const token = localStorage.getItem('termio.companion.token');
          const ws = new WebSocket(`ws://${location.host}/ws`, ['termio.v1', `auth.${token}`]);
          ws.onmessage = (e) => {
            const m = JSON.parse(String(e.data)) as { t: string; message?: string };
            if (m.t === 'spawnFailed') resolve(m.message ?? '');
          };
          ws.onopen = () => ws.send(JSON.stringify({ t: 'spawn', agent: 'terminal', folder: '/etc' }));
        }),
    );
    expect(refused).toBe('/etc is not one of the recent folders');
  } finally {
    await context.close();
    await host.stop();
  }
});
