// The companion against requests without a token, from the real termio-host process on a free
// loopback port: a missing token is no guess (the owner is never locked out by a page that sends
// none), only host names the companion serves are answered (a DNS-rebinding page gets nothing),
// one address cannot hold every connection, idle and dripping connections are dropped at about
// 10 s, and refused requests cost the log at most a line per address per minute.
// Requests come from several 127.0.0.x source addresses (Linux routes all of 127/8 to lo), so the
// per-address state of one case does not reach the next.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS_TIMEOUT_MS, MAX_SOCKETS, MAX_SOCKETS_PER_ADDRESS } from '../../../src/app/host/companion/companionServer';
import { MAX_FAILURES } from '../../../src/app/host/companion/rateLimit';
import { createLogger } from '../../../src/app/services/log';
import { AUTH_SUBPROTOCOL_PREFIX, COMPANION_SUBPROTOCOL } from '../../../src/protocol/companionWire';
import { startHostProcess } from '../../helpers/companionHost';
import { waitFor } from '../../helpers/waitFor';

let host: Awaited<ReturnType<typeof startHostProcess>> | null = null;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await host?.stop();
  host = null;
});

function get(port: number, path: string, opts: { from?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: opts.headers ?? {}, agent: false, ...(opts.from ? { localAddress: opts.from } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A raw WebSocket upgrade request; answers the status line the server sent. */
function upgrade(port: number, headers: Record<string, string>, from?: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, ...(from ? { localAddress: from } : {}) });
    sockets.push(s);
    let got = '';
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) {
        resolve(got.slice(0, got.indexOf('\r\n')));
        s.destroy();
      }
    });
    s.on('error', () => resolve(got || 'error'));
    s.on('close', () => resolve(got.split('\r\n')[0] || 'closed'));
    const lines = Object.entries({
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      ...headers,
    }).map(([k, v]) => `${k}: ${v}`);
    s.write(`GET /ws HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
  });
}

function openSocket(port: number, from: string): Promise<{ socket: Socket; closed: () => boolean; closedAt: () => number }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    sockets.push(socket);
    let closedAt = 0;
    socket.on('close', () => (closedAt = performance.now()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed: () => closedAt > 0, closedAt: () => closedAt }));
    socket.once('error', reject);
  });
}

const hostLog = () => join(host!.env.TERMIO_HOME!, 'logs', 'host.log');
const logText = () => {
  try {
    return readFileSync(hostLog(), 'utf8');
  } catch {
    return '';
  }
};

describe('requests without a token', () => {
  it('never lock the owner out: only a presented wrong token counts against an address', async () => {
    host = await startHostProcess();
    const from = '127.0.0.21';
    for (let i = 0; i < 3 * MAX_FAILURES; i++) expect((await get(host.port, '/api/sessions', { from })).status).toBe(401);
    expect((await get(host.port, '/api/sessions', { from, headers: { Authorization: `Bearer ${host.token()}` } })).status).toBe(200);
    // Presented wrong tokens still do.
    for (let i = 0; i < MAX_FAILURES; i++) await get(host.port, '/api/sessions', { from, headers: { Authorization: `Bearer wrong-${i}` } });
    expect((await get(host.port, '/api/sessions', { from, headers: { Authorization: `Bearer ${host.token()}` } })).status).toBe(429);
  });
});

describe('the Host header', () => {
  it('answers only names the companion serves: a rebinding page gets neither the page nor a WebSocket', async () => {
    host = await startHostProcess();
    const port = host.port;
    for (const path of ['/', '/app.js', '/app.css', '/api/sessions']) {
      const r = await get(port, path, { from: '127.0.0.22', headers: { Host: `evil.example:${port}`, Authorization: `Bearer ${host.token()}` } });
      expect(r.status, path).toBe(421);
      expect(r.body).not.toContain('<html');
    }
    const ws = {
      Host: `evil.example:${port}`,
      Origin: `http://evil.example:${port}`,
      'Sec-WebSocket-Protocol': `${COMPANION_SUBPROTOCOL}, ${AUTH_SUBPROTOCOL_PREFIX}${host.token()}`,
    };
    expect(await upgrade(port, ws, '127.0.0.22')).toBe('HTTP/1.1 421 Misdirected Request');
    expect((await get(port, '/', { headers: { Host: `localhost:${port}` } })).status).toBe(200);
    expect((await get(port, '/', { headers: { Host: `127.0.0.1:${port}` } })).status).toBe(200);
    expect(await upgrade(port, { ...ws, Host: `127.0.0.1:${port}`, Origin: `http://127.0.0.1:${port}` })).toBe('HTTP/1.1 101 Switching Protocols');
    // A name the user adds (a reverse proxy's) is served once settings say so.
    expect((await get(port, '/', { headers: { Host: 'termio.example' } })).status).toBe(421);
    const settingsFile = join(host.env.TERMIO_HOME!, 'config', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { companion: Record<string, unknown> };
    settings.companion.allowedHosts = ['termio.example'];
    writeFileSync(settingsFile, JSON.stringify(settings));
    await waitFor(async () => (await get(port, '/', { headers: { Host: 'termio.example' } })).status === 200, { what: 'the added name to be served' });
    // https: is the page's own origin only behind a proxy, for a name the user added.
    expect(await upgrade(port, { ...ws, Host: `127.0.0.1:${port}`, Origin: `https://127.0.0.1:${port}` })).toBe('HTTP/1.1 403 Forbidden');
    expect(await upgrade(port, { ...ws, Host: 'termio.example', Origin: 'https://termio.example' })).toBe('HTTP/1.1 101 Switching Protocols');
  });
});

