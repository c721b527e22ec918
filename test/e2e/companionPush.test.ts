// Web Push to the page's real service worker, in Debian's Chromium over HTTPS (the nginx recipe
// of docs/companion.md with a throwaway certificate): the service worker installs and the page
// offers "Notify this phone". Subscribing for real needs the browser vendor's push service, which
// this machine cannot reach; so the test registers a subscription of its own loopback push
// service with the host, lets the host push to it (VAPID checked, body decrypted there), and
// hands the decrypted payload to the real service worker with the DevTools protocol's
// ServiceWorker.deliverPushMessage — the step a vendor's service and the browser do.
// With no page of the companion open, the worker shows a system notification, read back with
// registration.getNotifications(); its first action is chosen through the worker's own click path
// (no browser lets a script click a system notification; the page posts `notificationAction`,
// which only the origin's own pages can) and the fake agent receives the key. The stale token is
// refused and the worker opens the session instead. With the page open and visible, the worker
// hands the push to the page, which shows it as a banner: its action is tapped for real, a
// refused one opens the session, and a banner goes when its question is answered elsewhere.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page, Worker } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { launchChromium, PHONE_CONTEXT } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { startHttpsProxy } from '../helpers/httpsProxy';
import { startPushService, trustPushService, type PushService } from '../helpers/pushService';
import { printedBy } from '../helpers/printed';
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

/** The notifications the service worker shows now, asked of the worker itself (asking through a
 *  page would need a page of the origin open, and then the worker hands pushes to it). */
const shown = (worker: Worker): Promise<Shown[]> =>
  worker.evaluate(async () => {
    const reg = (self as unknown as { registration: ServiceWorkerRegistration }).registration;
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

/** A host with the fake menu agent behind the HTTPS proxy, the page paired and live in a phone
 *  viewport with its service worker active, a device registered for the loopback push service,
 *  and a session whose first question was pushed. `deliver` hands a payload to the worker as the
 *  browser would; `worker` is the worker as it runs now (Chromium may stop and restart it). */
async function pushRig() {
  const host = await startHostInProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  cleanups.push(() => host.stop());
  const proxy = await startHttpsProxy(host.port);
  cleanups.push(() => proxy.stop());
  const context: BrowserContext = await browser.newContext({
    ...PHONE_CONTEXT,
    ignoreHTTPSErrors: true,
  });
  cleanups.push(() => context.close());
  await context.grantPermissions(['notifications'], { origin: proxy.origin });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');

  const live = async (): Promise<void> => {
    await waitFor(async () => (await page.locator('#conn').textContent()) === 'Live', { what: 'the page to go live through the proxy' });
  };
  await page.goto(`${proxy.origin}/#t=${host.token()}`);
  await live();
  await waitFor(() => page.evaluate(async () => (await navigator.serviceWorker.ready).active?.state === 'activated'), {
    what: 'the service worker to activate',
  });

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
  const printed = printedBy(host.host.registry.get(id)!.session);
  /** The plaintext of the push that carried this question. */
  const pushed = (question: string): Promise<string> =>
    waitFor(() => service.received.find((p) => p.subscription === sub.id && p.plaintext.includes(question))?.plaintext, {
      what: `the push of "${question}" to reach the push service`,
    });
  const first = await pushed('Do you want to proceed?');

  const swReg = await waitFor(() => registrations.find((r) => r.scopeURL === `${proxy.origin}/`), { what: "the service worker's registration id" });
  const deliver = async (data: string): Promise<void> => {
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: proxy.origin, registrationId: swReg.registrationId, data });
  };
  const worker = (): Promise<Worker> =>
    waitFor(() => context.serviceWorkers().find((w) => w.url() === `${proxy.origin}/sw.js`), { what: 'the running service worker' });
  const screen = (): string => host.host.registry.get(id)!.session.screenLines().join('\n');
  return { host, proxy, page, control, id, tag: `termio-${id}`, first, pushed, deliver, worker, screen, printed, live };
}

