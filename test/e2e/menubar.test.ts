// The menu-bar experience on a real desktop: a private D-Bus session bus, trayer as the system
// tray (XEmbed) and dunst as the notification daemon, all on a private Xvfb. The tray icon is
// checked pixel by pixel in each aggregate state (and animating while agents work), the open menu
// is screenshotted and used from the keyboard to jump to a session, and dunst must show a
// notification when a fake Claude Code asks for permission, and none while the user looks at it.
// The tray's own messages (what Termio.app uses on macOS) are shown and clicked here too, and
// `termio notify` from inside a session shows one whose click brings that session back.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';
import {
  AppUnderTest,
  desktopSkipReason,
  Display,
  fractionNear,
  hexToRgb,
  launchTrayApp,
  readPixels,
  repoRoot,
  screenshotDir,
  TrayDesktop,
  windowTree,
  type Rgb,
  type XWindow,
} from './harness';
import { darkStateColors } from '../../src/app/ui/stateColors';

/** The colour the menu-bar icon draws each aggregate state in (the one state palette). */
const stateColour = {
  idle: hexToRgb(darkStateColors.idle),
  working: hexToRgb(darkStateColors.working),
  done: hexToRgb(darkStateColors.done),
  attention: hexToRgb(darkStateColors.attention),
} as const;
type TrayState = keyof typeof stateColour;
/** The icon is drawn at ~22 px, so strokes are anti-aliased: allow for blending at the edges. */
const COLOUR_TOLERANCE = 12;
/** A state's colour must cover at least this share of the icon window (the idle outline alone covers ~8 %). */
const MIN_SHARE = 0.02;

