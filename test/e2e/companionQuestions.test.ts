// A blocked agent's question on the phone page, in a real Chromium at phone size against a real
// host: a fake agent blocked on a permission menu (raw-mode TUI, read by the screen detector)
// shows its question and choices; a tap on "Yes" answers it (the fake prints what it received);
// a tap on a question that changed before the tap arrived is refused and the current question
// shown. Screenshots of the list with a question, light and dark.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { launchChromium, PHONE_CONTEXT } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { printedBy } from '../helpers/printed';
import { waitFor } from '../helpers/waitFor';
import { screenshotDir } from './harness';

const FAKE_MENU = resolve(__dirname, '..', 'fakes', 'fakeMenuAgent.mjs');
type Host = Awaited<ReturnType<typeof startHostInProcess>>;
let browser: Browser;
let host: Host | null = null;
const contexts: BrowserContext[] = [];
const clients: ControlClient[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(screenshotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const c of contexts.splice(0)) await c.close();
  await host?.stop();
  host = null;
});

async function phonePage(scheme: 'dark' | 'light' = 'dark'): Promise<Page> {
  const ctx = await browser.newContext({ ...PHONE_CONTEXT, colorScheme: scheme });
  contexts.push(ctx);
  return ctx.newPage();
}

async function control(h: Host): Promise<ControlClient> {
  const c = await ControlClient.connect(h.env);
  if (!(c instanceof ControlClient)) throw new Error(c.message);
  clients.push(c);
  return c;
}

async function spawnFake(h: Host): Promise<string> {
  const dir = join(h.home, 'work', 'site');
  mkdirSync(dir, { recursive: true });
  const r = await (await control(h)).request('sessions.spawn', { agent: 'fakemenu', cwd: dir, title: 'deploy site' });
  if (!r.ok) throw new Error(r.error.message);
  return r.result.id;
}

const screenText = (h: Host, id: string): string => h.host.registry.get(id)!.session.screenLines().join('\n');
const card = (page: Page, id: string) => page.locator(`#needs .question[data-session="${id}"]`);

it("shows a blocked agent's question with its choices, answers a tap once, and refuses a stale tap", async () => {
  host = await startHostInProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  const id = await spawnFake(host);
  const printed = printedBy(host.host.registry.get(id)!.session);
  // Page → host messages pass through; host → page ones can be held, as a slow network would.
  let hold = false;
  const held: Array<string | Buffer> = [];
  let toPage: WebSocketRoute | null = null;
  const page = await phonePage();
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    toPage = ws;
    server.onMessage((m) => (hold ? held.push(m) : ws.send(m)));
  });
  await page.goto(`${host.base}/#t=${host.token()}`);

  await waitFor(async () => (await card(page, id).locator('.q-text').textContent()) === 'Do you want to proceed?', { what: 'the question on the page' });
  expect(await card(page, id).locator('.c-label').allTextContents()).toEqual(['Yes', "Yes, and don't ask again for rm commands", 'No']);
  expect(await card(page, id).locator('.q-context').textContent()).toContain('rm -rf build/cache');
  expect(await page.locator(`#groups .row[data-session="${id}"] .q-line`).textContent()).toBe('Do you want to proceed?');
  await page.screenshot({ path: join(screenshotDir, 'companion-question-phone-dark.png') });

  await card(page, id).locator('.choice', { hasText: /^Yes$/ }).click();
  await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes' });
  // The agent asks its next question; the page follows.
  await waitFor(async () => (await card(page, id).locator('.q-text').textContent()) === 'Do you want to make this edit to app.ts?', {
    what: 'the next question on the page',
  });
  const secondId = await card(page, id).getAttribute('data-question');

  // The question changes under the reader while the page has not heard yet: its tap is refused.
  hold = true;
  const before = host.host.host.questions.get(id)!.id;
  expect(before).toBe(secondId);
  process.kill(host.host.registry.get(id)!.session.pid, 'SIGUSR1');
  await waitFor(() => (host!.host.host.questions.get(id)?.id ?? before) !== before, { what: 'the host to read the new question' });
  await card(page, id).locator('.choice', { hasText: /^Yes$/ }).click();
  await waitFor(() => held.some((m) => String(m).includes('"answerRefused"')), { what: 'the host to refuse the stale tap' });
  hold = false;
  for (const m of held.splice(0)) toPage!.send(m);
  await waitFor(async () => (await card(page, id).locator('.q-refused').count()) === 1, { what: 'the refusal on the page' });
  expect(await card(page, id).locator('.q-refused').textContent()).toBe('Not sent: the question changed before your tap arrived. It asks now:');
  expect(await card(page, id).locator('.q-context').textContent()).toContain('npm publish');
  // Nothing reached the agent: it still asks about npm publish, and received nothing more.
  expect(screenText(host, id)).toContain('npm publish');
  expect(screenText(host, id)).not.toContain('received');

  // The current question can be answered: the choice goes through.
  await card(page, id).locator('.choice', { hasText: /^No$/ }).click();
  await waitFor(() => printed().includes('received: No'), { what: 'the fake agent to receive No' });
});

it('shows the list with a question clearly in light mode too', async () => {
  host = await startHostInProcess({ agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } } });
  const id = await spawnFake(host);
  await host.spawnShell('notes', host.home);
  const page = await phonePage('light');
  await page.goto(`${host.base}/#t=${host.token()}`);
  await waitFor(async () => (await card(page, id).count()) === 1, { what: 'the question on the page' });
  await page.screenshot({ path: join(screenshotDir, 'companion-question-phone-light.png') });
  expect(await card(page, id).locator('.choice').count()).toBe(3);
});
