// The real app under Xvfb with a machine whose key has a passphrase (a real sshd on loopback,
// test/helpers/sshRig.ts): ssh's question comes up in a small window of its own, the app keeps
// answering meanwhile, and the passphrase typed there connects the machine. Then the picker's
// machine choice: Ctrl+M starts a session on that machine, and the next pick in the same folder
// starts there again without being told (remembered in settings.json).
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

describe.skipIf(e2eSkipReason ?? sshRigUnavailable())('the app asks ssh\'s questions and picks machines', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ shots: 'machines-ask', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it('asks the passphrase in a window of its own, connects with it, and remembers the picker\'s machine per folder', async () => {
    const rig = await startSshRig(repoRoot);
    try {
      const key = join(rig.dir, 'pass_key');
      expect(spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-C', 'pass_key', '-f', key]).status).toBe(0);
      appendFileSync(join(rig.dir, 'authorized_keys'), readFileSync(`${key}.pub`));
      const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
      mkdirSync(join(home, '.termio', 'config'), { recursive: true });
      writeFileSync(join(home, '.termio', 'config', 'machines.json'), JSON.stringify({
        machines: { box: { target: `${REMOTE_USER}@127.0.0.1`, port: rig.port, identity: key, sshOptions: rig.sshOptions, remoteCommand: rig.remoteCommand } },
      }, null, 2));
      app = await AppUnderTest.launch(display, { home });
      const win = await app.waitForWindow();
      const ask = await app.waitForWindow('Termio — box', 30_000);
      app.screenshot('machines-askpass');
      // Not modal: the app answers while the question is open.
      expect((await app.cli(['machines', 'list'])).stdout).toMatch(/^box\s/m);
      display.xdotool('windowfocus', '--sync', ask);
      display.xdotool('type', '--delay', '20', PASSPHRASE);
      display.xdotool('key', 'Return');
      const state = async () => (JSON.parse((await app!.cli(['machines', 'list', '--json'])).stdout) as { machines: Array<{ state: string }> }).machines[0]?.state;
      await waitFor(async () => (await state()) === 'connected', { what: 'box to connect with the passphrase typed in the app', timeout: 20_000 });
      expect(app.log()).toMatch(/askpass answered \{"machine":"box","taken":true,"cancelled":false\}/);
      expect(app.log()).not.toContain(PASSPHRASE);

      // A session there, shown: the picker's folder is its folder, on this machine until told.
      const first = (await app.cli(['sessions', 'spawn', '--machine', 'box', '--cwd', rig.remoteHome])).stdout.trim();
      await app.cli(['sessions', 'focus', first]);
      await app.waitForLog(new RegExp(`session focused \\{"id":"${first}"`));
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
      const onBox = await pick(['ctrl+m']);
      expect(onBox).toMatchObject({ machine: 'box', cwd: rig.remoteHome });
      const settings = JSON.parse(readFileSync(join(home, '.termio', 'config', 'settings.json'), 'utf8')) as { picker: { machines: Record<string, string> } };
      expect(settings.picker.machines).toEqual({ [rig.remoteHome]: 'box' });
      // The next pick in that folder starts on box without Ctrl+M.
      await app.waitForLog(new RegExp(`session focused \\{"id":"${onBox.id}"`));
      const again = await pick([]);
      expect(again).toMatchObject({ machine: 'box', cwd: rig.remoteHome });
    } finally {
      await app?.stop();
      await rig.stop();
    }
  }, 150_000);
});
