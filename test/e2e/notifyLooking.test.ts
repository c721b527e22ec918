// A needs-you is skipped only while its session is on screen in a focused Termio window: on a
// real desktop (private Xvfb, D-Bus session bus, dunst as the notification daemon), as a new user
// would try it: an agent of their own manifest, whose screen rule says it waits for the user,
// asks while another session is the one shown; an agent that was the one shown asks once its
// window has lost the focus to another program, or has been closed into the tray; and what the
// window shows is what the host hears, as sessions open in it and close.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, desktopSkipReason, Display, TrayDesktop } from './harness';

describe.skipIf(desktopSkipReason)('a needs-you notification and the session you look at', () => {
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
    if (!app) return;
    app.screenshot(`notifyLooking-${ctx.task.name}`);
    await app.stop();
    await app.cleanup();
    app = undefined;
  });

  /** The app with a user manifest whose agent asks `Continue? (y/n)` once it is told `go`. */
  async function startApp(): Promise<{ a: AppUnderTest; win: string }> {
    const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
    const bin = join(home, 'bin');
    mkdirSync(bin, { recursive: true });
    const asker = join(bin, 'asker');
    writeFileSync(asker, "#!/bin/sh\necho 'asker ready'\nwhile read -r line; do\n  [ \"$line\" = go ] && printf 'Apply the change? Continue? (y/n) '\ndone\n");
    chmodSync(asker, 0o755);
    writeFileSync(join(home, '.bash_profile'), `export PATH="${bin}:$PATH"\n`);
    mkdirSync(join(home, '.termio', 'config', 'agents'), { recursive: true });
    writeFileSync(
      join(home, '.termio', 'config', 'agents', 'asker.json'),
      JSON.stringify({ id: 'asker', name: 'Asker', command: 'asker', status: { attention: ['Continue\\? \\(y/n\\)'] } }),
    );
    const a = await AppUnderTest.launch(display, { home, env: desktop.env() });
    app = a;
    const win = await a.waitForWindow();
    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    return { a, win };
  }

  /** A session in a folder of its own (named in its notification). */
  async function spawn(a: AppUnderTest, folder: string, args: string[], ready: string): Promise<string> {
    const cwd = join(a.home, folder);
    mkdirSync(cwd);
    const r = await a.cli(['sessions', ...args.map((x) => (x === 'CWD' ? cwd : x))]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim().split('\n').at(-1)!;
    await waitFor(async () => (await a.cli(['sessions', 'read', id])).stdout.includes(ready), { what: `${args.join(' ')} to be ready` });
    return id;
  }

  /** The last session the host heard the user looks at ('looking at' is logged on every change). */
  function lookingAt(a: AppUnderTest): string | null | undefined {
    const last = [...a.log().matchAll(/looking at (\{.*\})/g)].at(-1);
    return last ? (JSON.parse(last[1]!) as { id: string | null }).id : undefined;
  }

  /** The asker in `folder` asks, and dunst shows its notification. */
  async function asks(a: AppUnderTest, id: string, folder: string): Promise<void> {
    expect((await a.cli(['sessions', 'send', id, 'go', '--enter'])).code).toBe(0);
    const what = `a notification for the asker in ${folder}`;
    const shown = await waitFor(() => desktop.notifications().find((n) => n.body.startsWith(`${folder} · `)), { what }).catch((err: Error) => {
      throw new Error(
        `${err.message}; the host logged: ${a
          .log()
          .split('\n')
          .filter((l) => /looking at|notification|"to":"attention"/.test(l))
          .slice(-6)
          .join(' | ')}`,
      );
    });
    expect(shown).toMatchObject({ summary: 'Asker needs you', body: `${folder} · Apply the change? Continue?` });
  }

  it('notifies while another session is shown in the focused window, and says so when it skips one for the session in front', async () => {
    const { a, win } = await startApp();
    const agent = await spawn(a, 'agent', ['spawn', '--agent', 'asker', '--cwd', 'CWD'], 'asker ready');
    const shell = await spawn(a, 'shell', ['run', '--cwd', 'CWD', '--', '/bin/sh', '-c', 'echo shell ready; exec cat'], 'shell ready');
    display.xdotool('windowfocus', '--sync', win);
    expect((await a.cli(['sessions', 'focus', shell])).code).toBe(0);
    await waitFor(() => lookingAt(a) === shell, { what: 'the user to look at the shell' });
    await asks(a, agent, 'agent');

    // Another asker, in front of the user when it asks: skipped, and the host says so.
    const front = await spawn(a, 'front', ['spawn', '--agent', 'asker', '--cwd', 'CWD'], 'asker ready');
    expect((await a.cli(['sessions', 'focus', front])).code).toBe(0);
    await waitFor(() => lookingAt(a) === front, { what: 'the user to look at the second asker' });
    expect((await a.cli(['sessions', 'send', front, 'go', '--enter'])).code).toBe(0);
    await a.waitForLog(new RegExp(`notification skipped: the session is in front in the focused window \\{"session":"${front}"`));
    // The skip and the post are one decision: once it is logged, no notification follows.
    expect(a.log()).not.toMatch(new RegExp(`INFO notification \\{[^\\n]*"session":"${front}"`));
  }, 120_000);

  it('notifies once the window showing the agent is left for another program, or closed into the tray', async () => {
    const { a, win } = await startApp();
    const first = await spawn(a, 'first', ['spawn', '--agent', 'asker', '--cwd', 'CWD'], 'asker ready');
    const second = await spawn(a, 'second', ['spawn', '--agent', 'asker', '--cwd', 'CWD'], 'asker ready');
    display.xdotool('windowfocus', '--sync', win);
    expect((await a.cli(['sessions', 'focus', first])).code).toBe(0);
    await waitFor(() => lookingAt(a) === first, { what: 'the user to look at the first asker' });
    // Another program takes the focus.
    display.xdotool('windowfocus', '--sync', desktop.panel()!.id);
    await waitFor(() => lookingAt(a) === null, { what: 'the app to see the user is elsewhere' });
    await asks(a, first, 'first');

    // Back in the window looking at the second, then the window is closed (Termio stays in the tray).
    expect((await a.cli(['sessions', 'focus', second])).code).toBe(0);
    display.xdotool('windowfocus', '--sync', win);
    await waitFor(() => lookingAt(a) === second, { what: 'the user to look at the second asker' });
    display.xdotool('key', 'ctrl+shift+q'); // Close Window
    await a.waitForLog(/window closed/);
    await waitFor(() => lookingAt(a) === null, { what: 'the app to see its window closed' });
    await asks(a, second, 'second');
  }, 120_000);

  it('looks at an agent that opens in the focused window, and at the session shown next once it closes', async () => {
    const { a, win } = await startApp();
    display.xdotool('windowfocus', '--sync', win);
    // The empty window has the focus; the new session is selected in it without a click.
    const opened = await spawn(a, 'opened', ['spawn', '--agent', 'asker', '--cwd', 'CWD'], 'asker ready');
    await waitFor(() => lookingAt(a) === opened, { what: 'the user to look at the session that opened in front of them' });
    const next = await spawn(a, 'next', ['spawn', '--agent', 'asker', '--cwd', 'CWD'], 'asker ready');
    expect((await a.cli(['sessions', 'close', opened])).code).toBe(0);
    await waitFor(() => lookingAt(a) === next, { what: 'the user to look at the session the window shows next' });
  }, 120_000);
});
