// The app a person lives in, driven by the keyboard and the termio CLI: three sessions in two
// folders, a fake agent moving through every state while the sidebar follows, switching,
// renaming and jumping by name from the keyboard, the settings window (with a broken field in
// settings.json reported while the rest applies), and the first-launch welcome.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { darkChrome } from '../../src/app/ui/chromeStyle';
import { AppUnderTest, Display, e2eSkipReason, fractionNear, hexToRgb, installFakeAgents, listSessions, readPixels, useDesktop } from './harness';

interface Info {
  id: string;
  agentId: string | null;
  cwd: string;
  title: string;
  state: string;
}

const mod = process.platform === 'darwin' ? 'super' : 'ctrl';
const keys = {
  next: process.platform === 'darwin' ? 'super+shift+bracketright' : 'ctrl+Next',
  rename: `${mod}+shift+r`,
  jump: process.platform === 'darwin' ? 'super+p' : 'ctrl+shift+p',
  settings: `${mod}+comma`,
};

describe.skipIf(e2eSkipReason)('the Termio window', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({
    size: '1400x900x24',
    started: (d) => (display = d),
    current: () => app,
    done: () => (app = undefined),
  });

  const focusedLog = (a: AppUnderTest) => [...a.log().matchAll(/session focused \{"id":"([^"]+)"/g)].map((m) => m[1]);

  it('follows a fake agent through every state, and switches, renames and jumps by keyboard', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    const [api, web] = ['api', 'web'].map((n) => join(home, n));
    mkdirSync(api!);
    mkdirSync(web!);
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    expect((await app.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
    const spawn = async (...args: string[]) => (await app!.cli(['sessions', 'spawn', ...args])).stdout.trim();
    const agent = await spawn('--agent', 'claude', '--cwd', api!);
    const shell = await spawn('--cwd', api!, '--title', 'build watcher');
    const notes = await spawn('--cwd', web!, '--title', 'landing page');
    const list = () => listSessions<Info>(app!);
    const stateOf = async (id: string) => (await list()).find((s) => s.id === id)?.state;
    await waitFor(async () => (await app!.cli(['sessions', 'read', agent])).stdout.includes('fake claude ready'), { what: 'the agent' });

    // Look at another session, so the agent's states are not cleared by the user looking at it.
    await app.cli(['sessions', 'focus', notes]);
    display.xdotool('windowfocus', '--sync', win);
    await app.cli(['sessions', 'send', agent, 'deploy it, ask first', '--enter']);
    await waitFor(async () => (await stateOf(agent)) === 'attention', { what: 'attention' });
    const shot = app.screenshot('window-attention');
    // The "needs you" row is painted orange in the sidebar (x < 250).
    const sidebar = readPixels(shot, 0, 0, 250, 400);
    expect(fractionNear(sidebar, hexToRgb('#ff9f43'), 20) + fractionNear(sidebar, hexToRgb('#3d2a14'), 8)).toBeGreaterThan(0.01);
    await app.cli(['sessions', 'send', agent, 'yes', '--enter']);
    await waitFor(async () => (await stateOf(agent)) === 'done', { what: 'done' });
    app.screenshot('window-populated');

    // Keyboard: from the shell, next session (the row below it: notes), then rename it, then
    // jump to the agent by name.
    await app.cli(['sessions', 'focus', shell]);
    await waitFor(() => focusedLog(app!).at(-1) === shell, { what: 'the shell shown' });
    display.xdotool('windowfocus', '--sync', win);
    const before = focusedLog(app).length;
    display.xdotool('key', keys.next);
    await waitFor(() => focusedLog(app!).length > before, { what: 'next session' });
    const current = focusedLog(app).at(-1)!;
    expect(current).toBe(notes);
    display.xdotool('key', keys.rename);
    display.xdotool('type', '--delay', '15', 'renamed by keyboard');
    display.xdotool('key', 'Return');
    await waitFor(async () => (await list()).find((s) => s.id === current)?.title === 'renamed by keyboard', { what: 'the rename' });
    display.xdotool('key', keys.jump);
    display.xdotool('type', '--delay', '20', 'claude');
    app.screenshot('window-jump');
    display.xdotool('key', 'Return');
    await waitFor(() => focusedLog(app!).at(-1) === agent, { what: 'the jump to the agent' });
    // Looking at a finished session makes it idle.
    await waitFor(async () => (await stateOf(agent)) === 'idle', { what: 'done → idle once looked at' });
    // The strip under the sidebar says why, in words.
    await app.waitForLog(/why shown \{"text":"Idle — you looked at it, just now"\}/);
    app.screenshot('window-sidebar');

    // The mouse: clicks down the sidebar land on each of the three rows (headings and gaps do
    // nothing), whatever the exact row heights are.
    const geo = app.windowGeometry(win);
    const clicked = focusedLog(app).length;
    for (let y = 30; y < 260; y += 12) {
      display.xdotool('mousemove', String(geo.x + 120), String(geo.y + y), 'click', '1');
    }
    await waitFor(() => new Set(focusedLog(app!).slice(clicked)).size === 3, { what: 'a click on every row' });
    expect(new Set(focusedLog(app).slice(clicked))).toEqual(new Set([agent, shell, notes]));
  });

  it('scrolls the sidebar to the session it switches to, among more than fit', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await waitFor(async () => (await app!.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await app.cli(['sessions', 'spawn', '--cwd', home, '--title', `shell ${i + 1}`])).stdout.trim());
    const geo = app.windowGeometry(win);
    // The selected row's fill is on screen in the sidebar column (left 250 px, below the heading).
    const selectionShown = (name: string) =>
      fractionNear(readPixels(app!.screenshot(name), geo.x, geo.y + 30, 240, geo.height - 80), hexToRgb(darkChrome.selection), 2) > 0.01;
    for (const [id, name] of [
      [ids[0]!, 'sidebar-first'],
      [ids[24]!, 'sidebar-last'],
      [ids[0]!, 'sidebar-first-again'],
    ] as const) {
      await app.cli(['sessions', 'focus', id]);
      await waitFor(() => selectionShown(name), { what: `the row of ${name} in view` });
    }
  });

  it('reports a settings field with a wrong type, keeps the others, and shows the settings window', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    const settingsFile = join(home, '.termio', 'config', 'settings.json');
    mkdirSync(join(home, '.termio', 'config'), { recursive: true });
    writeFileSync(
      settingsFile,
      '{\n  "welcomeShown": true,\n  "terminal": { "fontSize": "huge", "scrollback": 2000 },\n  "notifications": { "sound": false }\n}\n',
    );
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    await app.waitForLog(/settings problem \{"message":".*terminal\.fontSize: expected number, got \\"huge\\"; using the default"\}/);
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', keys.settings);
    const settingsWin = await app.waitForWindow('Termio Settings');
    // Mapped is not yet painted in front: wait until the screen shows the problem banner (orange)
    // at the top of the settings window.
    await waitFor(
      () => {
        const geo = app!.windowGeometry(settingsWin);
        const top = readPixels(app!.screenshot('settings-window'), geo.x, geo.y, geo.width, 60);
        return fractionNear(top, hexToRgb('#4a2f12'), 8) > 0.2;
      },
      { what: 'the settings window with its problem banner on screen' },
    );
    // The valid fields still apply: the app reads scrollback 2000 and sound off.
    const r = await app.cli(['sessions', 'spawn', '--cwd', home]);
    expect(r.code).toBe(0);
  });

  it('offers live status on first launch for the agents on the PATH, and installs it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    installFakeAgents(home, ['claude']);
    app = await AppUnderTest.launch(display, { home, welcome: true });
    const welcome = await app.waitForWindow('Welcome to Termio');
    await app.waitForLog(/welcome shown \{"agents":\["claude"\]\}/);
    app.screenshot('welcome');
    // It sits over the session pages, clear of the sidebar (250 px), centred across them.
    const main = app.windowGeometry(await app.waitForWindow());
    const card = app.windowGeometry(welcome);
    expect(card.x).toBeGreaterThanOrEqual(main.x + 250);
    const pagesCentre = main.x + 250 + (main.width - 250) / 2;
    expect(Math.abs(card.x + card.width / 2 - pagesCentre)).toBeLessThanOrEqual(2);
    display.xdotool('windowfocus', '--sync', welcome);
    // Keyboard focus starts on "Turn on live status".
    display.xdotool('key', 'space');
    await app.waitForLog(/hooks changed \{"agentId":"claude","on":true,"state":"installed"/);
    const hooks = await app.cli(['hooks', 'status', '--agent', 'claude', '--json']);
    expect(hooks.stdout).toContain('"installed"');
  });
});
