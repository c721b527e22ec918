// The web companion's walls, against the real termio-host process: the page's files load without
// the token and carry no data; every API call and WebSocket needs the token (missing, wrong and
// revoked ones get 401); a WebSocket from another origin is refused; no request reaches a file
// outside the bundle; a flood of bad tokens is rate-limited while the host keeps answering; and
// nothing listens while the companion is off.
import { request } from 'node:http';
import { connect } from 'node:net';
import { statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_FAILURES } from '../../../src/app/host/companion/rateLimit';
import { MAX_SOCKETS_PER_ADDRESS } from '../../../src/app/host/companion/companionServer';
import { AUTH_SUBPROTOCOL_PREFIX, CLOSE_HOST_STOPPING, CLOSE_REVOKED, COMPANION_SUBPROTOCOL } from '../../../src/protocol/companionWire';
import { waitFor } from '../../helpers/waitFor';
import { repoRoot, startHostProcess } from '../../helpers/companionHost';
import { existsSync } from 'node:fs';

type Host = Awaited<ReturnType<typeof startHostProcess>>;
let host: Host | null = null;

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'dist', 'web', 'index.html'))) throw new Error('dist/web is missing: run `npm run build` first');
});

afterEach(async () => {
  await host?.stop();
  host = null;
});

/** A raw GET: the path goes out exactly as written (no normalising of dots or slashes). */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a TCP connection to address:port is accepted. */
function reachable(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, address);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Opens the companion's WebSocket; resolves with the socket once open, or the HTTP status it was refused with. */
function openWs(port: number, opts: { token?: string; origin?: string | null } = {}): Promise<{ ws: WebSocket } | { status: number }> {
  const protocols = [COMPANION_SUBPROTOCOL, ...(opts.token !== undefined ? [`${AUTH_SUBPROTOCOL_PREFIX}${opts.token}`] : [])];
  const origin = opts.origin === undefined ? `http://127.0.0.1:${port}` : opts.origin;
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, protocols, origin === null ? {} : { origin });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

