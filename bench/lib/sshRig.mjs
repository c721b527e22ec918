// A real sshd on a loopback port with its own config and keys, and a second local user
// (termio-remote) as the remote machine, for bench/machines.mjs (test/helpers/sshRig.ts is the
// tests' twin). Needs root: it creates the user once and starts sshd.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REMOTE_USER = 'termio-remote';

function must(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

export async function startSshRig(root, remoteHomes) {
  if (process.getuid?.() !== 0) throw new Error('bench/machines.mjs runs sshd and a second user: run it as root');
  if (!existsSync('/usr/sbin/sshd')) must('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server']);
  if (spawnSync('id', ['-u', REMOTE_USER]).status !== 0) must('useradd', ['--create-home', '--shell', '/bin/bash', REMOTE_USER]);
  must('usermod', ['-p', '*', REMOTE_USER]);
  const uid = Number(must('id', ['-u', REMOTE_USER]).trim());
  const gid = Number(must('id', ['-g', REMOTE_USER]).trim());
  const dir = mkdtempSync(join(tmpdir(), 'termio-bench-ssh-'));
  chmodSync(dir, 0o755);
  for (const k of ['host_key', 'client_key']) must('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', k, '-f', join(dir, k)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')));
  const homes = remoteHomes.map((n) => {
    const h = join(dir, n);
    mkdirSync(join(h, '.termio'), { recursive: true });
    chownSync(h, uid, gid);
    chownSync(join(h, '.termio'), uid, gid);
    return h;
  });
  const port = await freePort();
  writeFileSync(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${readFileSync(join(dir, 'host_key.pub'), 'utf8')}`);
  writeFileSync(
    join(dir, 'sshd_config'),
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
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  sshd.stderr.on('data', (d) => (log += d));
  const t0 = Date.now();
  while (!/Server listening/.test(log)) {
    if (sshd.exitCode !== null || Date.now() - t0 > 10_000) throw new Error(`sshd did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const machine = (name, home) => ({
    name,
    target: `${REMOTE_USER}@127.0.0.1`,
    port,
    identity: join(dir, 'client_key'),
    sshOptions: [`UserKnownHostsFile=${join(dir, 'known_hosts')}`, 'StrictHostKeyChecking=yes'],
    remoteCommand: `HOME=${home} TERMIO_HOME=${join(home, '.termio')} exec ${process.execPath} ${join(root, 'bin', 'termio')} host --stdio`,
  });
  return {
    dir,
    uid,
    gid,
    homes,
    machine,
    async stop() {
      sshd.kill('SIGTERM');
      for (let round = 0; round < 3; round++) {
        const left = readdirSync('/proc')
          .filter((n) => /^\d+$/.test(n))
          .map(Number)
          .filter((pid) => {
            try {
              return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) === uid && alive(pid);
            } catch {
              return false;
            }
          });
        for (const pid of left)
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        const t = Date.now();
        while (left.some(alive) && Date.now() - t < 5000) await new Promise((r) => setTimeout(r, 20));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
