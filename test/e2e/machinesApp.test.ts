// The app with other machines: the real app under Xvfb, its host a hub of a machine reached over
// a real sshd on loopback (test/helpers/sshRig.ts). The sidebar shows that machine's sessions in a
// group of their own below this machine's, and when the machine drops (its ssh killed while its
// sshd hangs, so the hub cannot reconnect yet) its rows stay, dimmed, with their last state.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REMOTE_USER, sshRigUnavailable, startSshRig } from '../helpers/sshRig';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, readPixels, repoRoot, useDesktop } from './harness';

interface Machine {
  name: string;
  state: string;
}

function sidebarPixels(png: string, height: number): string {
  return readPixels(png, 0, 40, 250, height - 80)
    .map((p) => `${p.r},${p.g},${p.b}`)
    .join(';');
}

describe.skipIf(e2eSkipReason ?? sshRigUnavailable())('the app with another machine', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ shots: 'machines', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it("groups that machine's sessions under its name and dims them while it is away", async () => {
    const rig = await startSshRig(repoRoot);
    try {
      const home = mkdtempSync(join(tmpdir(), 'termio-e2e-'));
      mkdirSync(join(home, '.termio', 'config'), { recursive: true });
      writeFileSync(
        join(home, '.termio', 'config', 'machines.json'),
        JSON.stringify(
          {
            machines: {
              box: { target: `${REMOTE_USER}@127.0.0.1`, port: rig.port, identity: rig.identity, sshOptions: rig.sshOptions, remoteCommand: rig.remoteCommand },
            },
          },
          null,
          2,
        ),
      );
      app = await AppUnderTest.launch(display, { home });
      const win = await app.waitForWindow();
      const machines = async () => JSON.parse((await app!.cli(['machines', 'list', '--json'])).stdout) as { machines: Machine[] };
      await waitFor(async () => (await machines()).machines[0]?.state === 'connected', { what: 'box to connect', timeout: 20_000 });
      const project = join(home, 'project');
      mkdirSync(project);
      expect((await app.cli(['sessions', 'spawn', '--cwd', project])).code).toBe(0);
      const remote = await app.cli(['sessions', 'spawn', '--machine', 'box', '--cwd', rig.remoteHome, '--title', 'remote shell']);
      expect(remote.code, remote.stderr).toBe(0);
      const id = remote.stdout.trim();
      await app.cli(['sessions', 'focus', id]);
      await app.waitForLog(new RegExp(`session focused \\{"id":"${id}"`));
      await app.cli(['sessions', 'send', id, 'echo from the box', '--enter']);
      await waitFor(async () => (await app!.cli(['sessions', 'read', id, '--lines', '3'])).stdout.includes('from the box'), { what: 'the remote echo' });
      const geom = app.windowGeometry(win);
      const connected = sidebarPixels(app.screenshot('machines-connected'), geom.height);

      // Away: the hub's ssh is killed and the sshd hangs, so the machine stays away for a while.
      process.kill(rig.sshd.pid!, 'SIGSTOP');
      try {
        for (const pid of (await import('node:child_process')).execFileSync('pgrep', ['-x', 'ssh'], { encoding: 'utf8' }).trim().split('\n').map(Number)) {
          const env = (await import('node:fs')).readFileSync(`/proc/${pid}/environ`, 'latin1');
          if (env.split('\0').includes(`HOME=${home}`)) process.kill(pid, 'SIGKILL');
        }
        await waitFor(async () => (await machines()).machines[0]?.state === 'reconnecting', { what: 'box to be away' });
        let away = '';
        await waitFor(() => (away = sidebarPixels(app!.screenshot('machines-away'), geom.height)) !== connected, { what: 'the sidebar to show box away' });
        expect(away).not.toBe(connected);
        // Its session is still listed, with its last state.
        const list = JSON.parse((await app.cli(['sessions', 'list', '--json'])).stdout) as {
          sessions: Array<{ id: string; machine: string; stateWhy: string }>;
        };
        expect(list.sessions.find((s) => s.id === id)).toMatchObject({ machine: 'box', stateWhy: expect.stringMatching(/^box is away; last known/) });
      } finally {
        process.kill(rig.sshd.pid!, 'SIGCONT');
      }
      await waitFor(async () => (await machines()).machines[0]?.state === 'connected', { what: 'box back', timeout: 40_000 });

      // Settings → Machines (the last tab) lists it with its state.
      display.xdotool('windowfocus', '--sync', win);
      display.xdotool('key', 'ctrl+comma');
      const settings = await app.waitForWindow('Termio Settings');
      display.xdotool('windowfocus', '--sync', settings);
      for (let i = 0; i < 7; i++) display.xdotool('key', 'ctrl+Tab');
      // The tab's rows are drawn from the app's machine list: the window differs from the Phone tab's.
      const sg = app.windowGeometry(settings);
      const tab = () =>
        readPixels(app!.screenshot('machines-settings'), sg.x, sg.y, sg.width, sg.height)
          .map((p) => `${p.r},${p.g},${p.b}`)
          .join(';');
      const machinesTab = tab();
      display.xdotool('key', 'ctrl+shift+Tab');
      await waitFor(() => tab() !== machinesTab, { what: 'the Phone tab to differ from the Machines tab' });
      display.xdotool('key', 'ctrl+Tab');
      await waitFor(() => tab() === machinesTab, { what: 'Settings → Machines again' });
    } finally {
      await app?.stop();
      await rig.stop();
    }
  }, 120_000);
});