describe('connections that hold the server', () => {
  it('one address holds at most a few connections; another is still served', async () => {
    host = await startHostProcess();
    const held = await Promise.all(Array.from({ length: 3 * MAX_SOCKETS_PER_ADDRESS }, () => openSocket(host!.port, '127.0.0.23')));
    await waitFor(() => held.filter((h) => h.closed()).length === 2 * MAX_SOCKETS_PER_ADDRESS, { what: 'the connections past the cap to be closed' });
    expect((await get(host.port, '/', { from: '127.0.0.24' })).status).toBe(200);
  });

  it('idle connections from several addresses, each reopened as soon as it closes, never keep a client out', async () => {
    host = await startHostProcess();
    const port = host.port;
    // More idle connections than there are places, from five addresses, each at its own cap.
    const addresses = Math.ceil(MAX_SOCKETS / MAX_SOCKETS_PER_ADDRESS) + 1;
    let holding = true;
    let opened = 0;
    const hold = (from: string): void => {
      const s = connect({ host: '127.0.0.1', port, localAddress: from });
      sockets.push(s);
      opened++;
      s.on('error', () => undefined);
      s.on('close', () => holding && setImmediate(() => hold(from)));
    };
    try {
      for (let a = 0; a < addresses; a++) for (let i = 0; i < MAX_SOCKETS_PER_ADDRESS; i++) hold(`127.0.0.${40 + a}`);
      await waitFor(() => opened > addresses * MAX_SOCKETS_PER_ADDRESS, { what: 'the idle connections to fill every place' });
      // A client from another address is served every time; so is one that pairs.
      for (let i = 0; i < 5; i++) expect((await get(port, '/', { from: '127.0.0.39' })).status).toBe(200);
      const ws = {
        Host: `127.0.0.1:${port}`,
        Origin: `http://127.0.0.1:${port}`,
        'Sec-WebSocket-Protocol': `${COMPANION_SUBPROTOCOL}, ${AUTH_SUBPROTOCOL_PREFIX}${host.token()}`,
      };
      expect(await upgrade(port, ws, '127.0.0.38')).toBe('HTTP/1.1 101 Switching Protocols');
    } finally {
      holding = false;
    }
  }, 60_000);

  it('drops a connection that sends nothing, and one that drips its headers, at about the headers timeout', async () => {
    host = await startHostProcess();
    const t0 = performance.now();
    const idle = await openSocket(host.port, '127.0.0.25');
    const drip = await openSocket(host.port, '127.0.0.26');
    const header = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200);
    let i = 0;
    const timer = setInterval(() => drip.socket.writable && drip.socket.write(header[i++ % header.length]!), 1000);
    try {
      await waitFor(() => idle.closed() && drip.closed(), { what: 'both connections to be dropped', timeout: 4 * HEADERS_TIMEOUT_MS });
    } finally {
      clearInterval(timer);
    }
    // Generous against a shared machine; Node's own 30 s check had held them 14-37 s.
    expect(idle.closedAt() - t0).toBeLessThan(HEADERS_TIMEOUT_MS + 4000);
    expect(drip.closedAt() - t0).toBeLessThan(HEADERS_TIMEOUT_MS + 4000);
  }, 60_000);
});

describe('the log under refused requests', () => {
  it('writes at most one short line per address per minute for refused WebSockets', async () => {
    host = await startHostProcess();
    const before = statSync(hostLog()).size;
    const origin = `http://${'x'.repeat(15_000)}.example`;
    for (let k = 0; k < 200; k++) await upgrade(host.port, { Host: `127.0.0.1:${host.port}`, Origin: origin }, '127.0.0.27');
    const added = logText()
      .slice(before)
      .split('\n')
      .filter((l) => l.includes('127.0.0.27'));
    expect(added).toHaveLength(1);
    expect(added[0]!.length).toBeLessThan(1000);
    expect(statSync(hostLog()).size - before).toBeLessThan(10_000);
  });

  it('rotates at its size cap: the log and its one old copy stay bounded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tlogrot-'));
    try {
      const file = join(dir, 'host.log');
      const log = createLogger(file, { maxBytes: 10_000 });
      for (let k = 0; k < 2_000; k++) log.warn('a line of about a hundred bytes', { k, pad: 'p'.repeat(40) });
      expect(statSync(file).size).toBeLessThanOrEqual(10_000);
      expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(10_000);
      expect(statSync(`${file}.1`).size).toBeGreaterThan(9_000);
      expect(readFileSync(file, 'utf8')).toContain('"k":1999');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
