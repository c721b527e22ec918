// A real OpenSSH server on a loopback port, for the machines tests: its own config and host key in
// a temporary folder, key auth for a second local user (termio-remote, created once if missing)
// whose HOME and TERMIO_HOME are temporary too. The "remote machine" is this one, seen through
// sshd as another user, so everything between the hub and the remote host is real.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports';
import { endProcessesWhere, processesWhere } from './processes';
import { skipUnlessRequired } from './required';
import { waitFor } from './waitFor';

export const REMOTE_USER = 'termio-remote';
const SSHD = '/usr/sbin/sshd';

export interface SshRig {
  dir: string;
  port: number;
  /** The client's private key (the one the server trusts). */
  identity: string;
  /** A key the server does not trust. */
  wrongIdentity: string;
  knownHosts: string;
  /** The remote user's HOME and TERMIO_HOME for this test. */
  remoteHome: string;
  remoteTermioHome: string;
  uid: number;
  sshd: ChildProcess;
  /** ssh -o options that make the test's keys and known hosts apply (OpenSSH reads ~/.ssh from the passwd entry, not $HOME). */
  sshOptions: string[];
  /** The command the hub runs there: this checkout's termio, with the test's HOME and TERMIO_HOME. */
  remoteCommand: string;
  /** Runs a command as the remote user with its HOME and TERMIO_HOME. */
  asRemote(argv: string[]): { code: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
}

function must(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Why this machine cannot run the rig (not root), or null; where CI is set it throws that
 *  reason instead (test/helpers/required.ts), so the sshd tests fail there rather than skip. */
export function sshRigUnavailable(): string | null {
  return skipUnlessRequired(process.getuid?.() !== 0 ? 'the machines tests create a local user and run sshd: they need root' : null);
}

function ensureSshd(): void {
  if (existsSync(SSHD)) return;
  must('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server']);
}

function ensureUser(): number {
  const id = spawnSync('id', ['-u', REMOTE_USER], { encoding: 'utf8' });
  if (id.status !== 0) must('useradd', ['--create-home', '--shell', '/bin/bash', REMOTE_USER]);
  // A new account is locked ('!'), and sshd refuses a locked account even a key login; '*' is
  // "no password", which leaves key auth the only way in.
  must('usermod', ['-p', '*', REMOTE_USER]);
  return Number(must('id', ['-u', REMOTE_USER]).trim());
}

/** Starts an sshd on a free loopback port; `repoRoot` is this checkout, which the remote user runs. */
export async function startSshRig(repoRoot: string): Promise<SshRig> {
  ensureSshd();
  const uid = ensureUser();
  const gid = Number(must('id', ['-g', REMOTE_USER]).trim());
  // The remote user must reach this checkout (bin/termio, dist/, node_modules).
  for (let p = repoRoot; p !== '/'; p = join(p, '..')) if ((statSync(p).mode & 0o005) !== 0o005) chmodSync(p, statSync(p).mode | 0o005);
  // Under /tmp itself, not the suite's private TMPDIR (0700, root's): sshd reads authorized_keys
  // as the remote user, and the remote user's HOME lives here too, so every folder above must be
  // one that user may enter. The rig ends its own processes (stop()).
  const dir = mkdtempSync(join('/tmp', 'termio-ssh-'));
  chmodSync(dir, 0o755);
  for (const k of ['host_key', 'client_key', 'wrong_key']) must('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', k, '-f', join(dir, k)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')));
  chmodSync(join(dir, 'authorized_keys'), 0o644);
  const remoteHome = join(dir, 'remote-home');
  const remoteTermioHome = join(remoteHome, '.termio');
  mkdirSync(remoteTermioHome, { recursive: true });
  chownSync(remoteHome, uid, gid);
  chownSync(remoteTermioHome, uid, gid);
  const port = await freePort();
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${readFileSync(join(dir, 'host_key.pub'), 'utf8')}`);
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      `AllowUsers ${REMOTE_USER}`,
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const sshd = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  sshd.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await waitFor(() => /Server listening on 127\.0\.0\.1/.test(log) || sshd.exitCode !== null, { what: 'sshd to listen', timeout: 10_000 });
  if (sshd.exitCode !== null) throw new Error(`sshd exited ${sshd.exitCode}: ${log}`);
  const env = `HOME=${remoteHome} TERMIO_HOME=${remoteTermioHome}`;
  const rig: SshRig = {
    dir,
    port,
    identity: join(dir, 'client_key'),
    wrongIdentity: join(dir, 'wrong_key'),
    knownHosts: join(dir, 'known_hosts'),
    remoteHome,
    remoteTermioHome,
    uid,
    sshd,
    sshOptions: [`UserKnownHostsFile=${join(dir, 'known_hosts')}`, 'StrictHostKeyChecking=yes', 'GlobalKnownHostsFile=/dev/null'],
    remoteCommand: `${env} exec ${process.execPath} ${join(repoRoot, 'bin', 'termio')} host --stdio`,
    asRemote: (argv) => {
      const r = spawnSync('runuser', ['-u', REMOTE_USER, '--', 'env', `HOME=${remoteHome}`, `TERMIO_HOME=${remoteTermioHome}`, ...argv], {
        encoding: 'utf8',
        cwd: remoteHome,
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    stop: async () => {
      // The remote user is shared by every rig that runs at once: end only this rig's processes.
      // Those below its sshd are found before it stops (their parent is lost then); the hosts,
      // holders and sessions started over ssh or by asRemote are known by their environment.
      const below = new Set(processesWhere(ofRig(uid, { dir, port, ...(sshd.pid ? { sshdPid: sshd.pid } : {}) })));
      sshd.kill('SIGTERM');
      await waitFor(() => sshd.exitCode !== null || sshd.signalCode !== null, { what: 'sshd to stop' });
      const ours = ofRig(uid, { dir, port });
      await endProcessesWhere((env, pid) => below.has(pid) || ours(env, pid), "the rig's remote processes");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Which rig a process belongs to: started under its sshd (SSH_CONNECTION names the rig's port,
 *  and children inherit it), or with a path inside the rig's folder in its environment (a HOME or
 *  TERMIO_HOME there, as asRemote sets), or, while the sshd runs, below it. */
interface RigMark {
  dir: string;
  port: number;
  sshdPid?: number;
}

/** Whether a process (its environment and pid, as processesWhere gives them) is the remote user's
 *  and belongs to the rig `mark` names. */
function ofRig(uid: number, mark: RigMark): (env: string[], pid: number) => boolean {
  return (env, pid) =>
    Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) === uid &&
    (env.some((v) => v.startsWith('SSH_CONNECTION=') && v.endsWith(` ${mark.port}`)) ||
      env.some((v) => v.includes(`=${mark.dir}/`)) ||
      (mark.sshdPid !== undefined && descendsFrom(pid, mark.sshdPid)));
}

function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (p === ancestor) return true;
  }
  return false;
}
