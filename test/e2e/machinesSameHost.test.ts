// One host reached by two saved machines, or a saved machine that reaches the hub's own host, is
// connected once: hosts say their id (TERMIO_HOME/host-id) in the hello, and the hub shows the
// duplicate as "same machine as NAME" instead of listing its sessions twice. Against a real sshd
// on loopback (test/helpers/sshRig.ts). The "this very host" case is the same id seen from the
// hub's side: the rig's remote host is given the hub's id (the remote user cannot open the hub's
// socket, which is the only other way to reach it), which is what the hub compares.
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endProcessesWithHome } from '../helpers/processes';
import { REMOTE_USER, sshRigUnavailable, startSshRig, type SshRig } from '../helpers/sshRig';
import { waitFor } from '../helpers/waitFor';

const repoRoot = join(__dirname, '..', '..');
const termio = join(repoRoot, 'bin', 'termio');
const HUB_ID = '0b9c6c2e-5d4e-4f53-9a57-3d3c1f1e2a01';

interface Machine {
  name: string;
  state: string;
  why: string | null;
  sameAs: string | null;
  hostId: string | null;
  sessions: number;
}

describe.skipIf(sshRigUnavailable())('machines that reach the same host', () => {
  let rig: SshRig;
  let home: string;
  let env: NodeJS.ProcessEnv;

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const p = spawn(process.execPath, [termio, ...args], { env, cwd: home });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function machines(): Promise<Machine[]> {
    const r = await cli(['machines', 'list', '--json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as { machines: Machine[] }).machines : [];
  }

  /** A remote host of its own per TERMIO_HOME there; `termioHome` picks which. */
  function addArgs(name: string, termioHome: string): string[] {
    return [
      'machines',
      'add',
      name,
      `${REMOTE_USER}@127.0.0.1`,
      '--port',
      String(rig.port),
      '--identity',
      rig.identity,
      ...rig.sshOptions.flatMap((o) => ['--ssh-option', o]),
      '--remote-command',
      rig.remoteCommand.replace(`TERMIO_HOME=${rig.remoteTermioHome}`, `TERMIO_HOME=${termioHome}`),
    ];
  }

  beforeAll(async () => {
    rig = await startSshRig(repoRoot);
    home = mkdtempSync(join(tmpdir(), 'termio-samehost-'));
    env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/bash' };
    mkdirSync(join(home, '.termio'), { recursive: true });
    writeFileSync(join(home, '.termio', 'host-id'), `${HUB_ID}\n`);
  }, 60_000);

  afterAll(async () => {
    if (env) await cli(['host', 'stop']);
    if (home) {
      await endProcessesWithHome(home);
      rmSync(home, { recursive: true, force: true });
    }
    await rig?.stop();
  }, 60_000);

  it('connects a host once, shows the other entry as the same machine, and hands over when the first is removed', async () => {
    expect((await cli(addArgs('box', rig.remoteTermioHome))).code).toBe(0);
    const spawned = await cli(['sessions', 'spawn', '--machine', 'box', '--json']);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = (JSON.parse(spawned.stdout) as { id: string }).id;

    // The same host under another name: saved, not connected, and it says by which machine.
    const alias = await cli(addArgs('alias', rig.remoteTermioHome));
    expect(alias.code).toBe(1);
    expect(alias.stdout).toMatch(/^alias saved: same machine as box/);
    const listed = await machines();
    const box = listed.find((m) => m.name === 'box')!;
    expect(box).toMatchObject({ state: 'connected', sessions: 1, sameAs: null });
    expect(box.hostId).toMatch(/^[0-9a-f-]{36}$/);
    expect(listed.find((m) => m.name === 'alias')).toMatchObject({
      state: 'sameMachine',
      sameAs: 'box',
      hostId: box.hostId,
      sessions: 0,
      why: expect.stringContaining('same machine as box'),
    });
    expect((await cli(['machines', 'list'])).stdout).toMatch(/^alias\s+\S+\s+same machine as box$/m);
    const once = JSON.parse((await cli(['sessions', 'list', '--json'])).stdout) as { sessions: Array<{ id: string; machine: string | null }> };
    expect(once.sessions.filter((s) => s.id === id)).toEqual([expect.objectContaining({ machine: 'box' })]);

    // A machine whose host has the hub's own id is this machine itself.
    const selfHome = join(rig.remoteHome, 'termio-self');
    mkdirSync(selfHome, { recursive: true });
    writeFileSync(join(selfHome, 'host-id'), `${HUB_ID}\n`);
    for (const p of [selfHome, join(selfHome, 'host-id')]) chownSync(p, rig.uid, rig.uid);
    const self = await cli(addArgs('self', selfHome));
    expect(self.code).toBe(1);
    expect(self.stdout).toMatch(/^self saved: this machine itself/);
    expect((await machines()).find((m) => m.name === 'self')).toMatchObject({ state: 'sameMachine', sameAs: null, hostId: HUB_ID });

    // box removed: alias is the way to that host now, at once, with the same session.
    expect((await cli(['machines', 'remove', 'box'])).code).toBe(0);
    await waitFor(async () => (await machines()).find((m) => m.name === 'alias')?.state === 'connected', {
      what: 'alias to connect once box is gone',
      timeout: 15_000,
    });
    await waitFor(
      async () => {
        const s = JSON.parse((await cli(['sessions', 'list', '--json'])).stdout) as { sessions: Array<{ id: string; machine: string | null }> };
        return s.sessions.filter((x) => x.id === id).length === 1 && s.sessions.find((x) => x.id === id)?.machine === 'alias';
      },
      { what: 'the session listed under alias' },
    );
  }, 120_000);
});
