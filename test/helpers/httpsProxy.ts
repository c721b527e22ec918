// The HTTPS recipe of docs/companion.md as the tests run it: Debian's nginx terminating TLS (a
// throwaway self-signed certificate for localhost) in front of a loopback companion, with the
// server block the doc gives (its first ```nginx fence), this test's names and ports filled in.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './ports';
import { waitForExit } from './processes';
import { waitFor } from './waitFor';

const DOC = resolve(__dirname, '..', '..', 'docs', 'companion.md');

/** The doc's nginx server block, with this test's names filled in. */
function recipe(port: number, companionPort: number, dir: string): string {
  const block = /```nginx\n([\s\S]*?)```/.exec(readFileSync(DOC, 'utf8'))?.[1];
  if (!block) throw new Error(`docs/companion.md has no nginx block`);
  return block
    .replaceAll('companion.example.com', 'localhost')
    .replaceAll('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`)
    .replaceAll('/etc/ssl/companion.crt', join(dir, 'cert.pem'))
    .replaceAll('/etc/ssl/companion.key', join(dir, 'key.pem'))
    .replaceAll('127.0.0.1:7681', `127.0.0.1:${companionPort}`);
}

/** nginx serving https://localhost:<port> in front of the companion on `companionPort`. */
export async function startHttpsProxy(companionPort: number): Promise<{ origin: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'tproxy-'));
  let nginx: ChildProcess | null = null;
  const stop = async (): Promise<void> => {
    if (nginx?.pid && nginx.exitCode === null) {
      nginx.kill('SIGTERM');
      await waitForExit(nginx.pid, 'nginx to stop');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const cert = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { encoding: 'utf8' },
    );
    if (cert.status !== 0) throw new Error(`openssl: ${cert.stderr}`);
    const port = await freePort();
    const t = join(dir, 'tmp');
    mkdirSync(t);
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${join(dir, 'nginx.pid')};`,
        `error_log ${join(dir, 'error.log')};`,
        'events {}',
        `http { access_log off; client_body_temp_path ${t}; proxy_temp_path ${t}; fastcgi_temp_path ${t}; uwsgi_temp_path ${t}; scgi_temp_path ${t};`,
        recipe(port, companionPort, dir),
        '}',
      ].join('\n'),
    );
    const proc = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
    nginx = proc;
    const listening = (): Promise<boolean> =>
      new Promise((res) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), res(true)));
        s.once('error', () => res(false));
      });
    await waitFor(async () => (await listening()) || proc.exitCode !== null, { what: 'nginx to listen' });
    if (proc.exitCode !== null) throw new Error(`nginx exited: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    return { origin: `https://localhost:${port}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
