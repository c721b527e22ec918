// The attention queue in the tray menu: on a real desktop (Xvfb, trayer, dunst, a private bus), two
// fake Claude Code sessions ask permission one after the other through their hooks; the tray menu,
// opened with the mouse, lists them first, the one waiting longest on top, each with its age
// ("waiting 12 s"), above the session that is only idle.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, desktopSkipReason, Display, launchTrayApp, TrayDesktop } from './harness';

describe.skipIf(desktopSkipReason)('the tray lists the attention queue oldest first', () => {
  let display: Display;
  let desktop: TrayDesktop;
  let app: AppUnderTest | undefined;
  beforeAll(async () => {
    display = await Display.start();
    desktop = await TrayDesktop.start(display);
  });
  afterAll(async () => {
    if (app) {
      await app.stop();
      await app.cleanup();
    }
    await desktop?.stop();
    await display?.stop();
  });

  it('lists the waiting sessions first, longest waiting on top, with their age', async () => {
    const { app: a, home } = await launchTrayApp(display, desktop, { started: (started) => (app = started) });
    const folder = join(home, 'site');
    mkdirSync(folder);
    const spawn = async (title: string) => (await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', folder, '--title', title])).stdout.trim();
    const [idle, first, second] = [await spawn('Idle one'), await spawn('First asks'), await spawn('Second asks')];
    const next = async () => JSON.parse((await a.cli(['sessions', 'next', '--json'])).stdout) as { queue: string[] };
    for (const id of [idle, first, second])
      await waitFor(async () => (await a.cli(['sessions', 'read', id])).stdout.includes('fake claude ready'), { what: `the fake agent of ${id}` });
    // Each turn needs permission: the fake's hook says so. The second asks once the first waits.
    for (const [id, queue] of [
      [first, [first]],
      [second, [first, second]],
    ] as const) {
      expect((await a.cli(['sessions', 'send', id, 'ask before pushing', '--enter'])).code).toBe(0);
      await waitFor(async () => JSON.stringify((await next()).queue) === JSON.stringify(queue), { what: `the queue to be ${queue.join(', ')}` });
    }

    const icon = desktop.trayIcon()!;
    const opened = [...a.log().matchAll(/tray menu opened (\{.*\})/g)].length;
    display.xdotool('mousemove', String(icon.x + Math.floor(icon.width / 2)), String(icon.y + Math.floor(icon.height / 2)), 'click', '3');
    const menu = await waitFor(
      () => {
        const all = [...a.log().matchAll(/tray menu opened (\{.*\})/g)];
        return all.length > opened ? (JSON.parse(all.at(-1)![1]!) as { sessions: string[]; lines: string[] }) : null;
      },
      { what: 'the tray menu to open' },
    );
    a.screenshot('tray-queue-menu');
    display.xdotool('key', 'Escape');
    expect(menu.sessions).toEqual([first, second, idle]);
    expect(menu.lines[0]).toMatch(/^First asks \(Claude Code\) — site {3}waiting \d+ s$/);
    expect(menu.lines[1]).toMatch(/^Second asks \(Claude Code\) — site {3}waiting \d+ s$/);
    expect(menu.lines[2]).toMatch(/^Idle one \(Claude Code\) — site {3}Idle /);
  });
});
