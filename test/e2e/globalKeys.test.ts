// Global keys under Xvfb with the real app, host and X11 helper: while another X client (an
// xmessage window) has the focus, two fake Claude Code sessions wait for permission; the "next"
// key typed through XTEST brings Termio's window to the front on the session that waited longest,
// and a second press goes to the next one. The picker's key, already held by another client, is
// reported taken (the grab's BadAccess) in the log and in Settings → Shortcuts, screenshotted;
// given another key in settings.json, it opens the agent picker from the other application.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, installFakeAgents, repoRoot, useDesktop } from './harness';

const HELPER = join(repoRoot, 'native', 'termio-hotkeys', 'build', 'termio-hotkeys');

describe.skipIf(e2eSkipReason)('global keys', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  const ends: Array<() => void> = [];
  useDesktop({
    started: (d) => (display = d),
    current: () => app,
    done: () => {
      app = undefined;
      for (const end of ends.splice(0)) end();
    },
  });

  /** Another X client, started with the display's environment; ended after the test. */
  function client(cmd: string, args: string[]) {
    const child = spawn(cmd, args, { env: { PATH: process.env.PATH, DISPLAY: display.name }, stdio: 'pipe' });
    ends.push(() => child.kill());
    return child;
  }

  it('jumps to the session waiting longest from another application, then to the next', async () => {
    if (!existsSync(HELPER)) throw new Error(`${HELPER} is missing: node scripts/setup.mjs builds it (a C compiler and libx11-dev)`);
    // Another client holds Ctrl+Alt+Shift+Space (the picker's default) before Termio starts.
    const holder = client(HELPER, []);
    const said: string[] = [];
    createInterface({ input: holder.stdout }).on('line', (l) => said.push(l));
    holder.stdin.write('grab held 13 space\n');
    await waitFor(() => said.includes('grabbed held'), { what: 'the other client to grab Ctrl+Alt+Shift+Space' });

    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    installFakeAgents(home, ['claude']);
    const a = (app = await AppUnderTest.launch(display, { home }));
    const win = await a.waitForWindow();
    await a.waitForLog(/global key \{"action":"nextWaiting","keys":"Ctrl\+Alt\+Space","state":"on"\}/);
    await a.waitForLog(
      /global key \{"action":"picker","keys":"Ctrl\+Alt\+Shift\+Space","state":"taken","message":"Ctrl\+Alt\+Shift\+Space is taken by another application: choose another key"\}/,
    );

    await waitFor(async () => (await a.cli(['sessions', 'list'])).code === 0, { what: 'the control socket' });
    expect((await a.cli(['hooks', 'install', '--agent', 'claude'])).code).toBe(0);
    const spawnAgent = async (title: string) => (await a.cli(['sessions', 'spawn', '--agent', 'claude', '--cwd', home, '--title', title])).stdout.trim();
    const [first, second] = [await spawnAgent('First asks'), await spawnAgent('Second asks')];
    const queue = async () => (JSON.parse((await a.cli(['sessions', 'next', '--json'])).stdout) as { queue: string[] }).queue.join(' ');
    for (const [id, expected] of [
      [first, first],
      [second, `${first} ${second}`],
    ] as const) {
      await waitFor(async () => (await a.cli(['sessions', 'read', id])).stdout.includes('fake claude ready'), { what: `the fake agent of ${id}` });
      expect((await a.cli(['sessions', 'send', id, 'ask before pushing', '--enter'])).code).toBe(0);
      await waitFor(async () => (await queue()) === expected, { what: `the queue to be ${expected}` });
    }

    // Another application has the focus.
    client('xmessage', ['-name', 'otherapp', 'another application']);
    const other = await waitFor(() => display.xdotool('search', '--onlyvisible', '--classname', 'otherapp').split('\n')[0] || null, {
      what: 'the other window',
    });
    display.xdotool('windowfocus', '--sync', other);
    expect(display.xdotool('getwindowfocus').trim()).toBe(other);

    const focusedOn = async (id: string) => {
      await a.waitForLog(new RegExp(`global key pressed \\{"action":"nextWaiting","session":"${id}","reason":"waiting"\\}`));
      await a.waitForLog(new RegExp(`session focused \\{"id":"${id}"\\}`));
      await waitFor(() => display.xdotool('getwindowfocus').trim() === win, { what: "Termio's window to have the focus" });
    };
    display.xdotool('key', 'ctrl+alt+space');
    await focusedOn(first);
    a.screenshot('global-key-first');
    display.xdotool('key', 'ctrl+alt+space');
    await focusedOn(second);

    // Settings → Shortcuts shows both keys: one active, one taken by the other client.
    display.xdotool('key', 'ctrl+comma');
    const settings = await a.waitForWindow('Termio Settings');
    display.xdotool('windowfocus', '--sync', settings);
    for (let i = 0; i < 5; i++) display.xdotool('key', 'ctrl+Tab');
    a.screenshot('settings-shortcuts');

    // Another key for the picker, by a hand edit of settings.json (applied live): from the other
    // application, it opens the agent picker in Termio's front window.
    const file = join(home, '.termio', 'config', 'settings.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), globalShortcuts: { picker: 'Ctrl+Alt+P' } }));
    await a.waitForLog(/global key \{"action":"picker","keys":"Ctrl\+Alt\+P","state":"on"\}/);
    display.xdotool('windowfocus', '--sync', other);
    display.xdotool('key', 'ctrl+alt+p');
    await a.waitForLog(/global key pressed \{"action":"picker"\}/);
    await a.waitForLog(/picker opened/);
    await waitFor(() => display.xdotool('getwindowfocus').trim() === win, {
      what: `Termio's window to have the focus (${win}; settings ${settings}; other ${other}; focus ${display.xdotool('getwindowfocus').trim()})`,
    });
  });
});
