// The HTTPS recipe of docs/companion.md, run as written: nginx (Debian's) terminates TLS in front
// of the loopback companion with the server block the doc gives, and a real Chromium pairs
// through it — the page loads over https, its WebSocket's Origin is https://<the proxy's name>,
// which the companion accepts because the proxy on this machine says X-Forwarded-Proto: https.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { startHttpsProxy } from '../helpers/httpsProxy';
import { waitFor } from '../helpers/waitFor';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

it('pairs through an HTTPS reverse proxy (nginx) configured as the doc says', async () => {
  const host = await startHostInProcess();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true, isMobile: true, hasTouch: true });
  let proxy: Awaited<ReturnType<typeof startHttpsProxy>> | null = null;
  try {
    await host.spawnShell('behind the proxy');
    proxy = await startHttpsProxy(host.port);
    const page = await context.newPage();
    await page.goto(`${proxy.origin}/#t=${host.token()}`);
    await waitFor(async () => (await page.locator('#conn').textContent()) === 'Live', { what: 'the page to go live through the proxy' });
    await waitFor(async () => (await page.locator('#groups .row .title').allTextContents()).includes('behind the proxy'), {
      what: 'the session list through the proxy',
    });
    expect(await page.evaluate(() => isSecureContext)).toBe(true);
  } finally {
    await context.close();
    await proxy?.stop();
    await host.stop();
  }
});
