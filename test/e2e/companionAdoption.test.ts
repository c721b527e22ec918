// The web companion through a lost host, in a real browser (Debian's chromium, headless): a
// paired page showing a held session's terminal when termio-host is killed with SIGKILL says
// the host is unreachable, and once the next termio-host has adopted the session it reconnects
// by itself (same pairing, same port), lists the same session and mirrors its terminal live.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { repoRoot, startHostProcess } from '../helpers/companionHost';
import { endProcessesWithHome, isAlive, waitForExit } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';

type Home = Awaited<ReturnType<typeof startHostProcess>>;
let browser: Browser;
let home: Home | null = null;
let next: ChildProcess | null = null;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
  if (next?.pid && next.exitCode === null) {
    // SIGTERM is `termio host stop`: it ends the held sessions too.
    next.kill('SIGTERM');
    await waitForExit(next.pid, 'the second termio-host to stop');
  }
  next = null;
  if (home) await endProcessesWithHome(home.home);
  await home?.stop();
  home = null;
});

it('reconnects a page by itself after a SIGKILL of the host, to the same session adopted by the next host', async () => {
  home = await startHostProcess();
  const h = home;
  const id = await h.spawnShell('held shell');
  const c = await h.client();
  const info = await c.request('sessions.list', {});
  if (!info.ok) throw new Error(info.error.message);
  const pid = info.result.sessions.find((s) => s.id === id)!.pid;

  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  contexts.push(ctx);
  const page = await ctx.newPage();
  // The companion starts once the host listens.
  await waitFor(async () => (await fetch(`${h.base}/`).catch(() => null))?.ok, { what: 'the companion to listen' });
  await page.goto(`${h.base}/#t=${h.token()}`);
  await page.locator(`.row[data-session="${id}"]`).click();
  const term = page.locator('#term .xterm-rows');
  await waitFor(async () => (await term.textContent())?.includes('$'), { what: 'the terminal' });
  const conn = async (): Promise<string | null> => page.locator('#conn').textContent();
  expect(await conn()).toBe('Live');

  c.close();
  h.child.kill('SIGKILL');
  await waitForExit(h.child.pid!, 'the killed host to go');
  expect(isAlive(pid)).toBe(true);
  await waitFor(async () => (await conn()) === 'Host unreachable', { what: 'the page to say the host is unreachable' });

  // The next host, as the app or a `termio` command would start it.
  next = spawn(process.execPath, [join(repoRoot, 'bin', 'termio-host')], { env: { ...h.env, PS1: '$ ', ENV: '' }, stdio: 'ignore' });
  await waitFor(async () => (await conn()) === 'Live', { timeout: 30_000, what: 'the page to reconnect on its own' });
  expect(await page.locator(`.row[data-session="${id}"]`).count()).toBe(1);
  const c2 = await h.client();
  const after = await c2.request('sessions.list', {});
  if (!after.ok) throw new Error(after.error.message);
  expect(after.result.sessions.find((s) => s.id === id)?.pid).toBe(pid);
  // Live again: what the adopted shell prints now reaches the page's terminal.
  c2.input(await attachView(c2, id), { kind: 'text', text: 'echo typed-after-adoption\r' });
  await waitFor(async () => (await term.textContent())?.includes('typed-after-adoption'), { what: 'output after the adoption in the page' });
}, 90_000);

/** Attaches a view to the session (input goes to a view) and returns its number. */
async function attachView(c: Awaited<ReturnType<Home['client']>>, id: string): Promise<number> {
  const r = await c.request('attach', { session: id, view: 1, cols: 80, rows: 24 });
  if (!r.ok) throw new Error(r.error.message);
  return 1;
}
