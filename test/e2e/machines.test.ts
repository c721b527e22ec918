// Machines over SSH against a real sshd on loopback: a second local user is the remote machine,
// with its own HOME and TERMIO_HOME, reached by the hub in this machine's termio-host through
// `ssh -T … termio host --stdio`, driven by the termio CLI (and a HostClient where the app would be). A shell and a fake agent (with
// live-status hooks) run there; typing, reading and hook status work through the hub; killing the
// ssh client brings the same processes back; stopping the local host leaves them running there;
// a remote view relayed through the hub, and `termio attach` of a remote session.
// Bad input — unknown host, refused key, no termio there, another protocol, a hung sshd — is
// each a clear state in `machines list`, and the connected machine stays quick meanwhile.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endProcessesWithHome, isAlive } from '../helpers/processes';
import { REMOTE_USER, sshRigUnavailable, startSshRig, type SshRig } from '../helpers/sshRig';
import * as pty from 'node-pty';
import { HostClient } from '../../src/app/client/hostClient';
import { createEmulator } from '../../src/terminal/node';
import { mirrorFrames, ScreenMirror } from '../helpers/hostScreen';
import { waitFor } from '../helpers/waitFor';

const repoRoot = join(__dirname, '..', '..');
const termio = join(repoRoot, 'bin', 'termio');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Machine {
  name: string;
  state: string;
  why: string | null;
  sessions: number;
  remoteVersion: string | null;
  retryAt: number | null;
}

interface Info {
  id: string;
  pid: number;
  state: string;
  machine: string | null;
  agentId: string | null;
}

const unavailable = sshRigUnavailable();

