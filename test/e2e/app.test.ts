// The foundation, end to end: the real app starts under Xvfb, shows its window, receives
// keyboard and mouse input, keeps running when the window closes, and exits cleanly on SIGTERM.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromeStyleSheet, darkChrome } from '../../src/app/ui/chromeStyle';
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { processesWithHome } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, descendants, e2eSkipReason, fractionNear, hexToRgb, isAlive, readPixels, repoRoot, useDesktop } from './harness';

describe.skipIf(e2eSkipReason)('Termio app', () => {
  let display: Display;
  let app: AppUnderTest | undefined;

  beforeAll(async () => {
    display = await Display.start();
  });
  afterAll(async () => {
    await display?.stop();
  });
  afterEach(async (ctx) => {
    if (app) {
      if (!app.exit) app.screenshot(`app-${ctx.task.name}`);
      await app.stop();
      await app.cleanup();
      app = undefined;
    }
  });

  // How soon the window is painted is a figure of bench/window.mjs ("window shown", at the first
  // painted frame); here, that a painted window appears at all.
  it('shows a painted window titled Termio', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow('Termio');
    const geo = app.windowGeometry(win);
    expect(geo.width).toBeGreaterThan(600);
    const bg = hexToRgb(darkChrome.window);
    const sidebar = hexToRgb(darkChrome.sidebar);
    // Qt paints after it maps the window: wait for the chrome's colours, the sidebar's among them.
    const pixels = await waitFor(
      () => {
        const px = readPixels(app!.screenshot('window-shown'), geo.x, geo.y, geo.width, geo.height);
        return fractionNear(px, bg) > 0.5 && fractionNear(px, sidebar) > 0.1 ? px : null;
      },
      { what: 'the window painted in the chrome colours' },
    );
    // Most of the window is the chrome's background, and the sidebar strip is there too.
    expect(fractionNear(pixels, bg)).toBeGreaterThan(0.5);
    expect(fractionNear(pixels, sidebar)).toBeGreaterThan(0.1);
    expect(chromeStyleSheet()).toContain(darkChrome.window);
  });

  it('delivers key presses and mouse clicks to JavaScript', async () => {
    app = await AppUnderTest.launch(display, { env: { TERMIO_TRACE_INPUT: '1' } });
    const win = await app.waitForWindow();
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('type', '--delay', '20', 'qz');
    await app.waitForLog(/input key \{"key":81,"text":"q"/);
    await app.waitForLog(/input key \{"key":90,"text":"z"/);
    const geo = app.windowGeometry(win);
    display.xdotool('mousemove', String(geo.x + 600), String(geo.y + 300), 'click', '1');
    const m = await app.waitForLog(/input mouse \{"x":(\d+),"y":(\d+),"button":1\}/);
    expect(Number(m[1])).toBeGreaterThan(300);
  });

  it('keeps running when its window closes; SIGTERM detaches without waiting out a deadline and the sessions keep running in the host', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow();
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', process.platform === 'darwin' ? 'super+shift+w' : 'ctrl+shift+q'); // Close Window
    await app.waitForLog(/window closed/);
    // xdotool search exits non-zero when no visible window matches.
    expect(() => display.xdotool('search', '--onlyvisible', '--name', '^Termio$')).toThrow();
    expect(app.exit).toBeNull();
    expect(isAlive(app.pid)).toBe(true);
    // Two shells, one running a job: they belong to the session host, not to the app.
    for (const cmd of ['sleep 600', '']) {
      const id = (await app.cli(['sessions', 'spawn', '--cwd', app.home])).stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      if (cmd) await app.cli(['sessions', 'send', id, cmd, '--enter']);
    }
    const hostPid = Number(app.log().match(/host listening .*"pid":(\d+)/)?.[1]);
    const job = await waitFor(() => descendants(hostPid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\u0000600')), {
      what: 'the job running under the session host',
    });
    // It quit by its own path, with nothing to wait out: exit 0 on the SIGTERM, neither the
    // harness's SIGKILL nor the app's own quit deadline (QUIT_DEADLINE_MS in quitPath.ts).
    const result = await app.stop();
    expect([result.code, result.signal]).toEqual([0, null]);
    expect(app.log()).not.toContain('quit deadline passed');
    expect(isAlive(job)).toBe(true);
    const sessions = descendants(hostPid);
    // `termio host stop` ends them all, and the host.
    expect((await app.cli(['host', 'stop'])).code).toBe(0);
    expect([hostPid, ...sessions].filter(isAlive)).toEqual([]);
  });

  it('after a test, nothing runs with its HOME, not even a daemon that left the session (like codex app-server)', async () => {
    app = await AppUnderTest.launch(display);
    // The app's window, not only the host's socket: a SIGTERM before the app is up would kill it
    // before it handles the signal.
    await app.waitForWindow();
    const id = (await app.cli(['sessions', 'spawn', '--cwd', app.home])).stdout.trim();
    // setsid: its own session and process group, as Codex's app-server daemon does; quitting the app ends the tab, not it.
    await app.cli(['sessions', 'send', id, 'setsid sleep 900 </dev/null >/dev/null 2>&1 &', '--enter']);
    const daemon = await waitFor(() => processesWithHome(app!.home).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\u0000900')), {
      what: 'the detached daemon',
    });
    expect(await app.stop()).toMatchObject({ code: 0 });
    expect(isAlive(daemon)).toBe(true);
    const home = app.home;
    expect(await app.cleanup()).toContain(daemon);
    app = undefined;
    expect(processesWithHome(home)).toEqual([]);
  });
});

describe.skipIf(e2eSkipReason)('a second launch', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'second-launch',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  it('hands over to the running app, which shows its window again, and exits', async () => {
    app = await AppUnderTest.launch(display);
    const win = await app.waitForWindow();
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', process.platform === 'darwin' ? 'super+shift+w' : 'ctrl+shift+q'); // Close Window
    await app.waitForLog(/window closed/);
    expect(() => display.xdotool('search', '--onlyvisible', '--name', '^Termio$')).toThrow();

    const second = spawnSync(process.execPath, [join(repoRoot, 'dist', 'app', 'main.js')], {
      env: AppUnderTest.envFor(display, app.home, app.termioHome),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(second.status, second.stderr).toBe(0);
    await app.waitForWindow('Termio', 5_000);
    expect(app.exit).toBeNull();
    expect(app.log()).toContain('Termio is already running; handing over to it');
  });
});

describe.skipIf(e2eSkipReason)('npm start', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    shots: 'npm-start',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  it('sets up (nothing to do after npm test) and opens the Termio window; SIGTERM reaches the app', async () => {
    app = await AppUnderTest.launch(display, {
      command: [process.execPath, join(repoRoot, 'scripts', 'setup.mjs'), '--run-app'],
      // The test's HOME is temporary: point set-up at the build cache the suite already filled.
      env: { TERMIO_BUILD_CACHE: process.env.TERMIO_BUILD_CACHE ?? join(homedir(), '.cache', 'termio'), TERMIO_SETUP_QUIET: '1' },
    });
    await app.waitForWindow('Termio', 20_000);
    // The session host the app started is its child until the app exits, and outlives it by design.
    const hostPid = Number((await app.waitForLog(/host listening .*"pid":(\d+)/))[1]);
    const children = descendants(app.pid).filter((pid) => pid !== hostPid && !descendants(hostPid).includes(pid));
    const result = await app.stop();
    expect(result.code).toBe(0);
    expect(children.filter(isAlive)).toEqual([]);
    expect(isAlive(hostPid)).toBe(true);
  });
});
