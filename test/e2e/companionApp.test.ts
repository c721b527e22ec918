// The phone companion with the real app: the app and its session host under Xvfb, a fake Claude
// (with Termio's hooks installed) and a shell, the companion turned on in settings.json, and the
// page in Debian's chromium. The agent asking for the user reaches the page, pushed by the host
// over the page's socket once it decides so; `echo hi` typed in the page runs in the session the app's window shows,
// and the window repaints with it; `termio companion revoke` disconnects the page.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, PHONE_CONTEXT, watchTraffic } from '../helpers/browser';
import { freePort } from '../helpers/ports';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, installFakeAgents, readPixels, screenshotDir, useDesktop, type Rgb } from './harness';

describe.skipIf(e2eSkipReason)('the phone companion with the real app', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  let browser: Browser;
  useDesktop({ shots: 'companion-app', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the agent needing you, pushed by the host, types into the session the window shows, and is cut off by revoke', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    const project = join(home, 'project');
    mkdirSync(project);
    const port = await freePort();
    app = await AppUnderTest.launch(display, { home, settings: { companion: { enabled: true, port } } });
    const a = app;
    const win = await a.waitForWindow();
    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    expect((await a.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
    const agent = (await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', project])).stdout.trim();
    const shell = (await a.cli(['sessions', 'spawn', '--cwd', project, '--title', 'build shell'])).stdout.trim();
    await waitFor(async () => (await a.cli(['sessions', 'read', agent])).stdout.includes('fake claude ready'), { what: 'the agent' });
    // The window shows the shell (so the agent's state is not cleared by the user looking at it).
    await a.cli(['sessions', 'focus', shell]);

    const tokenFile = join(home, '.termio', 'companion-token');
    await waitFor(() => existsSync(tokenFile), { what: 'the pairing token' });
    const ctx = await browser.newContext(PHONE_CONTEXT);
    const page = await ctx.newPage();
    const traffic = watchTraffic(page);
    await page.goto(`http://127.0.0.1:${port}/#t=${readFileSync(tokenFile, 'utf8').trim()}`);
    await waitFor(async () => (await page.locator('#groups .row').count()) === 2, { what: 'both sessions on the page' });

    // The fake agent asks before deploying: its Notification hook says it needs the user, and the
    // host pushes the change to the page over its open socket, without the page asking (what
    // keeps it quick; bench/companion.mjs times it).
    const [framesBefore, requestsBefore] = [traffic.frames.length, traffic.requests.length];
    await a.cli(['sessions', 'send', agent, 'deploy it, ask first', '--enter']);
    await page.locator(`.row[data-session="${agent}"][data-state="attention"]`).waitFor({ timeout: 10_000 });
    const decided = a.log().match(new RegExp(`^(\\S+) DEBUG state \\{"id":"${agent}","from":"\\w+","to":"attention"`, 'm'));
    expect(decided, 'the host logged the change').not.toBeNull();
    const pushed = traffic.frames.slice(framesBefore).map((f) => JSON.parse(f) as { t: string; sessions?: Array<{ id: string; state: string }> });
    expect(pushed.some((m) => m.t === 'sessions' && m.sessions?.some((x) => x.id === agent && x.state === 'attention'))).toBe(true);
    expect(traffic.requests.slice(requestsBefore)).toEqual([]);
    await page.screenshot({ path: join(screenshotDir, 'companion-app-attention-phone.png') });

    // Typing `echo hi` in the page: the session runs it, and the app's window repaints with it.
    const geom = a.windowGeometry(win);
    const terminal = (png: string): Rgb[] => readPixels(png, 270, 10, geom.width - 290, geom.height - 60);
    const before = terminal(a.screenshot('companion-app-window-before'));
    await page.locator(`.row[data-session="${shell}"]`).click();
    await page.locator('#term .xterm').click();
    await page.keyboard.type('echo hi');
    await page.keyboard.press('Enter');
    await waitFor(async () => /^hi$/m.test((await a.cli(['sessions', 'read', shell])).stdout), { what: '`hi` in the session' });
    await waitFor(
      () => {
        const now = terminal(a.screenshot('companion-app-window-after'));
        return now.some((p, i) => p.r !== before[i]!.r || p.g !== before[i]!.g || p.b !== before[i]!.b);
      },
      { what: "the app's window to repaint with the echo" },
    );
    await page.screenshot({ path: join(screenshotDir, 'companion-app-terminal-phone.png') });

    // Revoke: the page is disconnected at once.
    expect((await a.cli(['companion', 'revoke'])).code).toBe(0);
    await waitFor(async () => (await page.locator('#conn').textContent()) === 'Revoked', { what: 'the page to be cut off' });
    await ctx.close();
  }, 120_000);
});
