// Light and dark appearance on the real app: TERMIO_APPEARANCE=light (standing in for a light
// OS) and the "light" theme setting paint the chrome, the sidebar's rows, the settings window and
// a shell session's terminal light; changing the setting restyles everything live, and 'system'
// goes back to what the OS (here the override, else Qt's fallback palette → dark) says.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { darkChrome, lightChrome, type ChromeColors } from '../../src/app/ui/chromeStyle';
import { darkTheme, lightTheme } from '../../src/terminal/common/theme';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, fractionNear, hexToRgb, installFakeAgents, listSessions, readPixels, type Rgb, useDesktop } from './harness';

const SIDEBAR_PX = 250; // mainWindow.ts SIDEBAR_WIDTH_PX
const mod = process.platform === 'darwin' ? 'super' : 'ctrl';
const keys = { settings: `${mod}+comma`, picker: process.platform === 'darwin' ? 'super+t' : 'ctrl+shift+t' };
const rgb = (n: number): Rgb => ({ r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 });

function writeSettings(home: string, settings: object): string {
  const file = join(home, '.termio', 'config', 'settings.json');
  mkdirSync(join(home, '.termio', 'config'), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ welcomeShown: true, ...settings }, null, 2)}\n`);
  return file;
}

describe.skipIf(e2eSkipReason)('appearance', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    size: '1400x900x24',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  /** The window's sidebar strip and its page area (right of the sidebar), as pixels. */
  const regions = (a: AppUnderTest, win: string, name: string) => {
    const geo = a.windowGeometry(win);
    const shot = a.screenshot(name);
    return {
      shot,
      geo,
      sidebar: readPixels(shot, geo.x, geo.y, SIDEBAR_PX, geo.height),
      page: readPixels(shot, geo.x + SIDEBAR_PX + 1, geo.y, geo.width - SIDEBAR_PX - 1, geo.height),
    };
  };

  /** Waits until the sidebar is in `chrome`'s colours and the page in `page`'s (Qt paints after the event). */
  const waitForLook = (a: AppUnderTest, win: string, name: string, chrome: ChromeColors, page: Rgb) =>
    waitFor(
      () => {
        const r = regions(a, win, name);
        return fractionNear(r.sidebar, hexToRgb(chrome.sidebar)) > 0.5 && fractionNear(r.page, page) > 0.6 ? r : null;
      },
      { timeout: 10_000, what: `${name}: sidebar ${chrome.sidebar} and page ${JSON.stringify(page)}` },
    );

  it('paints the window, the needs-you row, the terminal and settings light when the OS is light', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    // A field with a wrong type, so Settings shows its problems box.
    writeSettings(home, { terminal: { cursorStyle: 42 } });
    app = await AppUnderTest.launch(display, { home, env: { TERMIO_APPEARANCE: 'light' } });
    const win = await app.waitForWindow();
    await app.waitForLog(/appearance \{"appearance":"light","setting":"system"\}/);
    // The empty window: light chrome everywhere.
    const empty = await waitForLook(app, win, 'appearance-light-empty', lightChrome, hexToRgb(lightChrome.window));
    expect(fractionNear(empty.sidebar, hexToRgb(darkChrome.sidebar))).toBe(0);

    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    expect((await app.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
    const spawn = async (...args: string[]) => (await app!.cli(['sessions', 'spawn', ...args])).stdout.trim();
    const agent = await spawn('--agent', 'claude', '--cwd', home);
    const shell = await spawn('--cwd', home, '--title', 'light shell');
    await waitFor(async () => (await app!.cli(['sessions', 'read', agent])).stdout.includes('fake claude ready'), { what: 'the agent' });
    await app.cli(['sessions', 'focus', shell]);
    await app.cli(['sessions', 'send', agent, 'deploy it, ask first', '--enter']);
    await waitFor(async () => (await listSessions<{ id: string; state: string }>(app!)).find((x) => x.id === agent)?.state === 'attention', {
      what: 'attention',
    });

    // The shell's terminal is light (its margin too), and the needs-you row is the light orange.
    const r = await waitForLook(app, win, 'appearance-light-window', lightChrome, rgb(lightTheme.background));
    expect(fractionNear(r.page, rgb(darkTheme.background))).toBe(0);
    await waitFor(() => fractionNear(regions(app!, win, 'appearance-light-window').sidebar, hexToRgb(lightChrome.needsYou.background)) > 0.01 || null, {
      what: 'the light needs-you row',
    });

    // The picker overlay, in light.
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', keys.picker);
    await app.waitForLog(/picker opened/);
    await waitFor(() => fractionNear(regions(app!, win, 'appearance-light-picker').page, hexToRgb(lightChrome.card), 2) > 0.05 || null, {
      what: 'the light picker',
    });
    display.xdotool('key', 'Escape');

    // Settings, in light, with its problems box in the light banner colours.
    display.xdotool('key', keys.settings);
    const settingsWin = await app.waitForWindow('Termio Settings');
    await waitFor(
      () => {
        const geo = app!.windowGeometry(settingsWin);
        const shot = app!.screenshot('appearance-light-settings');
        const all = readPixels(shot, geo.x, geo.y, geo.width, geo.height);
        const top = readPixels(shot, geo.x, geo.y, geo.width, 50);
        // Pages in the window colour, agent cards in the card colour (white).
        const light = fractionNear(all, hexToRgb(lightChrome.window)) + fractionNear(all, hexToRgb(lightChrome.card));
        return light > 0.6 && fractionNear(top, hexToRgb(lightChrome.banner.background)) > 0.2;
      },
      { what: 'a light settings window with its problems box' },
    );
    // The Appearance tab (form controls), to look at.
    display.xdotool('windowfocus', '--sync', settingsWin);
    for (let i = 0; i < 4; i++) display.xdotool('key', 'ctrl+Tab');
    app.screenshot('appearance-light-settings-controls');
  });

  it('follows the theme setting live: light, then dark, then system (the override)', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    writeSettings(home, { terminal: { theme: 'light' } });
    // With no override, 'system' on a bare X server is dark (Qt's fallback palette says nothing).
    app = await AppUnderTest.launch(display, { home, env: {} });
    const win = await app.waitForWindow();
    await app.waitForLog(/appearance \{"appearance":"light","setting":"light"\}/);
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const shell = (await app.cli(['sessions', 'spawn', '--cwd', home])).stdout.trim();
    await app.cli(['sessions', 'focus', shell]);
    await waitForLook(app, win, 'appearance-setting-light', lightChrome, rgb(lightTheme.background));

    writeSettings(home, { terminal: { theme: 'dark' } });
    await app.waitForLog(/appearance \{"appearance":"dark","why":"settings changed"\}/);
    const dark = await waitForLook(app, win, 'appearance-setting-dark', darkChrome, rgb(darkTheme.background));
    expect(fractionNear(dark.page, rgb(lightTheme.background))).toBe(0);

    writeSettings(home, { terminal: { theme: 'light' } });
    await waitForLook(app, win, 'appearance-setting-light-again', lightChrome, rgb(lightTheme.background));

    writeSettings(home, { terminal: { theme: 'system' } });
    await waitForLook(app, win, 'appearance-setting-system', darkChrome, rgb(darkTheme.background));
  });

  it('lets TERMIO_APPEARANCE stand for the OS under "system", but not over a forced theme', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    writeSettings(home, { terminal: { theme: 'dark' } });
    app = await AppUnderTest.launch(display, { home, env: { TERMIO_APPEARANCE: 'light' } });
    const win = await app.waitForWindow();
    await app.waitForLog(/appearance \{"appearance":"dark","setting":"dark"\}/);
    await waitForLook(app, win, 'appearance-forced-dark', darkChrome, hexToRgb(darkChrome.window));
    writeSettings(home, { terminal: { theme: 'system' } });
    await app.waitForLog(/appearance \{"appearance":"light","why":"settings changed"\}/);
    await waitForLook(app, win, 'appearance-system-override', lightChrome, hexToRgb(lightChrome.window));
  });

  it('shows the first-launch welcome in light', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    app = await AppUnderTest.launch(display, { home, welcome: true, env: { TERMIO_APPEARANCE: 'light' } });
    const welcome = await app.waitForWindow('Welcome to Termio');
    await waitFor(
      () => {
        const geo = app!.windowGeometry(welcome);
        const px = readPixels(app!.screenshot('appearance-light-welcome'), geo.x, geo.y, geo.width, geo.height);
        return fractionNear(px, hexToRgb(lightChrome.window)) > 0.6 && fractionNear(px, hexToRgb(lightChrome.primary.background)) > 0.002;
      },
      { what: 'a light welcome with its primary button' },
    );
  });
});
