// The tray menu answers: on a real desktop (Xvfb, trayer, dunst, a private bus), a fake Claude
// Code blocked on its permission prompt is listed in the tray menu with its question's choices
// under it; picking "Yes" from the keyboard answers the agent, which finishes its turn.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, desktopSkipReason, Display, launchTrayApp, TrayDesktop } from './harness';

describe.skipIf(desktopSkipReason)('the tray lists a waiting question with its choices', () => {
  let display: Display;
  let desktop: TrayDesktop;
  let app: AppUnderTest | undefined;
  beforeAll(async () => {
    display = await Display.start();
    desktop = await TrayDesktop.start(display);
  });
  afterAll(async () => {
    if (app) {
      app.screenshot('tray-question');
      await app.stop();
      await app.cleanup();
    }
    await desktop?.stop();
    await display?.stop();
  });

  it('answers the agent when a choice is picked in the tray menu', async () => {
    const { app: a, home } = await launchTrayApp(display, desktop, { started: (started) => (app = started) });
    const folder = join(home, 'site');
    mkdirSync(folder);
    const id = (await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', folder])).stdout.trim();
    const screen = async (): Promise<string> => (await a.cli(['sessions', 'read', id])).stdout;
    await waitFor(async () => (await screen()).includes('fake claude ready'), { what: 'the fake agent' });
    // A turn that needs permission: the fake's hook says so, and it prints "Allow Bash(npm test)? [y/n]".
    expect((await a.cli(['sessions', 'send', id, 'ask before pushing', '--enter'])).code).toBe(0);
    await waitFor(async () => JSON.parse((await a.cli(['sessions', 'question', id, '--json'])).stdout).question?.text === 'Allow Bash(npm test)?', {
      what: 'the host to read the question',
    });

    const icon = desktop.trayIcon()!;
    const opened = (a.log().match(/tray menu opened/g) ?? []).length;
    display.xdotool('mousemove', String(icon.x + Math.floor(icon.width / 2)), String(icon.y + Math.floor(icon.height / 2)), 'click', '3');
    await waitFor(() => [...a.log().matchAll(/tray menu opened/g)].length > opened, { what: 'the tray menu to open' });
    a.screenshot('tray-question-menu');
    // The session's entry opens its submenu: the question (not selectable), Yes, No, Open Session.
    display.xdotool('key', 'Down', 'Right');
    a.screenshot('tray-question-submenu');
    display.xdotool('key', 'Return');
    await a.waitForLog(new RegExp(`tray answer \\{"session":"${id}","answered":true`));
    await waitFor(async () => /\[y\/n\] y\s*\n\s*Done\./.test(await screen()), { what: 'the agent to take the answer and finish its turn' });
  });
});