describe.skipIf(desktopSkipReason)('menu bar: tray icon, tray menu and notifications', () => {
  let display: Display;
  let desktop: TrayDesktop;
  let app: AppUnderTest | undefined;
  beforeAll(async () => {
    display = await Display.start();
    desktop = await TrayDesktop.start(display);
  });
  afterAll(async () => {
    await desktop?.stop();
    await display?.stop();
  });
  afterEach(async (ctx) => {
    if (app) {
      app.screenshot(`menubar-${ctx.task.name}`);
      await app.stop();
      await app.cleanup();
      app = undefined;
    }
  });

  async function startApp(settings: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<{ app: AppUnderTest; win: string }> {
    return launchTrayApp(display, desktop, { settings, env, started: (a) => (app = a) });
  }

  async function spawnClaude(a: AppUnderTest, folderName: string): Promise<string> {
    const folder = join(a.home, folderName);
    mkdirSync(folder);
    const r = await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', folder]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    await waitFor(async () => (await a.cli(['sessions', 'read', id])).stdout.includes('fake claude ready'), { what: `the fake agent in ${folderName}` });
    return id;
  }

  /** The last session the app said the user looks at ('looking at' is logged on every change). */
  function lookingAt(a: AppUnderTest): string | null {
    const all = [...a.log().matchAll(/looking at (\{.*\})/g)];
    const last = all.at(-1);
    // Nothing logged yet: the app starts looking at nothing.
    return last ? (JSON.parse(last[1]!) as { id: string | null }).id : null;
  }

  /** The user turns to another window (here the tray panel takes the keyboard focus). */
  async function lookElsewhere(a: AppUnderTest): Promise<void> {
    display.xdotool('windowfocus', '--sync', desktop.panel()!.id);
    await waitFor(() => lookingAt(a) === null, { what: 'the app to see the user is elsewhere' });
  }

  /** Waits until the app has seen a session enter a state (its debug log names every change). */
  async function entered(a: AppUnderTest, id: string, state: string): Promise<void> {
    await a.waitForLog(new RegExp(`DEBUG state \\{"id":"${id}","from":"\\w+","to":"${state}"`));
  }

  /** How many hooks each session's fake agent has been asked to fire. */
  const hooksFired = new Map<string, number>();

  /**
   * What the agent's hooks report mid-turn: the session's own (fake) agent fires the event's
   * installed hooks (each with the state the manifest gives that event), so the report comes through the real launcher and reporter with the
   * session's secret and from the agent's own process, the only reports the app applies.
   */
  async function report(a: AppUnderTest, id: string, event: string, payload: Record<string, unknown> = {}): Promise<void> {
    const n = (hooksFired.get(id) ?? 0) + 1;
    hooksFired.set(id, n);
    const r = await a.cli(['sessions', 'send', id, `/hook ${event} ${JSON.stringify({ hook_event_name: event, cwd: a.home, ...payload })}`, '--enter']);
    expect(r.code, r.stderr).toBe(0);
    await waitFor(async () => (await a.cli(['sessions', 'read', id])).stdout.includes(`hooked ${event} #${n}`), { what: `${event} fired in ${id}` });
  }

  /** The pixels of the app's icon in the tray right now (a fresh screenshot each call). */
  function trayPixels(): { pixels: Rgb[]; icon: XWindow; shot: string } {
    const icon = desktop.trayIcon();
    if (!icon) throw new Error('no tray icon');
    const shot = display.screenshot(join(screenshotDir, 'menubar-current.png'));
    return { pixels: readPixels(shot, icon.x, icon.y, icon.width, icon.height), icon, shot };
  }

  function shares(pixels: Rgb[]): Record<TrayState, number> {
    const out = {} as Record<TrayState, number>;
    for (const s of Object.keys(stateColour) as TrayState[]) out[s] = fractionNear(pixels, stateColour[s], COLOUR_TOLERANCE);
    return out;
  }

  /** Waits until the tray icon is drawn in a state's colour (and no more urgent state's), then keeps a magnified crop. */
  async function waitForTray(state: TrayState, name: string, extra: (p: Rgb[]) => boolean = () => true): Promise<Rgb[]> {
    const more: Record<TrayState, TrayState[]> = {
      idle: ['working', 'done', 'attention'],
      done: ['working', 'attention'],
      working: ['attention', 'done'],
      attention: [],
    };
    let last: Record<TrayState, number> | null = null;
    try {
      return await waitFor(
        () => {
          const { pixels, shot } = trayPixels();
          const got = shares(pixels);
          last = got;
          if (got[state] < MIN_SHARE || more[state].some((s) => got[s] >= MIN_SHARE) || !extra(pixels)) return null;
          const panel = desktop.panel()!;
          spawnSync('convert', [
            shot,
            '-crop',
            `${panel.width + 16}x${panel.height}+${panel.x - 16}+${panel.y}`,
            '+repage',
            '-scale',
            '400%',
            join(screenshotDir, `menubar-tray-${name}.png`),
          ]);
          return pixels;
        },
        { timeout: 10_000, interval: 50, what: `the tray icon to show ${state} (${name})` },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; last colour shares: ${JSON.stringify(last)}`);
    }
  }

  const differs = (a: Rgb[], b: Rgb[]) => a.length !== b.length || a.some((p, i) => p.r !== b[i]!.r || p.g !== b[i]!.g || p.b !== b[i]!.b);

  it('shows each aggregate state, animates while working, counts who needs you, and jumps to a session from its menu', async () => {
    const { app: a } = await startApp();
    await waitForTray('idle', 'idle');

    const alpha = await spawnClaude(a, 'alpha');
    await lookElsewhere(a);
    await report(a, alpha, 'UserPromptSubmit');
    const working = await waitForTray('working', 'working');
    // The arc turns: a later frame differs from this one while the state stays working.
    await waitForTray('working', 'working-next-frame', (p) => differs(p, working));

    await report(a, alpha, 'Stop');
    await waitForTray('done', 'done');

    // Two agents stop at a permission prompt (their hooks' frames, as the fake agent's would send).
    const beta = await spawnClaude(a, 'beta');
    await lookElsewhere(a);
    await report(a, beta, 'PreToolUse', { tool_name: 'Bash' });
    await report(a, beta, 'PermissionRequest', { tool_name: 'Bash' });
    const one = await waitForTray('attention', 'attention-1');
    await waitFor(() => desktop.notifications().find((n) => n.body === 'beta · Asks to run Bash'), { what: 'a notification for beta' });

    const gamma = await spawnClaude(a, 'gamma');
    await lookElsewhere(a);
    await report(a, gamma, 'PermissionRequest', { tool_name: 'Edit' });
    // The badge now reads 2: same state colour, different pixels.
    await waitForTray('attention', 'attention-2', (p) => differs(p, one));

    // Open the menu: a right click on the tray icon.
    const icon = desktop.trayIcon()!;
    const before = new Set(visibleAppWindows().map((w) => w.id));
    const opened = (a.log().match(/tray menu opened/g) ?? []).length;
    display.xdotool('mousemove', String(icon.x + Math.floor(icon.width / 2)), String(icon.y + Math.floor(icon.height / 2)), 'click', '3');
    const line = await waitFor(() => [...a.log().matchAll(/tray menu opened (\{.*\})/g)][opened], { what: 'the tray menu to open' });
    const menu = await waitFor(() => visibleAppWindows().find((w) => !before.has(w.id) && w.height > 100), { what: 'the tray menu window' });
    const listed = (JSON.parse(line[1]!) as { sessions: string[] }).sessions;
    // Most urgent first: both sessions that need you (oldest first), then the finished one.
    expect(listed).toEqual([beta, gamma, alpha]);
    const shot = a.screenshot('menubar-menu');
    spawnSync('convert', [
      shot,
      '-crop',
      `${menu.width + 40}x${menu.y + menu.height + 8}+${Math.max(0, menu.x - 20)}+0`,
      '+repage',
      join(screenshotDir, 'menubar-menu-crop.png'),
    ]);
    // The menu is drawn: its area is no longer the empty desktop.
    const area = readPixels(shot, menu.x, menu.y, menu.width, menu.height);
    expect(fractionNear(area, { r: 0, g: 0, b: 0 }, 2)).toBeLessThan(0.5);

    // Keyboard: the second entry is gamma.
    display.xdotool('key', 'Down', 'Down', 'Return');
    await a.waitForLog(new RegExp(`session focused \\{"id":"${gamma}"`));
    await waitFor(() => !visibleAppWindows().some((w) => w.id === menu.id), { what: 'the menu to close' });
    await waitFor(() => lookingAt(a) === gamma, { what: 'the user to look at gamma' });
  });

  it('"Quit Termio" in the tray leaves the agents running; "Quit and End All Sessions" ends them all', async () => {
    const openTray = async (a: AppUnderTest) => {
      const icon = desktop.trayIcon()!;
      const opened = (a.log().match(/tray menu opened/g) ?? []).length;
      display.xdotool('mousemove', String(icon.x + Math.floor(icon.width / 2)), String(icon.y + Math.floor(icon.height / 2)), 'click', '3');
      await waitFor(() => [...a.log().matchAll(/tray menu opened/g)].length > opened, { what: 'the tray menu to open' });
    };
    let { app: a } = await startApp();
    const agent = await spawnClaude(a, 'kept');
    const pid = JSON.parse((await a.cli(['sessions', 'list', '--json'])).stdout).sessions[0].pid as number;
    // The menu's last two entries: Quit Termio, then Quit and End All Sessions (Up wraps to the end).
    await openTray(a);
    display.xdotool('key', 'Up', 'Up', 'Return');
    await waitFor(() => a.exit, { what: 'the app to quit' });
    expect(a.exit!.code).toBe(0);
    expect(isAlive(pid)).toBe(true);

    const home = a.home;
    a = await AppUnderTest.launch(display, { home, env: desktop.env() });
    app = a;
    await a.waitForWindow();
    await waitFor(() => desktop.trayIcon(), { what: 'the tray icon again' });
    expect((JSON.parse((await a.cli(['sessions', 'list', '--json'])).stdout).sessions as Array<{ id: string; pid: number }>).map((x) => [x.id, x.pid])).toEqual(
      [[agent, pid]],
    );
    const host = Number([...a.log().matchAll(/host listening .*"pid":(\d+)/g)].at(-1)![1]);
    await openTray(a);
    display.xdotool('key', 'Up', 'Return');
    await waitFor(() => a.exit, { what: 'the app to quit' });
    await waitFor(() => !isAlive(pid) && !isAlive(host), { timeout: 5_000, what: 'the agent and the host to end' });
  });

  it('notifies when an agent needs you, and not while you are looking at it', async () => {
    const { app: a, win } = await startApp();
    const delta = await spawnClaude(a, 'delta');
    // The user is in the Termio window with delta selected.
    display.xdotool('windowfocus', '--sync', win);
    expect((await a.cli(['sessions', 'focus', delta])).code).toBe(0);
    await waitFor(() => lookingAt(a) === delta, { what: 'the app to see the user looking at delta' });
    await a.cli(['sessions', 'send', delta, 'ask before editing', '--enter']);
    await entered(a, delta, 'attention');

    // Another agent asks while the user is elsewhere: that one is notified. Its notification
    // comes after delta's state change, so if delta had been notified, it would be there by now.
    const epsilon = await spawnClaude(a, 'epsilon');
    await lookElsewhere(a);
    await a.cli(['sessions', 'send', epsilon, 'ask before pushing', '--enter']);
    const shown = await waitFor(() => desktop.notifications().find((n) => n.body.includes('epsilon')), { what: 'a notification for epsilon' });
    expect(shown.summary).toBe('Claude Code needs you');
    // Which agent, which project, and what it waits for: the tool from its permission hook, or
    // the question on its screen when the host had read it by then (the fake prints it as its
    // hook reports, so either may come first).
    expect(shown.body).toMatch(/^epsilon · (Asks to run Bash|Allow Bash\(npm test\)\?)$/);
    await a.waitForLog(new RegExp(`INFO notification \\{"kind":"attention","session":"${epsilon}"`));
    expect(desktop.notifications().filter((n) => n.body.includes('delta'))).toEqual([]);
    expect(a.log()).not.toMatch(new RegExp(`notification \\{[^\\n]*"session":"${delta}"`));
  });

  it("notifies the end of a long turn (not a short one) and a program's own OSC 9 and OSC 777 messages", async () => {
    // Turns of at least 10 s count as long (the default). Eta's turn is two reports back to back,
    // far shorter even on a loaded machine; zeta's spans eta's and then passes 10 s.
    const { app: a } = await startApp();
    const eta = await spawnClaude(a, 'eta');
    const zeta = await spawnClaude(a, 'zeta');
    await lookElsewhere(a);
    await report(a, zeta, 'UserPromptSubmit');
    const turnStart = Date.now();
    await report(a, eta, 'UserPromptSubmit');
    await report(a, eta, 'Stop');
    await entered(a, eta, 'done');
    await waitFor(() => Date.now() - turnStart >= 10_200, { what: "zeta's turn to pass 10 s", timeout: 20_000 });
    await report(a, zeta, 'Stop');
    const finished = await waitFor(() => desktop.notifications().find((n) => n.body.startsWith('zeta · ')), { what: 'the end of the long turn notified' });
    expect(finished.summary).toBe('Claude Code finished');
    expect(finished.body).toMatch(/^zeta · after (\d+m )?\d+s$/);
    expect(desktop.notifications().filter((n) => n.body.startsWith('eta · '))).toEqual([]);

    // A plain shell in the background prints both kinds of terminal notification.
    const folder = join(a.home, 'theta');
    mkdirSync(folder);
    const shell = (await a.cli(['sessions', 'spawn', '--cwd', folder])).stdout.trim();
    await lookElsewhere(a);
    await a.cli(['sessions', 'send', shell, "printf '\\033]9;Build finished\\007'; printf '\\033]777;notify;Deploy;All green\\007'", '--enter']);
    await waitFor(() => desktop.notifications().find((n) => n.summary === 'Deploy' && n.body === 'All green'), { what: 'the OSC 777 notification' });
    await waitFor(() => desktop.notifications().find((n) => n.summary === 'Terminal' && n.body === 'Build finished'), { what: 'the OSC 9 notification' });
  });

  it('through the tray icon, as Termio.app on macOS posts: a click on the message opens the last notified session', async () => {
    // Qt's tray message is the path a signed bundle uses on macOS; on this XEmbed tray Qt shows it
    // as its own balloon, which the test can click (messageClicked does not say which message).
    const { app: a } = await startApp({}, { TERMIO_NOTIFIER: 'tray' });
    await a.waitForLog(/INFO notifications \{"backend":"tray"\}/);
    const iota = await spawnClaude(a, 'iota');
    const kappa = await spawnClaude(a, 'kappa');
    await lookElsewhere(a);
    const before = new Set(visibleAppWindows().map((w) => w.id));
    await a.cli(['sessions', 'send', iota, 'ask before pushing', '--enter']);
    await a.waitForLog(new RegExp(`INFO notification \\{"kind":"attention","session":"${iota}"`));
    await a.cli(['sessions', 'send', kappa, 'ask before pushing', '--enter']);
    await a.waitForLog(new RegExp(`INFO notification \\{"kind":"attention","session":"${kappa}"`));
    const balloon = await waitFor(() => visibleAppWindows().find((w) => !before.has(w.id)), { what: "the tray icon's message on screen" });
    display.screenshot(join(screenshotDir, 'menubar-tray-message.png'));
    // Nothing went through node-notifier to the notification daemon.
    expect(desktop.notifications().filter((n) => /iota|kappa/.test(n.body))).toEqual([]);
    const focused = (id: string) =>
      a
        .log()
        .split('\n')
        .filter((l) => l.includes(`session focused {"id":"${id}"}`)).length;
    const [iotaBefore, kappaBefore] = [focused(iota), focused(kappa)];
    display.xdotool('mousemove', '--sync', String(balloon.x + Math.round(balloon.width / 2)), String(balloon.y + Math.round(balloon.height / 2)), 'click', '1');
    await waitFor(() => focused(kappa) > kappaBefore, { what: 'the click to focus kappa, the last notified session' });
    expect(focused(iota)).toBe(iotaBefore);
  });

  it('termio notify from inside a session shows a notification naming that session', async () => {
    const { app: a } = await startApp();
    const folder = join(a.home, 'iota');
    mkdirSync(folder);
    const shell = (await a.cli(['sessions', 'spawn', '--cwd', folder])).stdout.trim();
    await a.cli(['sessions', 'send', shell, `${join(repoRoot, 'bin', 'termio')} notify --title Build 'all 212 tests pass'`, '--enter']);
    const shown = await waitFor(() => desktop.notifications().find((n) => n.body === 'all 212 tests pass'), { what: 'the notify notification' });
    expect(shown.summary).toBe('Build');
    // The app knows which session asked: a click (where the OS reports clicks) focuses it.
    await a.waitForLog(new RegExp(`INFO notification \\{"kind":"terminal","session":"${shell}","title":"Build"`));
    // Untitled, it names the session's agent and folder.
    await a.cli(['sessions', 'send', shell, `${join(repoRoot, 'bin', 'termio')} notify 'second one'`, '--enter']);
    const untitled = await waitFor(() => desktop.notifications().find((n) => n.body === 'second one'), { what: 'the untitled notification' });
    expect(untitled.summary).toBe('Terminal · iota');
  });

  it('a click on a termio notify message brings back the session that sent it', async () => {
    const { app: a, win } = await startApp({}, { TERMIO_NOTIFIER: 'tray' });
    await a.waitForLog(/INFO notifications \{"backend":"tray"\}/);
    const folder = join(a.home, 'lambda');
    mkdirSync(folder);
    const sender = (await a.cli(['sessions', 'spawn', '--cwd', folder])).stdout.trim();
    const other = (await a.cli(['sessions', 'spawn', '--cwd', folder])).stdout.trim();
    // The user is on the other session, in the window.
    display.xdotool('windowfocus', '--sync', win);
    expect((await a.cli(['sessions', 'focus', other])).code).toBe(0);
    await waitFor(() => lookingAt(a) === other, { what: 'the user to look at the other session' });
    const before = new Set(visibleAppWindows().map((w) => w.id));
    const focused = () =>
      a
        .log()
        .split('\n')
        .filter((l) => l.includes(`session focused {"id":"${sender}"}`)).length;
    const focusedBefore = focused();
    await a.cli(['sessions', 'send', sender, `${join(repoRoot, 'bin', 'termio')} notify --title Build 'deployed'`, '--enter']);
    await a.waitForLog(new RegExp(`INFO notification \\{"kind":"terminal","session":"${sender}","title":"Build"`));
    const balloon = await waitFor(() => visibleAppWindows().find((w) => !before.has(w.id) && w.height < 300), { what: 'the notify message on screen' });
    display.screenshot(join(screenshotDir, 'menubar-notify-message.png'));
    display.xdotool('mousemove', '--sync', String(balloon.x + Math.round(balloon.width / 2)), String(balloon.y + Math.round(balloon.height / 2)), 'click', '1');
    await waitFor(() => focused() > focusedBefore, { what: 'the click to focus the session that sent it' });
    await waitFor(() => lookingAt(a) === sender, { what: 'the user to look at the sender' });
  });

  /** Visible top-level windows of the app (the main window, the tray menu when open). */
  function visibleAppWindows(): XWindow[] {
    const ids = new Set(
      spawnSync('xdotool', ['search', '--onlyvisible', '--class', 'termio'], { env: { ...process.env, DISPLAY: display.name }, encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map((d) => `0x${Number(d).toString(16)}`),
    );
    return windowTree(display).filter((w) => ids.has(w.id) && w.depth <= 5);
  }
});
