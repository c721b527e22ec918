// Web Push to the page's real service worker, in Debian's Chromium over HTTPS (the nginx recipe
// of docs/companion.md with a throwaway certificate): the service worker installs and the page
// offers "Notify this phone". Subscribing for real needs the browser vendor's push service, which
// this machine cannot reach; so the test registers a subscription of its own loopback push
// service with the host, lets the host push to it (VAPID checked, body decrypted there), and
// hands the decrypted payload to the real service worker with the DevTools protocol's
// ServiceWorker.deliverPushMessage — the step a vendor's service and the browser do. The
// notification it shows is read back with registration.getNotifications(); its first action is
// chosen through the service worker's own click path (no browser lets a script click a system
// notification; the page posts `notificationAction`, which only the origin's own pages can) and
// the fake agent receives the key. The stale token is refused and the service worker opens the
// session instead.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { launchChromium } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { startHttpsProxy } from '../helpers/httpsProxy';
import { startPushService, trustPushService, type PushService } from '../helpers/pushService';
import { waitFor } from '../helpers/waitFor';
import { screenshotDir } from './harness';

const FAKE_MENU = resolve(__dirname, '..', 'fakes', 'fakeMenuAgent.mjs');
let browser: Browser;
let service: PushService;
let untrust = (): void => undefined;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  // Chromium registers no service worker from an origin whose certificate it does not trust.
  browser = await launchChromium(['--ignore-certificate-errors']);
  service = await startPushService();
  untrust = trustPushService(service);
  mkdirSync(screenshotDir, { recursive: true });
});
afterAll(async () => {
  untrust();
  await service?.close();
  await browser?.close();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: Array<{ action: string; title: string }>;
}

/** The notifications the service worker shows now. */
const shown = (page: Page): Promise<Shown[]> =>
  page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    return (await reg.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: ((n as unknown as { actions?: Array<{ action: string; title: string }> }).actions ?? []).map((a) => ({ action: a.action, title: a.title })),
    }));
  });

/** Chooses a shown notification's action through the service worker's click path. */
const choose = (page: Page, tag: string, action: string): Promise<string> =>
  page.evaluate(
    ([tag, action]) =>
      new Promise<string>((res) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = (e) => res((e.data as { outcome: string }).outcome);
        void navigator.serviceWorker.ready.then((r) => r.active!.postMessage({ t: 'notificationAction', tag, action, reply: ch.port2 }, [ch.port2]));
      }),
    [tag, action] as const,
  );

it('shows a pushed question from the real service worker and answers it from its action; a stale token opens the session', async () => {
  const host = await startHostInProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  cleanups.push(() => host.stop());
  const proxy = await startHttpsProxy(host.port);
  cleanups.push(() => proxy.stop());
  const context: BrowserContext = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    colorScheme: 'dark',
    ignoreHTTPSErrors: true,
  });
  cleanups.push(() => context.close());
  await context.grantPermissions(['notifications'], { origin: proxy.origin });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');

  await page.goto(`${proxy.origin}/#t=${host.token()}`);
  await waitFor(async () => (await page.locator('#conn').textContent()) === 'Live', { what: 'the page to go live through the proxy' });
  await waitFor(() => page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state === 'activated'), {
    what: 'the service worker to activate',
  });
  await waitFor(async () => (await page.locator('#push-toggle').textContent()) === 'Notify this phone' && (await page.locator('#push-toggle').isVisible()), {
    what: '"Notify this phone" offered',
  });
  const manifest = await page.evaluate(async () => (await fetch(document.querySelector<HTMLLinkElement>('link[rel=manifest]')!.href)).json());
  expect(manifest.icons.map((i: { sizes: string; purpose?: string }) => `${i.sizes}${i.purpose ? ` ${i.purpose}` : ''}`)).toEqual([
    '192x192',
    '512x512',
    '512x512 maskable',
  ]);

  // The subscription a phone would make, for the loopback push service, registered with the host.
  const sub = service.subscribe();
  const reg = await fetch(`${host.base}/api/push/subscriptions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${host.token()}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ device: 'e2e-phone', name: 'Android · Chrome', subscription: sub.json }),
  });
  expect(reg.status).toBe(200);

  const dir = join(host.home, 'work', 'site');
  mkdirSync(dir, { recursive: true });
  const control = await ControlClient.connect(host.env);
  if (!(control instanceof ControlClient)) throw new Error(control.message);
  cleanups.push(() => control.close());
  const spawned = await control.request('sessions.spawn', { agent: 'fakemenu', cwd: dir, title: 'deploy site' });
  if (!spawned.ok) throw new Error(spawned.error.message);
  const id = spawned.result.id;
  const first = await waitFor(() => service.received.find((p) => p.subscription === sub.id && p.plaintext.includes('Do you want to proceed?')), {
    what: 'the push to reach the push service',
  });
  await page.screenshot({ path: join(screenshotDir, 'companion-push-offer-phone.png') });

  const swReg = await waitFor(() => registrations.find((r) => r.scopeURL === `${proxy.origin}/`), { what: "the service worker's registration id" });
  const deliver = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin: proxy.origin, registrationId: swReg.registrationId, data });
  await deliver(first.plaintext);
  const tag = `termio-${id}`;
  const n = await waitFor(async () => (await shown(page)).find((x) => x.tag === tag), { what: 'the notification to show' });
  expect(n).toEqual({
    title: 'Fake Menu needs you · site',
    body: 'Do you want to proceed?',
    tag,
    // Chromium shows two actions: the first choice and the last ("No").
    actions: [
      { action: 'choice-0', title: 'Yes' },
      { action: 'choice-2', title: 'No' },
    ],
  });

  expect(await choose(page, tag, 'choice-0')).toBe('answered');
  const screen = (): string => host.host.registry.get(id)!.session.screenLines().join('\n');
  await waitFor(() => screen().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
  expect(await shown(page)).toEqual([]);

  // The same push again (a replay): its token is spent, the host refuses it, and the service
  // worker opens the session in the page instead.
  await deliver(first.plaintext);
  await waitFor(async () => (await shown(page)).some((x) => x.tag === tag), { what: 'the replayed notification' });
  const refused = await page.evaluate(
    async (token) => {
      const r = await fetch('/api/push/answer', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, choice: 2 }),
      });
      return { status: r.status, body: (await r.json()) as { reason: string } };
    },
    (JSON.parse(first.plaintext) as { question: { token: string } }).question.token,
  );
  expect(refused.status).toBe(409);
  expect(refused.body.reason).toMatch(/^(tokenUsed|questionGone)$/);
  expect(await choose(page, tag, 'choice-2')).toBe('opened');
  await waitFor(async () => (await page.locator('#term-view').isVisible()) && (await page.locator('#heading').textContent()) === 'deploy site', {
    what: 'the page to open the session',
  });
  expect(screen()).not.toContain('received: No');
});
