// The real app under Xvfb with a machine whose key has a passphrase (a real sshd on loopback,
// test/helpers/sshRig.ts): ssh's question comes up in a small window of its own, the app keeps
// answering meanwhile, and the passphrase typed there connects the machine. Then the picker's
// machine choice: in a tab of that machine it starts there; in a tab of this machine Ctrl+M
// starts it there, and the next pick in that folder starts there again without being told
// (remembered in settings.json).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REMOTE_USER, sshRigUnavailable, startSshRig } from '../helpers/sshRig';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, listSessions, repoRoot, useDesktop } from './harness';

const PASSPHRASE = 'typed in the app 42';
const newSessionKeys = process.platform === 'darwin' ? 'super+t' : 'ctrl+shift+t';

interface Info {
  id: string;
  machine: string | null;
  cwd: string;
}

describe.skipIf(e2eSkipReason ?? sshRigUnavailable())("the app asks ssh's questions and picks machines", () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ shots: 'machines-ask', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it("asks the passphrase in a window of its own, connects with it, and remembers the picker's machine per folder", async () => {
    const rig = await startSshRig(repoRoot);
    try {
      const key = join(rig.dir, 'pass_key');
      expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-C', 'pass_key', '-f', key]).status).toBe(0);
      appendFileSync(join(rig.dir, 'authorized_keys'), readFileSync(`${key}.pub`));
      const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
      mkdirSync(join(home, '.termio', 'config'), { recursive: true });
      writeFileSync(
        join(home, '.termio', 'config', 'machines.json'),
        JSON.stringify(
          {
            machines: {
              box: { target: `${REMOTE_USER}@127.0.0.1`, port: rig.port, identity: key, sshOptions: rig.sshOptions, remoteCommand: rig.remoteCommand },
            },
          },
          null,
          2,
        ),
      );
      app = await AppUnderTest.launch(display, { home });
      const win = await app.waitForWindow();
      const ask = await app.waitForWindow('Termio — box', 30_000);
      app.screenshot('machines-askpass');
      // Not modal: the app answers while the question is open.
      expect((await app.cli(['machines', 'list'])).stdout).toMatch(/^box\s/m);
      display.xdotool('windowfocus', '--sync', ask);
      display.xdotool('type', '--delay', '20', PASSPHRASE);
      display.xdotool('key', 'Return');
      const state = async () =>
        (JSON.parse((await app!.cli(['machines', 'list', '--json'])).stdout) as { machines: Array<{ state: string }> }).machines[0]?.state;
      await waitFor(async () => (await state()) === 'connected', { what: 'box to connect with the passphrase typed in the app', timeout: 20_000 });
      expect(app.log()).toMatch(/askpass answered \{"machine":"box","taken":true,"cancelled":false\}/);
      expect(app.log()).not.toContain(PASSPHRASE);

      // The folder rig.remoteHome exists on both (box is this computer seen as another user).
      const focus = async (id: string): Promise<void> => {
        await app!.cli(['sessions', 'focus', id]);
        await app!.waitForLog(new RegExp(`session focused \\{"id":"${id}"`));
      };
      const pick = async (keys: string[]): Promise<Info> => {
        const before = new Set((await listSessions<Info>(app!)).map((s) => s.id));
        const opened = app!.log().split('picker opened').length;
        display.xdotool('windowfocus', '--sync', win);
        display.xdotool('key', newSessionKeys);
        await waitFor(() => app!.log().split('picker opened').length > opened, { what: 'the picker to open' });
        display.xdotool('type', '--delay', '30', 'terminal');
        for (const k of keys) display.xdotool('key', k);
        display.xdotool('key', 'Return');
        return waitFor(async () => (await listSessions<Info>(app!)).find((s) => !before.has(s.id)), { what: 'the picked session', timeout: 20_000 });
      };
      // In a tab of box: the picker starts on box, its folder being one there.
      await focus((await app.cli(['sessions', 'spawn', '--machine', 'box', '--cwd', rig.remoteHome])).stdout.trim());
      expect(await pick([])).toMatchObject({ machine: 'box', cwd: rig.remoteHome });
      // In a tab of this machine in the same folder: this machine, until Ctrl+M says box.
      const local = (await app.cli(['sessions', 'spawn', '--cwd', rig.remoteHome])).stdout.trim();
      await focus(local);
      expect(await pick([])).toMatchObject({ machine: null, cwd: rig.remoteHome });
      await focus(local);
      expect(await pick(['ctrl+m'])).toMatchObject({ machine: 'box', cwd: rig.remoteHome });
      const settings = JSON.parse(readFileSync(join(home, '.termio', 'config', 'settings.json'), 'utf8')) as { picker: { machines: Record<string, string> } };
      expect(settings.picker.machines).toEqual({ [rig.remoteHome]: 'box' });
      // The next pick in that folder, from the same local tab, starts on box without Ctrl+M.
      await focus(local);
      expect(await pick([])).toMatchObject({ machine: 'box', cwd: rig.remoteHome });
    } finally {
      await app?.stop();
      await rig.stop();
    }
  }, 150_000);
});
