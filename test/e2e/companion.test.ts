// The web companion in a real browser (Debian's chromium, headless, playwright-core) against a
// real session host with two sessions: unpaired pages see nothing and get 401s; a paired page
// lists both sessions, shows a state change within a second, mirrors a session's terminal and
// types into it; a session that stopped on a failure shows the reason in its own colour; the host
// going away is shown and recovered from; revoking disconnects the page.
// Screenshots at phone (390×844) and desktop size, dark and light.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchChromium, watchTraffic } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { waitFor } from '../helpers/waitFor';
import { screenshotDir } from './harness';

type Host = Awaited<ReturnType<typeof startHostInProcess>>;
let browser: Browser;
let host: Host | null = null;
const contexts: BrowserContext[] = [];

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(screenshotDir, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
  await host?.stop();
  host = null;
});

async function newPage(opts: { phone?: boolean; scheme?: 'dark' | 'light' } = {}): Promise<Page> {
  const ctx = await browser.newContext({
    viewport: opts.phone === false ? DESKTOP : PHONE,
    deviceScaleFactor: 2,
    ...(opts.phone === false ? {} : { isMobile: true, hasTouch: true }),
    colorScheme: opts.scheme ?? 'dark',
  });
  contexts.push(ctx);
  return ctx.newPage();
}

async function twoSessions(h: Host): Promise<{ alpha: string; beta: string }> {
  const alphaDir = join(h.home, 'work', 'alpha');
  const betaDir = join(h.home, 'play', 'beta');
  mkdirSync(alphaDir, { recursive: true });
  mkdirSync(betaDir, { recursive: true });
  return { alpha: await h.spawnShell('alpha shell', alphaDir), beta: await h.spawnShell('beta shell', betaDir) };
}

const rowNames = (page: Page): Promise<string[]> => page.locator('#groups .row .title').allTextContents();

it('lists nothing and gets 401s without the token or with a wrong one', async () => {
  host = await startHostInProcess();
  await twoSessions(host);
  for (const hash of ['', `#t=${'W'.repeat(43)}`]) {
    const page = await newPage();
    const api: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/sessions')) api.push(r.status());
    });
    await page.goto(`${host.base}/${hash}`);
    await waitFor(async () => (await page.locator('#conn').textContent()) === 'Not paired', { what: 'the page to say it is not paired' });
    expect(await rowNames(page)).toEqual([]);
    expect(await page.locator('#notice-text').textContent()).toMatch(/Not paired/);
    // Not "no sessions": an unpaired page cannot know.
    expect(await page.locator('#empty').isVisible()).toBe(false);
    // Without a token the page does not even ask; with a wrong one the API said 401 (before the
    // page said "Not paired", which it says only after the answer).
    expect(api).toEqual(hash ? [401] : []);
    // The page's own API and WebSocket calls with this token are refused.
    const token = hash.slice(3);
    const probe = await page.evaluate(async (t) => {
      const api = await fetch('/api/sessions', { headers: { Authorization: `Bearer ${t}` } });
      const ws = await new Promise<string>((resolve) => {
        const s = new WebSocket(`ws://${location.host}/ws`, ['termio.v1', `auth.${t || 'none'}`]);
        s.onopen = () => resolve('open');
        s.onclose = (e) => resolve(`closed ${e.code}`);
      });
      return { api: api.status, ws };
    }, token);
    expect(probe).toEqual({ api: 401, ws: 'closed 1006' });
    await page.screenshot({ path: join(screenshotDir, `companion-unpaired-${hash ? 'wrong' : 'none'}.png`) });
  }
});