it('shows a pushed question as a system notification when no page is open, and answers it from its action; a stale token opens the session', async () => {
  const { proxy, page, tag, first, deliver, worker, screen, printed, live } = await pushRig();
  await waitFor(async () => (await page.locator('#push-toggle').textContent()) === 'Notify this phone' && (await page.locator('#push-toggle').isVisible()), {
    what: '"Notify this phone" offered',
  });
  const manifest = await page.evaluate(async () => (await fetch(document.querySelector<HTMLLinkElement>('link[rel=manifest]')!.href)).json());
  expect(manifest.icons.map((i: { sizes: string; purpose?: string }) => `${i.sizes}${i.purpose ? ` ${i.purpose}` : ''}`)).toEqual([
    '192x192',
    '512x512',
    '512x512 maskable',
  ]);
  await page.screenshot({ path: join(screenshotDir, 'companion-push-offer-phone.png') });

  /** The push delivered with no page of the companion open (a locked phone, another app in
   *  front); the page comes back once the notification shows, to act on it. */
  const deliverClosed = async (data: string): Promise<Shown> => {
    await page.goto('about:blank');
    await deliver(data);
    // The browser may have stopped the idle worker: the push starts it again first, which took
    // over 10 s in a full run at load 10 on two cores.
    const n = await waitFor(async () => (await shown(await worker())).find((x) => x.tag === tag), { what: 'the notification to show', timeout: 30_000 });
    await page.goto(`${proxy.origin}/`);
    await live();
    return n;
  };
  expect(await deliverClosed(first)).toEqual({
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
  await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
  expect(await shown(await worker())).toEqual([]);

  // The same push again (a replay): its token is spent, the host refuses it, and the service
  // worker opens the session in the page instead.
  await deliverClosed(first);
  const refused = await page.evaluate(
    async (token) => {
      const r = await fetch('/api/push/answer', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ token, choice: 2 }),
      });
      return { status: r.status, body: (await r.json()) as { reason: string } };
    },
    (JSON.parse(first) as { question: { token: string } }).question.token,
  );
  expect(refused.status).toBe(409);
  expect(refused.body.reason).toMatch(/^(tokenUsed|questionGone)$/);
  expect(await choose(page, tag, 'choice-2')).toBe('opened');
  await waitFor(async () => (await page.locator('#term-view').isVisible()) && (await page.locator('#heading').textContent()) === 'deploy site', {
    what: 'the page to open the session',
  });
  expect(screen()).not.toContain('received: No');
});

it('shows a push in the open page as a banner: its action answers, a refused one opens the session, and it goes when answered elsewhere', async () => {
  const { page, control, id, tag, first, pushed, deliver, worker, screen, printed } = await pushRig();
  const banner = page.locator(`.banner[data-tag="${tag}"]`);
  const bannerText = async (): Promise<{ title: string; body: string; actions: string[] } | null> =>
    (await banner.count()) === 1
      ? {
          title: await banner.locator('.b-title').innerText(),
          body: await banner.locator('.b-body').innerText(),
          actions: await banner.locator('.b-action').allInnerTexts(),
        }
      : null;
  /** The page lists the question (a push is judged by the page's list when it comes). */
  const listed = (question: string): Promise<unknown> =>
    waitFor(async () => (await page.locator('#needs .q-text').allInnerTexts()).includes(question), { what: `the page to list "${question}"` });

  await listed('Do you want to proceed?');
  await deliver(first);
  expect(await waitFor(bannerText, { what: 'the banner to show' })).toEqual({
    title: 'Fake Menu needs you · site',
    body: 'Do you want to proceed?',
    actions: ['Yes', 'No'],
  });
  await page.screenshot({ path: join(screenshotDir, 'companion-push-banner-phone-dark.png'), animations: 'disabled' });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(screenshotDir, 'companion-push-banner-phone-light.png'), animations: 'disabled' });
  await page.emulateMedia({ colorScheme: 'dark' });

  await banner.locator('.b-action', { hasText: 'Yes' }).click();
  await waitFor(async () => (await banner.locator('.b-status').textContent()) === 'Answered: Yes', { what: 'the banner to say it answered' });
  await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
  await page.screenshot({ path: join(screenshotDir, 'companion-push-banner-answered-phone-dark.png'), animations: 'disabled' });

  // The next question's push replaces the banner; one whose token the host does not know (a
  // question moved on under it) is refused, and the page opens the session instead.
  const second = await pushed('make this edit');
  await listed('Do you want to make this edit to app.ts?');
  const forged = JSON.stringify({ ...JSON.parse(second), question: { ...JSON.parse(second).question, token: 'not-a-token-the-host-gave' } });
  await deliver(forged);
  await waitFor(async () => (await bannerText())?.body === 'Do you want to make this edit to app.ts?', { what: 'the next question to replace the banner' });
  await banner.locator('.b-action', { hasText: 'Yes' }).click();
  await waitFor(async () => /^Not sent: /.test((await banner.locator('.b-status').textContent()) ?? ''), { what: 'the banner to say nothing was sent' });
  await waitFor(async () => (await page.locator('#term-view').isVisible()) && (await page.locator('#heading').textContent()) === 'deploy site', {
    what: 'the page to open the session',
  });
  expect(screen()).toContain('make this edit');

  // Its real push, then the question answered from elsewhere (the CLI): the banner goes.
  await deliver(second);
  await waitFor(async () => (await bannerText())?.body === 'Do you want to make this edit to app.ts?' && (await banner.locator('.b-status').count()) === 0, {
    what: 'the real push to show',
  });
  const answered = await control.request('sessions.answer', { id, choice: '2', force: true });
  if (!answered.ok) throw new Error(answered.error.message);
  await waitFor(async () => (await page.locator('.banner').count()) === 0, { what: 'the banner to go once answered elsewhere' });
  // The page showed every push itself: no system notification besides.
  expect(await shown(await worker())).toEqual([]);
});
