// A desktop notification that answers: with dunst (a real notification server) on a private
// session bus under Xvfb, a fake agent blocked on a permission menu makes the host post a Notify
// whose actions are the question's choices (read off the bus by dbus-monitor); dunst's context
// menu invokes "Yes" over D-Bus, and the agent receives it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { ControlClient } from '../../src/app/client/controlClient';
import { startHostInProcess } from '../helpers/companionHost';
import { waitForExit } from '../helpers/processes';
import { printedBy } from '../helpers/printed';
import { waitFor } from '../helpers/waitFor';
import { Display } from './harness';

const FAKE_MENU = resolve(__dirname, '..', 'fakes', 'fakeMenuAgent.mjs');
const children: ChildProcess[] = [];
let stopHost: (() => Promise<void>) | null = null;

afterEach(async () => {
  await stopHost?.();
  stopHost = null;
  for (const c of children.splice(0).reverse()) {
    if (c.exitCode === null && c.pid) {
      c.kill('SIGTERM');
      await waitForExit(c.pid, `${c.spawnfile} to end`);
    }
  }
});

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const c = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  return c;
}

/** Xvfb on a display nobody uses, a private session bus, and dunst on both. */
async function desktop(dir: string): Promise<{ env: NodeJS.ProcessEnv; notifies: string[]; choose(label: string): void }> {
  // The X server picks a free display itself (-displayfd), as every e2e test's does.
  const display = await Display.start('800x600x24');
  children.push(display.proc);
  const bus = start('dbus-daemon', ['--session', '--nofork', '--print-address=1'], process.env);
  const address = await new Promise<string>((res) => createInterface({ input: bus.stdout! }).once('line', res));
  const env = { ...process.env, DISPLAY: display.name, DBUS_SESSION_BUS_ADDRESS: address };
  // dunst's context menu runs "dmenu" with one line per action; this one picks the wanted label.
  const pick = join(dir, 'pick');
  const menu = join(dir, 'dmenu.sh');
  writeFileSync(menu, `#!/bin/sh\ncat > ${join(dir, 'menu.txt')}\ngrep -m1 -F "#$(cat ${pick}) (" ${join(dir, 'menu.txt')}\n`);
  chmodSync(menu, 0o755);
  writeFileSync(join(dir, 'dunstrc'), `[global]\ndmenu = ${menu}\n`);
  const dunst = start('dunst', ['-config', join(dir, 'dunstrc')], env);
  await waitFor(() => spawnSync('dunstctl', ['is-paused'], { env }).status === 0 || dunst.exitCode !== null, { what: 'dunst to own the notification name' });
  const monitor = start('dbus-monitor', ['--address', address, "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"], env);
  // Each Notify call as dbus-monitor prints it: a "method call" line, then one line per argument.
  const notifies: string[] = [];
  createInterface({ input: monitor.stdout! }).on('line', (line) => {
    if (line.startsWith('method call')) notifies.push(line);
    else if (notifies.length) notifies[notifies.length - 1] += `\n${line}`;
  });
  await waitFor(() => spawnSync('dbus-send', [`--bus=${address}`, '--dest=org.freedesktop.DBus', '/', 'org.freedesktop.DBus.Peer.Ping']).status === 0, {
    what: 'the bus to answer',
  });
  return {
    env,
    notifies,
    choose(label) {
      writeFileSync(pick, label);
      spawnSync('dunstctl', ['context'], { env });
    },
  };
}

it("posts the question's choices as notification actions, and the action invoked over D-Bus answers the agent", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tdesk-'));
  const d = await desktop(dir);
  // The host posts through the bus of its environment.
  // With no app attached, a click on a notification starts the app showing that session.
  const appStarts: Array<string | null> = [];
  const host = await startHostInProcess({
    agents: { fakemenu: { name: 'Fake Menu', command: FAKE_MENU } },
    env: { DBUS_SESSION_BUS_ADDRESS: d.env.DBUS_SESSION_BUS_ADDRESS!, DISPLAY: d.env.DISPLAY! },
    startApp: (session) => appStarts.push(session),
  });
  stopHost = async () => {
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const client = await ControlClient.connect(host.env);
  if (!(client instanceof ControlClient)) throw new Error(client.message);
  try {
    const work = join(host.home, 'work', 'site');
    mkdirSync(work, { recursive: true });
    const r = await client.request('sessions.spawn', { agent: 'fakemenu', cwd: work });
    if (!r.ok) throw new Error(r.error.message);
    const id = r.result.id;
    const printed = printedBy(host.host.registry.get(id)!.session);
    await waitFor(() => d.notifies.some((n) => n.includes('Do you want to proceed?')), { what: 'the Notify call with the question' });
    const call = d.notifies.find((n) => n.includes('Do you want to proceed?'))!;
    expect(call).toContain('string "Fake Menu needs you"');
    // The actions: the default one (open the session), then one per choice, labelled as the menu.
    for (const label of ['default', 'Open', 'Yes', "Yes, and don't ask again for rm commands", 'No']) expect(call).toContain(`string "${label}"`);
    const screen = (): string => host.host.registry.get(id)!.session.screenLines().join('\n');
    expect(screen()).not.toContain('received');
    await waitFor(() => spawnSync('dunstctl', ['count', 'displayed'], { env: d.env, encoding: 'utf8' }).stdout.trim() !== '0', { what: 'dunst to show it' });
    d.choose('Yes');
    await waitFor(() => printed().includes('received: Yes'), { what: 'the fake agent to receive Yes from the notification' });
    expect(readFileSync(join(dir, 'menu.txt'), 'utf8')).toMatch(/^#Yes \(Fake Menu needs you\)/m);
    expect(appStarts).toEqual([]);

    // The next question's notification: its default action ("Open") still jumps to the session,
    // and answers nothing.
    await waitFor(() => d.notifies.some((n) => n.includes('Do you want to make this edit to app.ts?')), { what: "the next question's notification" });
    await waitFor(() => spawnSync('dunstctl', ['count', 'displayed'], { env: d.env, encoding: 'utf8' }).stdout.trim() !== '0', { what: 'dunst to show it' });
    d.choose('Open');
    await waitFor(() => appStarts.length === 1, { what: 'the default action to open the session' });
    expect(appStarts).toEqual([id]);
    expect(screen()).not.toContain('received: Yes\nreceived');
    expect(screen()).toContain('make this edit to app.ts?');
  } finally {
    client.close();
  }
});
