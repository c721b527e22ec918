// Places on the host's client socket, against a real host (in this process) over real Unix
// sockets: a client that leaves its answers unread is dropped, connections that never say hello
// and clients of other kinds can never fill the places the app and the CLI need.
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_LIMITS, MAX_CLIENTS } from '../../../src/app/host/server/admission';
import { HostClient } from '../../../src/app/client/hostClient';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { nullLogger } from '../../../src/app/services/log';
import { encodeJsonMessage, HOST_PROTOCOL_VERSION, MessageDecoder } from '../../../src/protocol/hostFraming';
import { waitFor } from '../../helpers/waitFor';

let dir: string;
let host: HostProcess;
let logs: string[] = [];
const clients: HostClient[] = [];
const sockets: Socket[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'termio-slots-'));
  const env = { ...process.env, HOME: dir, TERMIO_HOME: join(dir, '.termio') };
  logs = [];
  const keep = (m: string, d: unknown) => logs.push(`${m} ${JSON.stringify(d)}`);
  const r = await HostProcess.start({ env, logger: { ...nullLogger, info: keep, warn: keep }, idleExitMs: 0 });
  if (!r.ok) throw new Error(r.message);
  host = r.host;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.destroy();
  await host.stop('test over');
  rmSync(dir, { recursive: true, force: true });
});

async function connect(client: string): Promise<HostClient> {
  const c = await HostClient.connect(host.socketPath, { client, version: '0' });
  if (!(c instanceof HostClient)) throw new Error(`${client}: ${c.message}`);
  clients.push(c);
  return c;
}

async function answers(c: HostClient): Promise<void> {
  const r = await c.request('host.status', {});
  expect(r.ok).toBe(true);
}

/** A raw connection that never reads what it is sent (so it never sees the host close it either:
 *  the host's own list says who is still connected). */
function raw(): { socket: Socket; connected: Promise<void> } {
  const socket = createConnection(host.socketPath);
  sockets.push(socket);
  socket.pause();
  socket.on('error', () => {});
  return { socket, connected: new Promise((r) => socket.once('connect', () => r())) };
}

const named = (client: string) => host.server.status().clientList.filter((c) => c.client === client).length;

const hello = (client: string) => encodeJsonMessage({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, client, version: '0' });

/** The first thing the host tells a raw connection that reads, after its hello as `client`. */
async function told(client: string): Promise<{ t: string; code?: string; message?: string }> {
  const c = raw();
  const decoder = new MessageDecoder(1 << 24);
  await c.connected;
  c.socket.resume();
  c.socket.write(hello(client));
  return new Promise((resolve) => {
    c.socket.on('data', (b: Buffer) => {
      for (const m of decoder.push(b)) if (m.kind === 'json') resolve(m.value as { t: string });
    });
  });
}

/** A shell whose scrollback holds 3,000 lines of 160 characters, so each 1,000-row page is big. */
async function fullShell(c: HostClient): Promise<string> {
  const r = await c.request('sessions.run', { cwd: dir, argv: ['/bin/sh'], cols: 200, rows: 50 });
  if (!r.ok) throw new Error(r.error.message);
  const id = r.result.session.id;
  const s = host.registry.get(id)!.session;
  s.write(`i=0; while [ $i -lt 3000 ]; do i=$((i+1)); printf '%0160d\\n' $i; done; echo filled\n`);
  await waitFor(() => s.viewport.length >= 3000 && s.screenLines().some((l) => l.trimEnd() === 'filled'), { what: 'the scrollback to fill', timeout: 60_000 });
  return id;
}

describe('the host socket has room for the app and the CLI', () => {
  it('drops a client that leaves its answers unread, and keeps an idle one that has nothing unread', async () => {
    const idle = await connect('idle-script');
    const id = await fullShell(idle);
    const f = raw();
    await f.connected;
    f.socket.write(hello('nonreader'));
    f.socket.write(encodeJsonMessage({ t: 'req', id: 1, method: 'attach', params: { session: id, view: 1, cols: 200, rows: 50 } }));
    // Far more answers than the socket's buffers hold: each page is about 180 kB.
    for (let i = 0; i < 40; i++) f.socket.write(encodeJsonMessage({ t: 'req', id: 2 + i, method: 'rows', params: { view: 1, first: 0, count: 1000 } }));
    await waitFor(() => host.server.status().clientList.some((c) => c.client === 'nonreader' && c.unsentBytes > 0), { what: 'answers to pile up unread' });
    // Before, it kept its place for as long as it liked: this wait ran out.
    await waitFor(() => named('nonreader') === 0, { what: 'the host to drop the client that does not read', timeout: 30_000 });
    expect(logs.some((l) => l.startsWith('client dropped: it has not read'))).toBe(true);
    expect(host.server.status().clientList.map((c) => c.client)).toEqual(['idle-script']);
    await answers(idle);
  }, 120_000);

  it('gives the app and the CLI a place when every other place is taken by clients that never read or never say hello', async () => {
    // More clients of some other kind than there are places, none of them reading.
    const others = Array.from({ length: MAX_CLIENTS }, () => raw());
    await Promise.all(others.map((o) => o.connected));
    for (const o of others) o.socket.write(hello('hog'));
    await waitFor(() => named('hog') === CLIENT_LIMITS.other && host.server.clientCount === CLIENT_LIMITS.other, {
      what: 'the other kind to fill its places, and the rest let go',
    });
    // The rest were told why (and the host let them go).
    const refused = await told('hog');
    expect(refused).toMatchObject({ t: 'error', code: 'busy' });
    expect(refused.message).toMatch(/already has 56 clients besides the app and the CLI/);
    // Connections that never say hello: the oldest waiting ones make room for newcomers.
    const silent = Array.from({ length: 3 * CLIENT_LIMITS.pending }, () => raw());
    await Promise.all(silent.map((s) => s.connected));
    await waitFor(() => host.server.clientCount === CLIENT_LIMITS.other + CLIENT_LIMITS.pending, { what: 'the oldest silent connections to go' });
    const app = await connect('termio-app');
    const cli = await connect('termio-cli');
    await answers(app);
    await answers(cli);
    // A full app kind: the newest app connection takes the place of the quietest.
    const apps = [app];
    for (let i = 1; i < CLIENT_LIMITS.app; i++) apps.push(await connect('termio-app'));
    const newest = await connect('termio-app');
    await answers(newest);
    await waitFor(() => named('termio-app') === CLIENT_LIMITS.app, { what: 'the quietest app connection to go' });
    expect(logs.some((l) => l.includes('needed the place of the quietest one'))).toBe(true);
  }, 120_000);
});