describe('companion security (real termio-host)', () => {
  it('serves the page without a token, with a strict CSP, and nothing else without one', async () => {
    host = await startHostProcess();
    await host.spawnShell('secret-session-name');
    const page = await get(host.port, '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script defer src="app.js"></script>');
    expect(page.body).not.toContain('secret-session-name');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect((await get(host.port, '/app.js')).status).toBe(200);

    const missing = await get(host.port, '/api/sessions');
    expect(missing.status).toBe(401);
    expect(missing.body).not.toContain('secret-session-name');
    const wrong = await get(host.port, '/api/sessions', { Authorization: `Bearer ${'A'.repeat(43)}` });
    expect(wrong.status).toBe(401);
    const right = await get(host.port, '/api/sessions', { Authorization: `Bearer ${host.token()}` });
    expect(right.status).toBe(200);
    expect(right.headers['cache-control']).toBe('no-store');
    expect((JSON.parse(right.body) as { sessions: Array<{ name: string }> }).sessions.map((s) => s.name)).toEqual(['secret-session-name']);
    // A token in the query string is not a token: it would end up in logs and history.
    expect((await get(host.port, `/api/sessions?t=${host.token()}`)).status).toBe(401);
  });

  it('keeps the token in a 0600 file of 32 random bytes', async () => {
    host = await startHostProcess();
    const file = join(host.env.TERMIO_HOME!, 'companion-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(host.token(), 'base64url')).toHaveLength(32);
  });

  it('refuses WebSockets without the token, with a wrong one, or from another origin', async () => {
    host = await startHostProcess();
    expect(await openWs(host.port)).toEqual({ status: 401 });
    expect(await openWs(host.port, { token: 'x'.repeat(43) })).toEqual({ status: 401 });
    expect(await openWs(host.port, { token: host.token(), origin: 'http://evil.example' })).toEqual({ status: 403 });
    expect(await openWs(host.port, { token: host.token(), origin: `http://localhost:${host.port}` })).toEqual({ status: 403 });
    expect(await openWs(host.port, { token: host.token(), origin: null })).toEqual({ status: 403 });
    const ok = await openWs(host.port, { token: host.token() });
    expect('ws' in ok).toBe(true);
    if ('ws' in ok) {
      expect(ok.ws.protocol).toBe(COMPANION_SUBPROTOCOL);
      ok.ws.close();
    }
  });

  it('revoke: the old token stops working and every paired page is disconnected at once', async () => {
    host = await startHostProcess();
    const old = host.token();
    const open = await openWs(host.port, { token: old });
    if (!('ws' in open)) throw new Error(`refused: ${open.status}`);
    const closed = new Promise<number>((r) => open.ws.once('close', (code) => r(code)));
    const c = await host.client();
    const r = await c.request('companion.revoke', {});
    expect(r.ok).toBe(true);
    expect(await closed).toBe(CLOSE_REVOKED);
    expect(host.token()).not.toBe(old);
    if (r.ok) expect(r.result.url).toContain(`#t=${host.token()}`);
    expect((await get(host.port, '/api/sessions', { Authorization: `Bearer ${old}` })).status).toBe(401);
    expect(await openWs(host.port, { token: old })).toEqual({ status: 401 });
    expect((await get(host.port, '/api/sessions', { Authorization: `Bearer ${host.token()}` })).status).toBe(200);
  });

  it('never serves a file outside the bundle', async () => {
    host = await startHostProcess();
    const attempts = [
      '/../package.json',
      '/..%2f..%2fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
      '/app.js/../../../package.json',
      '//etc/passwd',
      '/../../../../etc/passwd',
      '/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/.',
      '/web/',
      '/index.html%00.js',
      '/dist/web/index.html',
      '/api/../package.json',
      '\\..\\package.json',
    ];
    for (const path of attempts) {
      const r = await get(host.port, path);
      if (r.status === 200) {
        // Only a request that normalises to a bundled file may succeed, and it must be that file.
        expect(r.body, path).not.toContain('"name": "termio"');
        expect(r.body, path).not.toContain('root:');
      } else {
        expect([400, 401, 404], path).toContain(r.status);
      }
      expect(r.body, path).not.toContain('"devDependencies"');
      expect(r.body, path).not.toMatch(/root:.*:0:0:/);
    }
    // No listing of the folder either.
    expect((await get(host.port, '/assets/')).status).toBe(404);
  });

  it('rate-limits 1,000 bad tokens from one address while the host keeps answering', async () => {
    host = await startHostProcess();
    const c = await host.client();
    const statuses: number[] = [];
    let answered = 0;
    let flooding = true;
    const probe = (async () => {
      while (flooding) {
        const r = await c.request('host.status', {});
        expect(r.ok).toBe(true);
        answered++;
        await new Promise((res) => setImmediate(res));
      }
    })();
    // As many at a time as one address may hold open, so every request gets an answer.
    for (let batch = 0; batch < 1000 / 8; batch++) {
      const rs = await Promise.all(
        Array.from({ length: MAX_SOCKETS_PER_ADDRESS }, (_, i) => get(host!.port, '/api/sessions', { Authorization: `Bearer bad-${batch}-${i}` })),
      );
      statuses.push(...rs.map((r) => r.status));
    }
    flooding = false;
    await probe;
    expect(statuses).toHaveLength(1000);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1000 - MAX_FAILURES);
    // Refused addresses are refused even with the right token, until the window passes.
    expect((await get(host.port, '/api/sessions', { Authorization: `Bearer ${host.token()}` })).status).toBe(429);
    // The host answered its own client again and again while the flood ran (not how fast: no
    // timed bound on a shared machine).
    expect(answered).toBeGreaterThan(5);
    const st = await c.request('host.status', {});
    expect(st.ok).toBe(true);
  });

  it('listens on nothing while the companion is off, on loopback only when on, and on the network when chosen', async () => {
    host = await startHostProcess({ enabled: false });
    expect(await reachable('127.0.0.1', host.port)).toBe(false);
    // No token is minted while the companion has never been on.
    expect(existsSync(join(host.env.TERMIO_HOME!, 'companion-token'))).toBe(false);
    const c = await host.client();
    const st = await c.request('companion.status', {});
    expect(st.ok && st.result).toMatchObject({ enabled: false, listening: false, url: null });
    const on = await c.request('companion.enable', {});
    expect(on.ok && on.result).toMatchObject({ enabled: true, listening: true, network: 'loopback' });
    if (on.ok) expect(on.result.url).toBe(`http://127.0.0.1:${host.port}/#t=${host.token()}`);
    expect((await get(host.port, '/')).status).toBe(200);
    // Loopback means loopback: this machine's network address does not answer.
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
    expect(lan, 'this test needs a non-loopback IPv4 address to try').toBeTruthy();
    expect(await reachable(lan!, host.port)).toBe(false);
    const wide = await c.request('companion.enable', { network: 'lan' });
    expect(wide.ok && wide.result).toMatchObject({ listening: true, network: 'lan', url: `http://${lan}:${host.port}/#t=${host.token()}` });
    expect(await reachable(lan!, host.port)).toBe(true);
  });

  it('follows a hand edit of settings.json: off stops serving at once, on serves again', async () => {
    host = await startHostProcess();
    const file = join(host.env.TERMIO_HOME!, 'config', 'settings.json');
    const open = await openWs(host.port, { token: host.token() });
    if (!('ws' in open)) throw new Error(`refused: ${open.status}`);
    const closed = new Promise<number>((r) => open.ws.once('close', (code) => r(code)));
    writeFileSync(file, JSON.stringify({ companion: { enabled: false, port: host.port } }));
    expect(await closed).toBe(CLOSE_HOST_STOPPING);
    await waitFor(async () => !(await reachable('127.0.0.1', host!.port)), { what: 'the server to stop' });
    writeFileSync(file, JSON.stringify({ companion: { enabled: true, port: host.port } }));
    await waitFor(() => reachable('127.0.0.1', host!.port), { what: 'the server to serve again' });
  });
});