it('pairs, lists both sessions live, shows a state change pushed over its socket, and types into a session', async () => {
  host = await startHostInProcess();
  const { alpha, beta } = await twoSessions(host);
  const page = await newPage();
  const traffic = watchTraffic(page);
  await page.goto(`${host.base}/#t=${host.token()}`);
  await waitFor(async () => (await rowNames(page)).length === 2, { what: 'both sessions listed' });
  expect(await rowNames(page)).toEqual(['alpha shell', 'beta shell']);
  expect(await page.locator('#groups h2').allTextContents()).toEqual(['alpha', 'beta']);
  // The token left the address bar for the page's storage.
  expect(await page.evaluate(() => location.hash)).toBe('');
  expect(await page.evaluate(() => localStorage.getItem('termio.companion.token'))).toBe(host.token());

  // A state change in the host is pushed to the page over its open socket: no request, no
  // reconnect, no poll (what keeps it quick; bench/companion.mjs (a) times it).
  const [framesBefore, requestsBefore] = [traffic.frames.length, traffic.requests.length];
  host.host.registry.setState(beta, 'attention', 'test: a hook said it needs the user');
  await waitFor(() => page.locator(`.row[data-session="${beta}"][data-state="attention"]`).count(), { what: 'beta to need the user on the page' });
  const pushed = traffic.frames.slice(framesBefore).map((f) => JSON.parse(f) as { t: string; sessions?: Array<{ id: string; state: string }> });
  expect(pushed.some((m) => m.t === 'sessions' && m.sessions?.some((x) => x.id === beta && x.state === 'attention'))).toBe(true);
  expect(traffic.requests.slice(requestsBefore)).toEqual([]);
  expect(await page.locator('#needs .chip').allTextContents()).toEqual([expect.stringContaining('beta shell')]);
  expect(await page.title()).toBe('1 needs you · Termio');
  // Waiting sessions lead the strip, the one waiting longest first, each with its age in the
  // tray's words; a handled one (it still needs the user) goes after the queue.
  expect(await page.locator('#needs .chip .waiting-age').allTextContents()).toEqual([expect.stringMatching(/^waiting \d+ s$/)]);
  expect(await page.locator(`.row[data-session="${beta}"] .state`).textContent()).toMatch(/^waiting \d+ s$/);
  host.host.registry.setState(alpha, 'attention', 'test');
  const strip = () => page.locator('#needs .chip').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.session).join(' '));
  await waitFor(async () => (await strip()) === `${beta} ${alpha}`, { what: 'beta, then alpha, in the strip' });
  await page.screenshot({ path: join(screenshotDir, 'companion-queue-phone.png') });
  host.host.registry.handled(beta);
  await waitFor(async () => (await strip()) === `${alpha} ${beta}`, { what: 'alpha first once beta is handled' });
  host.host.registry.setState(alpha, 'working', 'test');
  await waitFor(() => page.locator(`.row[data-session="${alpha}"][data-state="working"]`).count(), { what: 'alpha working' });
  await page.screenshot({ path: join(screenshotDir, 'companion-list-phone-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(screenshotDir, 'companion-list-phone-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });

  // Open alpha: the terminal mirrors the host's screen, at the session's size, without resizing it.
  const session = host.host.registry.get(alpha)!.session;
  session.write('echo ready-$((6*7))\n');
  await waitFor(() => session.screenLines().includes('ready-42'), { what: 'the shell to answer' });
  await page.locator(`.row[data-session="${alpha}"]`).click();
  await waitFor(async () => (await page.locator('#term .xterm-rows').textContent())?.includes('ready-42'), { what: 'the snapshot in the page' });
  expect([session.cols, session.rows]).toEqual([80, 24]);
  await page.screenshot({ path: join(screenshotDir, 'companion-term-phone-watching-dark.png') });

  // Typing from the page goes to the session, and the session takes the page's size.
  await page.locator('#term .xterm').click();
  await page.keyboard.type('echo hi');
  await page.keyboard.press('Enter');
  await waitFor(() => session.screenLines().includes('hi'), { what: '`hi` on the host screen' });
  await waitFor(async () => (await page.locator('#term .xterm-rows').textContent())?.includes('$ echo hi'), { what: 'the echo in the page' });
  expect(session.cols).toBeLessThan(80);
  expect(session.cols).toBeGreaterThanOrEqual(40);
  const pageSize = await page.evaluate(() => document.querySelector('#term-view')?.getAttribute('data-holding'));
  expect(pageSize).toBe('true');
  // The key bar: Ctrl, then c, interrupts the line being typed; /bin/sh shows a fresh prompt.
  await page.keyboard.type('sleep 30');
  await page.locator('#ctrl').click();
  await page.keyboard.type('c');
  await page.locator('button[data-key="Enter"]').click();
  await waitFor(() => session.screenLines().filter((l) => l.startsWith('$ sleep 30')).length === 1 && session.screenLines().at(-1) !== '$ sleep 30', {
    what: 'Ctrl-C from the key bar',
  });
  // Another session needing you shows above the terminal, one tap away.
  host.host.registry.setState(beta, 'attention', 'test: needs the user again');
  await waitFor(() => page.locator(`#term-needs .chip[data-session="${beta}"]`).isVisible(), { what: 'beta above the terminal' });
  await page.screenshot({ path: join(screenshotDir, 'companion-term-phone-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(screenshotDir, 'companion-term-phone-light.png') });
  await page.locator(`#term-needs .chip[data-session="${beta}"]`).click();
  await waitFor(async () => (await page.locator('#heading').textContent()) === 'beta shell', { what: 'beta opened from the strip' });
});

it('opens a session tapped while the list is redrawn between the press and the release', async () => {
  host = await startHostInProcess();
  const h = host;
  const { beta } = await twoSessions(h);
  const page = await newPage({ phone: false });
  await page.goto(`${h.base}/#t=${h.token()}`);
  const row = page.locator(`.row[data-session="${beta}"]`);
  const box = (await waitFor(() => row.boundingBox(), { what: 'beta listed' }))!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  // A change of state sends a new list, redrawn under the pressed finger.
  h.host.registry.setState(beta, 'working', 'test: a hook said it works');
  await waitFor(() => page.locator(`.row[data-session="${beta}"][data-state="working"]`).count(), { what: 'the list redrawn' });
  await page.mouse.up();
  await waitFor(() => page.locator('#term-view').isVisible(), { what: "beta's terminal to open" });
  await waitFor(async () => (await page.locator('#heading').textContent()) === 'beta shell', { what: 'the heading to name beta' });
});

it('shows a session that stopped on a failure in its own colour, with the reason', async () => {
  host = await startHostInProcess();
  const { alpha, beta } = await twoSessions(host);
  host.host.registry.setState(alpha, 'attention', 'test: a hook said it needs the user');
  host.host.registry.setState(beta, 'attention', 'hooks: StopFailure', { kind: 'usage', reason: 'stopped: usage limit, resets 14:00' });
  for (const scheme of ['dark', 'light'] as const) {
    const page = await newPage({ scheme });
    await page.goto(`${host.base}/#t=${host.token()}`);
    const failed = page.locator(`.row[data-session="${beta}"]`);
    await waitFor(() => failed.locator('.failure-line').count(), { what: 'the failure on the page' });
    expect(await failed.locator('.failure-line').textContent()).toBe('usage limit, resets 14:00');
    expect(await failed.locator('.state').textContent()).toMatch(/^Stopped · /);
    // Its badge is the failure's red, not the orange of the one that needs you.
    const colour = (row: string) => page.locator(`.row[data-session="${row}"] .state`).evaluate((e) => getComputedStyle(e).color);
    expect(await colour(beta)).not.toBe(await colour(alpha));
    expect(await page.locator('#needs .chip.failed').allTextContents()).toEqual([expect.stringContaining('beta shell — usage limit, resets 14:00')]);
    await page.screenshot({ path: join(screenshotDir, `companion-list-failed-${scheme}.png`) });
  }
});

it('looks right on a desktop browser, dark and light', async () => {
  host = await startHostInProcess();
  const { alpha, beta } = await twoSessions(host);
  host.host.registry.setState(beta, 'attention', 'test');
  host.host.registry.setState(alpha, 'done', 'test');
  for (const scheme of ['dark', 'light'] as const) {
    const page = await newPage({ phone: false, scheme });
    await page.goto(`${host.base}/#t=${host.token()}`);
    await waitFor(async () => (await rowNames(page)).length === 2, { what: 'both sessions listed' });
    await page.screenshot({ path: join(screenshotDir, `companion-list-desktop-${scheme}.png`) });
    await page.locator(`.row[data-session="${alpha}"]`).click();
    await waitFor(() => page.locator('#term .xterm-rows').count(), { what: 'the terminal' });
    // A listing of known length: `ls -la /` depends on the machine's root, and on a busy one its
    // `etc` line scrolls out of the 24 rows the page mirrors.
    host.host.registry.get(alpha)!.session.write(`ls -ld /etc /usr /tmp; echo listed-${scheme}-$((6*7))\n`);
    await waitFor(async () => (await page.locator('#term .xterm-rows').textContent())?.includes(`listed-${scheme}-42`), { what: 'ls output in the page' });
    expect(await page.locator('#term .xterm-rows').textContent()).toContain('root root');
    await page.screenshot({ path: join(screenshotDir, `companion-term-desktop-${scheme}.png`) });
  }
});

it('says when the host is unreachable, reconnects with a fresh snapshot, and Revoke disconnects the page', async () => {
  host = await startHostInProcess();
  const { alpha } = await twoSessions(host);
  const page = await newPage();
  await page.goto(`${host.base}/#t=${host.token()}`);
  await page.locator(`.row[data-session="${alpha}"]`).click();
  await waitFor(async () => (await page.locator('#term .xterm-rows').textContent())?.includes('$'), { what: 'the terminal' });
  const c = await host.client();
  expect((await c.request('companion.disable', {})).ok).toBe(true);
  await waitFor(async () => (await page.locator('#conn').textContent()) === 'Host unreachable', { what: 'the page to say the host is unreachable' });
  expect(await page.locator('#notice-text').textContent()).toMatch(/unreachable/);
  await page.screenshot({ path: join(screenshotDir, 'companion-unreachable-phone-dark.png') });
  // Output while the page was away arrives with the fresh snapshot after the reconnect.
  host.host.registry.get(alpha)!.session.write('echo while-away\n');
  expect((await c.request('companion.enable', {})).ok).toBe(true);
  await waitFor(async () => (await page.locator('#conn').textContent()) === 'Live', { timeout: 20_000, what: 'the page to reconnect' });
  await waitFor(async () => (await page.locator('#term .xterm-rows').textContent())?.includes('while-away'), { what: 'the fresh snapshot' });

  const revoked = await c.request('companion.revoke', {});
  expect(revoked.ok).toBe(true);
  await waitFor(async () => (await page.locator('#conn').textContent()) === 'Revoked', { what: 'the page to be disconnected' });
  expect(await page.locator('#notice-text').textContent()).toMatch(/revoked/);
  expect(await rowNames(page)).toEqual([]);
  await page.screenshot({ path: join(screenshotDir, 'companion-revoked-phone-dark.png') });
});

it('raises a browser notification when a session starts needing you, and badges the tab', async () => {
  host = await startHostInProcess();
  const { beta } = await twoSessions(host);
  const ctx = await browser.newContext({ viewport: PHONE, colorScheme: 'dark' });
  contexts.push(ctx);
  await ctx.grantPermissions(['notifications'], { origin: host.base });
  // The browser's own Notification, with each title recorded as it is raised.
  await ctx.addInitScript(() => {
    const Real = window.Notification;
    const seen: string[] = [];
    (window as unknown as { __notes: string[] }).__notes = seen;
    window.Notification = class extends Real {
      constructor(title: string, opts?: NotificationOptions) {
        seen.push(title);
        super(title, opts);
      }
    } as typeof Notification;
  });
  const page = await ctx.newPage();
  await page.goto(`${host.base}/#t=${host.token()}`);
  await waitFor(async () => (await rowNames(page)).length === 2, { what: 'both sessions listed' });
  const favicon = (): Promise<string | null> => page.locator('#favicon').getAttribute('href');
  const idleIcon = await favicon();
  expect(idleIcon).toMatch(/^data:image\/png/);
  host.host.registry.setState(beta, 'attention', 'test');
  await waitFor(async () => (await page.evaluate(() => (window as unknown as { __notes: string[] }).__notes)).length === 1, { what: 'the notification' });
  expect(await page.evaluate(() => (window as unknown as { __notes: string[] }).__notes)).toEqual(['beta shell needs you']);
  await waitFor(async () => (await favicon()) !== idleIcon, { what: 'the favicon to show the aggregate' });
  // Still needing you on the next list: no second notification.
  host.host.registry.rename(beta, 'beta renamed');
  await waitFor(async () => (await rowNames(page)).includes('beta renamed'), { what: 'the rename' });
  expect(await page.evaluate(() => (window as unknown as { __notes: string[] }).__notes)).toHaveLength(1);
});

it('keeps a wide session readable on a phone: a readable font, scrolled sideways', async () => {
  host = await startHostInProcess();
  const c = await host.client();
  const wide = await c.request('sessions.run', { cwd: host.home, argv: ['/bin/sh'], cols: 200, rows: 50, title: 'wide' });
  if (!wide.ok) throw new Error(wide.error.message);
  const session = host.host.registry.get(wide.result.session.id)!.session;
  session.write(`printf '%s|end\\n' "$(printf 'x%.0s' $(seq 1 190))"\n`);
  const page = await newPage();
  await page.goto(`${host.base}/#t=${host.token()}`);
  await page.locator(`.row[data-session="${session.id}"]`).click();
  await waitFor(async () => (await page.locator('#term .xterm-rows').textContent())?.includes('|end'), { what: 'the wide line in the page' });
  const m = await page.evaluate(() => {
    const s = document.getElementById('term-scroll')!;
    const row = document.querySelector('#term .xterm-rows > div') as HTMLElement;
    return { scroll: s.scrollWidth, client: s.clientWidth, font: parseFloat(getComputedStyle(row).fontSize) };
  });
  expect(m.font).toBeGreaterThanOrEqual(8);
  expect(m.scroll).toBeGreaterThan(m.client);
  expect([session.cols, session.rows]).toEqual([200, 50]);
  await page.screenshot({ path: join(screenshotDir, 'companion-term-phone-wide.png') });
});