describe.skipIf(unavailable)('machines over ssh', () => {
  let rig: SshRig;
  let home: string;
  let env: NodeJS.ProcessEnv;

  function cli(args: string[]): Promise<Run> {
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

  async function machine(name: string): Promise<Machine | undefined> {
    return (await machines()).find((m) => m.name === name);
  }

  async function sessions(): Promise<Info[]> {
    const r = await cli(['sessions', 'list', '--json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as { sessions: Info[] }).sessions : [];
  }

  function addArgs(name: string, opts: { identity?: string; remoteCommand?: string; target?: string; port?: number } = {}): string[] {
    return [
      'machines',
      'add',
      name,
      opts.target ?? `${REMOTE_USER}@127.0.0.1`,
      '--port',
      String(opts.port ?? rig.port),
      '--identity',
      opts.identity ?? rig.identity,
      ...rig.sshOptions.flatMap((o) => ['--ssh-option', o]),
      '--remote-command',
      opts.remoteCommand ?? remoteCommandFor(name),
    ];
  }

  /** Each machine its own host there (its own TERMIO_HOME), as two real machines would be; box
   *  uses the one its hooks were installed for. */
  function remoteCommandFor(name: string): string {
    return name === 'box'
      ? rig.remoteCommand
      : rig.remoteCommand.replace(`TERMIO_HOME=${rig.remoteTermioHome}`, `TERMIO_HOME=${join(rig.remoteHome, `termio-${name}`)}`);
  }

  /** The ssh clients the local host runs (one per machine). */
  function sshClients(): number[] {
    return readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .filter((pid) => {
        try {
          return (
            readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'ssh' && readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HOME=${home}`)
          );
        } catch {
          return false;
        }
      });
  }

  beforeAll(async () => {
    rig = await startSshRig(repoRoot);
    home = mkdtempSync(join(tmpdir(), 'termio-hub-'));
    env = { PATH: process.env.PATH, LANG: 'C.UTF-8', HOME: home, TERMIO_HOME: join(home, '.termio'), SHELL: '/bin/bash', TERMIO_LOG_LEVEL: 'debug' };
    // A fake Claude Code on the remote user's login PATH, with Termio's live-status hooks installed there.
    const bin = join(rig.remoteHome, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, 'test', 'fakes', 'fake-agent.mjs')}" claude "$@"\n`, {
      mode: 0o755,
    });
    writeFileSync(join(rig.remoteHome, '.bash_profile'), `export PATH="${bin}:$PATH"\n`);
    for (const f of [bin, join(bin, 'claude'), join(rig.remoteHome, '.bash_profile')]) chownSync(f, rig.uid, rig.uid);
  }, 60_000);

  afterAll(async () => {
    if (env) await cli(['host', 'stop']);
    if (home) {
      await endProcessesWithHome(home);
      rmSync(home, { recursive: true, force: true });
    }
    await rig?.stop();
  }, 60_000);

  it('runs a shell and an agent there, survives a killed ssh, and outlives the local host', async () => {
    const hooks = rig.asRemote([termio, 'hooks', 'install', '--agent', 'claude']);
    expect(hooks.code, hooks.stderr + hooks.stdout).toBe(0);

    const added = await cli(addArgs('box'));
    expect(added.code, added.stderr + added.stdout).toBe(0);
    expect(added.stdout).toMatch(/^box saved: connected \(Termio \d+\.\d+\.\d+\), 0 sessions/);

    const local = await cli(['sessions', 'spawn', '--json']);
    expect(local.code, local.stderr).toBe(0);
    const localId = (JSON.parse(local.stdout) as { id: string }).id;
    const spawned = await cli(['sessions', 'spawn', '--machine', 'box', '--json']);
    expect(spawned.code, spawned.stderr).toBe(0);
    const shell = (JSON.parse(spawned.stdout) as { id: string; session: Info }).session;
    expect(shell.machine).toBe('box');

    // The session runs as the remote user, in its HOME.
    const owner = readFileSync(`/proc/${shell.pid}/status`, 'utf8').match(/^Uid:\s+(\d+)/m)![1];
    expect(Number(owner)).toBe(rig.uid);
    expect((await cli(['sessions', 'send', shell.id.slice(0, 8), 'echo "$HOME" is hel""lo', '--enter'])).code).toBe(0);
    await waitFor(async () => (await cli(['sessions', 'read', shell.id, '--lines', '5'])).stdout.split('\n').includes(`${rig.remoteHome} is hello`), {
      what: 'the remote echo',
    });

    // --wait there: the command starts on box, and the wait on it goes through the hub by its id.
    const ran = await cli(['sessions', 'run', '--machine', 'box', '--wait', '--json', '--', 'sh', '-c', 'echo ran-on-box; exit 3']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({
      session: { machine: 'box' },
      wait: { outcome: 'settled', lines: ['ran-on-box'], session: { machine: 'box', exited: { exitCode: 3 } } },
    });

    const listed = await sessions();
    expect(listed.find((s) => s.id === localId)?.machine).toBeNull();
    expect(listed.find((s) => s.id === shell.id)).toMatchObject({ machine: 'box', pid: shell.pid });
    expect((await cli(['sessions', 'list'])).stdout).toMatch(new RegExp(`${shell.id.slice(0, 8)}\\s+box\\s+shell`));

    // An agent there: its hooks report to that machine's host, and the status reaches the hub.
    const agent = await cli(['sessions', 'spawn', '--machine', 'box', '--agent', 'claude', '--json']);
    expect(agent.code, agent.stderr).toBe(0);
    const agentId = (JSON.parse(agent.stdout) as { id: string }).id;
    await waitFor(async () => (await cli(['sessions', 'read', agentId])).stdout.includes('fake claude ready'), { what: 'the remote agent to start' });
    // Watched as the app watches: the session events of an app subscription to this machine's host.
    const watcher = await HostClient.connect(join(home, '.termio', 'run', 'host.sock'), { client: 'termio-test', version: '0' });
    if (!(watcher instanceof HostClient)) throw new Error(watcher.message);
    const states: string[] = [];
    watcher.onEvent((e) => {
      if (e.event === 'session' && e.session.id === agentId) {
        expect(e.session.machine).toBe('box');
        if (states.at(-1) !== e.session.state) states.push(e.session.state);
      }
    });
    expect((await watcher.request('app.subscribe', { restore: false })).ok).toBe(true);
    expect((await cli(['sessions', 'send', agentId, 'refactor the parser', '--enter'])).code).toBe(0);
    await waitFor(() => states.includes('working') && ['done', 'idle'].includes(states.at(-1)!), {
      what: `the agent to work and finish, as the hub sees it (${states.join(' → ')})`,
    });
    watcher.close();
    const why = await cli(['sessions', 'why', agentId, '--json']);
    expect(JSON.parse(why.stdout)).toMatchObject({ channel: expect.stringMatching(/hooks|titleStatus/) });
    // It asks for permission there: this machine notifies, naming the machine.
    expect((await cli(['sessions', 'send', agentId, 'ask to run the tests', '--enter'])).code).toBe(0);
    await waitFor(async () => (await sessions()).find((x) => x.id === agentId)?.state === 'attention', { what: 'the remote agent to need the user' });
    const hostLog = join(home, '.termio', 'logs', 'host.log');
    await waitFor(
      () => new RegExp(`notification \\{"kind":"attention","session":"${agentId}","title":"[^"]+ needs you on box"`).test(readFileSync(hostLog, 'utf8')),
      { what: 'a notification naming box' },
    );
    expect((await cli(['sessions', 'send', agentId, 'yes', '--enter'])).code).toBe(0);

    // The ssh client dies: the machine reconnects, with the same processes and their screens.
    const [ssh] = sshClients();
    expect(ssh).toBeDefined();
    process.kill(ssh!, 'SIGKILL');
    await waitFor(async () => (await machine('box'))?.state !== 'connected' || !sshClients().includes(ssh!), { what: 'the drop to be noticed' });
    await waitFor(async () => (await machine('box'))?.state === 'connected' && sshClients().length === 1 && !sshClients().includes(ssh!), {
      what: 'box to reconnect',
      timeout: 15_000,
    });
    const after = await sessions();
    expect(after.find((s) => s.id === shell.id)?.pid).toBe(shell.pid);
    expect((await cli(['sessions', 'read', shell.id])).stdout).toContain(`${rig.remoteHome} is hello`);
    expect((await cli(['sessions', 'send', shell.id, 'echo again', '--enter'])).code).toBe(0);
    await waitFor(async () => (await cli(['sessions', 'read', shell.id, '--lines', '3'])).stdout.split('\n').includes('again'), {
      what: 'typing after the reconnect',
    });

    // Stopping this machine's host ends its own sessions only.
    const localPid = listed.find((s) => s.id === localId)!.pid;
    expect((await cli(['host', 'stop'])).code).toBe(0);
    await waitFor(() => !isAlive(localPid), { what: 'the local session to end' });
    expect(isAlive(shell.pid)).toBe(true);
    const agentPid = after.find((s) => s.id === agentId)!.pid;
    expect(isAlive(agentPid)).toBe(true);
    expect(sshClients()).toEqual([]);
    // The next host reconnects and finds them as they were.
    await waitFor(async () => (await machine('box'))?.state === 'connected', { what: 'box again after a new local host', timeout: 15_000 });
    expect((await sessions()).find((s) => s.id === shell.id)?.pid).toBe(shell.pid);
    const closed = await cli(['sessions', 'close', shell.id]);
    expect(closed.code, closed.stderr).toBe(0);
    await waitFor(() => !isAlive(shell.pid), { what: 'the remote shell to be closed' });
  }, 120_000);

  it("names each bad machine's problem in machines list, and the good one stays quick meanwhile", async () => {
    const good = await cli(addArgs('good'));
    expect(good.code, good.stdout + good.stderr).toBe(0);
    const shell = JSON.parse((await cli(['sessions', 'spawn', '--machine', 'good', '--json'])).stdout) as { id: string };

    const nowhere = await cli(addArgs('nowhere', { target: `${REMOTE_USER}@nosuch.invalid` }));
    expect(nowhere.code).toBe(1);
    expect(nowhere.stdout).toMatch(/^nowhere saved: unreachable: ssh to nowhere failed: .*nosuch\.invalid.*; retrying in \d+ s/);
    const badkey = await cli(addArgs('badkey', { identity: rig.wrongIdentity }));
    expect(badkey.stdout).toMatch(/^badkey saved: unreachable: badkey refused the login: .*Permission denied \(publickey\)/);
    const bare = await cli(addArgs('bare', { remoteCommand: 'PATH=/usr/bin:/bin exec termio host --stdio' }));
    expect(bare.stdout).toMatch(/^bare saved: noTermio: Termio is not installed on bare .*run `termio machines install bare`/);
    const old = await cli(addArgs('old', { remoteCommand: `exec ${process.execPath} ${join(repoRoot, 'test', 'fakes', 'fakeOldHost.mjs')}` }));
    expect(old.stdout).toMatch(
      /^old saved: versionMismatch: old runs Termio 0\.0\.9 \(host protocol 1\); this one runs \d+\.\d+\.\d+ \(protocol \d+\): run `termio machines install old`/,
    );

    // A hand edit with a broken entry: reported by name, every other machine kept.
    const file = join(home, '.termio', 'config', 'machines.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { machines: Record<string, unknown> };
    saved.machines.broken = { target: 'x', port: 'twenty-two' };
    writeFileSync(file, JSON.stringify(saved, null, 2));
    await waitFor(async () => (await cli(['machines', 'list'])).stderr.includes('machines.json: broken: port: expected number'), {
      what: 'the broken entry to be reported',
    });
    const listed = await cli(['machines', 'list']);
    expect(listed.stdout).toMatch(/^good {2}termio-remote@127\.0\.0\.1:\d+ {2}connected \(Termio [\d.]+\), 1 session$/m);
    expect(listed.stdout).toMatch(/^badkey .* unreachable: badkey refused the login/m);
    expect(listed.stdout).not.toMatch(/^broken/m);

    // A hung sshd: the new connection waits in its accept queue. It is given up with a reason, and
    // the machine already connected answers as ever meanwhile.
    process.kill(rig.sshd.pid!, 'SIGSTOP');
    try {
      const adding = cli(addArgs('hung'));
      await waitFor(async () => (await machine('hung'))?.state === 'connecting', { what: 'hung to be connecting' });
      const read = await cli(['sessions', 'read', shell.id]);
      expect(read.code, read.stderr).toBe(0);
      expect((await machine('hung'))?.state).toBe('connecting');
      expect((await machine('good'))?.state).toBe('connected');
      const hung = await adding;
      expect(hung.stdout).toMatch(/^hung saved: unreachable: ssh to hung failed: .*(timed out|Connection timed out during banner exchange)/);
    } finally {
      process.kill(rig.sshd.pid!, 'SIGCONT');
    }
    const removed = await cli(['machines', 'remove', 'nowhere']);
    expect(removed.code).toBe(0);
    expect((await machines()).map((m) => m.name)).not.toContain('nowhere');
    expect((await cli(['machines', 'remove', 'nowhere'])).code).toBe(1);
  }, 120_000);

  it('relays a remote view: frames, keys, rows, acknowledgement pacing end to end, and a reconnect', async () => {
    expect((await cli(addArgs('view'))).code).toBe(0);
    const id = (JSON.parse((await cli(['sessions', 'spawn', '--machine', 'view', '--json'])).stdout) as { id: string }).id;
    const c = await HostClient.connect(join(home, '.termio', 'run', 'host.sock'), { client: 'termio-test', version: '0' });
    if (!(c instanceof HostClient)) throw new Error(c.message);
    try {
      const mirrors = mirrorFrames(c);
      const m = new ScreenMirror(c, 7);
      mirrors.set(7, m);
      const attached = await c.request('attach', { session: id.slice(0, 10), view: 7, cols: 90, rows: 20 });
      expect(attached.ok && attached.result.session).toMatchObject({ id, machine: 'view' });
      await waitFor(() => m.frames.length > 0, { what: 'the first relayed frame' });
      expect(m.frames[0]).toMatchObject({ view: 7, full: true, cols: 90, rows: 20 });
      for (const ch of 'echo relayed') c.input(7, { kind: 'key', key: ch, text: ch });
      c.input(7, { kind: 'key', key: 'Enter' });
      await m.waitForText(/^relayed$/m);
      const rows = await c.rows({ view: 7, first: 0, count: 3 });
      expect(rows.ok).toBe(true);

      // Unacknowledged, the remote host sends nothing more however much the program writes.
      m.autoAck = false;
      const before = m.frames.length;
      for (const ch of 'seq 1 300000') c.input(7, { kind: 'key', key: ch, text: ch });
      c.input(7, { kind: 'key', key: 'Enter' });
      await waitFor(async () => (await cli(['sessions', 'read', id, '--lines', '2'])).stdout.includes('300000'), {
        what: 'the flood to finish there',
        timeout: 30_000,
      });
      expect(m.frames.length).toBeLessThanOrEqual(before + 1);
      m.autoAck = true;
      m.ackLast();
      await m.waitForText(/^300000$/m, 'the latest screen after one acknowledgement');

      // The ssh client dies: the view comes back by itself with a full frame of the screen as it is.
      const framesBefore = m.frames.length;
      for (const pid of sshClients()) process.kill(pid, 'SIGKILL');
      await waitFor(() => m.frames.length > framesBefore && m.frames.at(-1)!.full, { what: 'a full frame after the reconnect', timeout: 20_000 });
      expect(m.text()).toMatch(/^300000$/m);
      for (const ch of 'echo back') c.input(7, { kind: 'key', key: ch, text: ch });
      c.input(7, { kind: 'key', key: 'Enter' });
      await m.waitForText(/^back$/m);
      expect((await c.request('detach', { view: 7 })).ok).toBe(true);
    } finally {
      c.close();
    }

    // `termio attach` in a real terminal, by a prefix of the remote id; Ctrl-] detaches.
    const term = createEmulator({ cols: 90, rows: 20, scrollback: 0 });
    const p = pty.spawn(process.execPath, [termio, 'attach', id.slice(0, 8)], {
      cols: 90,
      rows: 20,
      cwd: home,
      env: env as Record<string, string>,
      name: 'xterm-256color',
    });
    let exit: { exitCode: number } | null = null;
    p.onExit((e) => (exit = e));
    p.onData((d) => term.write(d));
    const screen = (): string => {
      const b = term.buffer.active;
      return Array.from({ length: term.rows }, (_, y) => b.getLine(b.baseY + y)?.translateToString(true) ?? '').join('\n');
    };
    try {
      await waitFor(() => /^back$/m.test(screen()), { what: `the remote screen in termio attach (screen:\n${screen()})` });
      p.write('echo via-attach\r');
      await waitFor(() => /^via-attach$/m.test(screen()), { what: `typing through termio attach (screen:\n${screen()})` });
      p.write('\x1d');
      await waitFor(() => exit !== null, { what: 'termio attach to detach on Ctrl-]' });
      expect(exit).toEqual({ exitCode: 0, signal: expect.anything() });
    } finally {
      if (!exit) p.kill();
      term.dispose();
    }
    expect((await cli(['sessions', 'read', id, '--lines', '3'])).stdout).toContain('via-attach');
  }, 120_000);

  it('installs this Termio on a machine that has none, headless, and connects to it', async () => {
    const passwdHome = spawnSync('getent', ['passwd', REMOTE_USER], { encoding: 'utf8' }).stdout.split(':')[5]!;
    const installed = join(passwdHome, '.termio');
    rmSync(installed, { recursive: true, force: true });
    const freshHome = join(rig.remoteHome, 'fresh-termio');
    // The hub's default command, with this test's TERMIO_HOME: ~/.termio/bin first on PATH.
    const command = `TERMIO_HOME=${freshHome} PATH="$HOME/.termio/bin:/usr/bin:/bin" exec termio host --stdio`;
    try {
      const before = await cli(addArgs('fresh', { remoteCommand: command }));
      expect(before.stdout).toMatch(/^fresh saved: noTermio: Termio is not installed on fresh/);
      const inst = await cli(['machines', 'install', 'fresh']);
      expect(inst.code, inst.stderr + inst.stdout).toBe(0);
      expect(inst.stdout).toMatch(/^Termio \d+\.\d+\.\d+ installed on fresh in ~\/\.termio\/app \(Node \d+\.\d+\.\d+\)/);
      // Headless: no Qt binding was copied.
      expect(readdirSync(join(installed, 'app', 'node_modules'))).not.toContain('@nodegui');
      await waitFor(async () => (await machine('fresh'))?.state === 'connected', { what: 'fresh to connect after the install', timeout: 20_000 });
      const id = (JSON.parse((await cli(['sessions', 'spawn', '--machine', 'fresh', '--json'])).stdout) as { id: string }).id;
      expect((await cli(['sessions', 'send', id, 'echo installed ok', '--enter'])).code).toBe(0);
      await waitFor(async () => (await cli(['sessions', 'read', id, '--lines', '3'])).stdout.split('\n').includes('installed ok'), {
        what: 'a shell of the installed host',
      });
      const hosts = readdirSync('/proc')
        .filter((n) => /^\d+$/.test(n))
        .filter((n) => {
          try {
            return readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(join(installed, 'app', 'dist', 'app', 'host', 'hostMain.js'));
          } catch {
            return false;
          }
        });
      expect(hosts.length).toBe(1);
    } finally {
      await cli(['machines', 'remove', 'fresh']);
      rmSync(installed, { recursive: true, force: true });
    }
  }, 180_000);
});
