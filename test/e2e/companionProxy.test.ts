// The HTTPS recipe of docs/companion.md, run as written: nginx (Debian's) terminates TLS in front
// of the loopback companion with the server block the doc gives, and a real Chromium pairs
// through it — the page loads over https, its WebSocket's Origin is https://<the proxy's name>,
// which the companion accepts because the proxy on this machine says X-Forwarded-Proto: https.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { startHostInProcess } from '../helpers/companionHost';
import { freePort } from '../helpers/ports';
import { waitForExit } from '../helpers/processes';
import { waitFor } from '../helpers/waitFor';

const DOC = resolve(__dirname, '..', '..', 'docs', 'companion.md');
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** The doc's nginx server block (the first ```nginx fence), with this test's names filled in. */
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

it('pairs through an HTTPS reverse proxy (nginx) configured as the doc says', async () => {
  const host = await startHostInProcess();
  const dir = mkdtempSync(join(tmpdir(), 'tproxy-'));
  let nginx: ChildProcess | null = null;
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true, isMobile: true, hasTouch: true });
  try {
    await host.spawnShell('behind the proxy');
    const cert = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { encoding: 'utf8' },
    );
    if (cert.status !== 0) throw new Error(`openssl: ${cert.stderr}`);
    const port = await freePort();
    mkdirSync(join(dir, 'tmp'));
    const t = join(dir, 'tmp');
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        `pid ${join(dir, 'nginx.pid')};`,
        `error_log ${join(dir, 'error.log')};`,
        'events {}',
        `http { access_log off; client_body_temp_path ${t}; proxy_temp_path ${t}; fastcgi_temp_path ${t}; uwsgi_temp_path ${t}; scgi_temp_path ${t};`,
        recipe(port, host.port, dir),
        '}',
      ].join('\n'),
    );
    nginx = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' });
    const listening = (): Promise<boolean> =>
      new Promise((res) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), res(true)));
        s.once('error', () => res(false));
      });
    await waitFor(async () => (await listening()) || nginx!.exitCode !== null, { what: 'nginx to listen' });
    if (nginx.exitCode !== null) throw new Error(`nginx exited: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    const page = await context.newPage();
    await page.goto(`https://localhost:${port}/#t=${host.token()}`);
    await waitFor(async () => (await page.locator('#conn').textContent()) === 'Live', { what: 'the page to go live through the proxy' });
    await waitFor(async () => (await page.locator('#groups .row .title').allTextContents()).includes('behind the proxy'), {
      what: 'the session list through the proxy',
    });
    expect(await page.evaluate(() => isSecureContext)).toBe(true);
  } finally {
    await context.close();
    if (nginx?.pid && nginx.exitCode === null) {
      nginx.kill('SIGTERM');
      await waitForExit(nginx.pid, 'nginx to stop');
    }
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
