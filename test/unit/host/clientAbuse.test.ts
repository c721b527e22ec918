// Hostile clients of the host's socket, against a real host (in this process) with a real shell:
// clients that pipeline expensive requests and never read the answers must not slow down
// another client, neither while they run nor once they are gone. What keeps the host answering
// is checked, not how fast it answers (no bench times this): the host stops reading a
// connection whose answers pile up unread, so what each flooder holds there stays bounded.
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT } from '../../../src/app/host/server/connection';
import { HostClient } from '../../../src/app/client/hostClient';
import { HostProcess } from '../../../src/app/host/hostProcess';
import { nullLogger } from '../../../src/app/services/log';
import { encodeJsonMessage, HOST_PROTOCOL_VERSION } from '../../../src/protocol/hostFraming';
import { waitFor } from '../../helpers/waitFor';

let dir: string;
let host: HostProcess;
/** What the host logged, shown when a wait fails (a client the host refused says why). */
let logs: string[] = [];
const clients: HostClient[] = [];
const sockets: Socket[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'termio-hostabuse-'));
  const env = { ...process.env, HOME: dir, TERMIO_HOME: join(dir, '.termio') };
  logs = [];
  const r = await HostProcess.start({
    env,
    logger: { ...nullLogger, info: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`), warn: (m, d) => logs.push(`${m} ${JSON.stringify(d)}`) },
    idleExitMs: 0,
  });
  if (!r.ok) throw new Error(r.message);
  host = r.host;
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.destroy();
  await host.stop('test over');
  rmSync(dir, { recursive: true, force: true });
});

async function connect(): Promise<HostClient> {
  const c = await HostClient.connect(host.socketPath, { client: 'test', version: '0' });
  if (!(c instanceof HostClient)) throw new Error(c.message);
  clients.push(c);
  return c;
}

/** A shell whose scrollback holds 3,000 lines of 160 characters: each 1,000-row page costs real work. */
async function fullShell(c: HostClient): Promise<string> {
  const r = await c.request('sessions.run', { cwd: dir, argv: ['/bin/sh'], cols: 200, rows: 50 });
  if (!r.ok) throw new Error(r.error.message);
  const id = r.result.session.id;
  const s = host.registry.get(id)!.session;
  s.write(`i=0; while [ $i -lt 3000 ]; do i=$((i+1)); printf '%0160d\\n' $i; done; echo filled\n`);
  await waitFor(() => s.viewport.length >= 3000 && s.screenLines().some((l) => l.trimEnd() === 'filled'), { what: 'the scrollback to fill', timeout: 60_000 });
  return id;
}

const rowsRequest = (id: number) => encodeJsonMessage({ t: 'req', id, method: 'rows', params: { view: 1, first: 0, count: 1000 } });

/** A client that attaches, then pipelines rows pages as fast as its socket takes them and never reads. */
function flooder(session: string): { socket: Socket; sent: () => number; stop: () => void } {
  const socket = createConnection(host.socketPath);
  sockets.push(socket);
  socket.pause();
  socket.on('error', () => {});
  let sent = 0;
  let live = true;
  const pour = () => {
    while (live && !socket.destroyed && socket.writableLength < 256 * 1024) socket.write(rowsRequest(100 + sent++));
  };
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write(encodeJsonMessage({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, client: 'flooder', version: '0' }));
    socket.write(encodeJsonMessage({ t: 'req', id: 1, method: 'attach', params: { session, view: 1, cols: 200, rows: 50 } }));
    pour();
    // Only once connected: anything written before would go out ahead of the hello.
    if (live) timer = setInterval(pour, 5);
  });
  return {
    socket,
    sent: () => sent,
    stop: () => {
      live = false;
      clearInterval(timer);
      socket.destroy();
    },
  };
}

/** host.status on a well-behaved connection answers. */
async function statusAnswers(c: HostClient): Promise<void> {
  const r = await c.request('host.status', {});
  expect(r.ok).toBe(true);
}

describe('clients that pipeline requests and never read', () => {
  it('leave host.status answering for another client while they run and once they are gone', async () => {
    const c = await connect();
    const id = await fullShell(c);
    const floods = Array.from({ length: 8 }, () => flooder(id));
    // Each has sent far more than the host holds for one connection: its own bound is what stops it.
    await waitFor(() => floods.every((f) => f.sent() > 4 * MAX_IN_FLIGHT), { what: 'every flooder to pipeline its requests', timeout: 30_000 });
    for (let i = 0; i < 10; i++) await statusAnswers(c);
    // What a flooder holds in the host stays bounded: the unsent answers of a couple of pages.
    const flooders = await waitFor(
      async () => {
        const status = await c.request('host.status', {});
        const list = status.ok ? status.result.clientList.filter((x) => x.client === 'flooder' && x.views === 1) : [];
        return list.length === 8 ? list : null;
      },
      { what: 'every flooder attached', timeout: 30_000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the host logged: ${logs.slice(-8).join(' | ')}`);
    });
    for (const f of flooders) expect(f.unsentBytes).toBeLessThan(4 * 1024 * 1024);
    for (const f of floods) f.stop();
    for (let i = 0; i < 5; i++) await statusAnswers(c);
    await waitFor(() => host.server.clientCount === 1, { what: 'the host to forget the flooders' });
  }, 120_000);

  it('a client that sends a burst of requests and reads them gets every answer, in order', async () => {
    const c = await connect();
    const id = await fullShell(c);
    const raw = createConnection(host.socketPath);
    sockets.push(raw);
    const { MessageDecoder } = await import('../../../src/protocol/hostFraming');
    const decoder = new MessageDecoder(1 << 24);
    const ids: number[] = [];
    raw.on('data', (b: Buffer) => {
      for (const m of decoder.push(b)) if (m.kind === 'json' && (m.value as { t: string }).t === 'res') ids.push((m.value as { id: number }).id);
    });
    await new Promise<void>((r) => raw.once('connect', () => r()));
    const burst = [encodeJsonMessage({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, client: 'burst', version: '0' })];
    burst.push(encodeJsonMessage({ t: 'req', id: 1, method: 'attach', params: { session: id, view: 1, cols: 200, rows: 50 } }));
    // Past the in-flight bound: the host stops reading, then reads on; nothing is lost or reordered.
    for (let i = 0; i < 5 * MAX_IN_FLIGHT; i++) burst.push(encodeJsonMessage({ t: 'req', id: 2 + i, method: 'host.status' }));
    raw.write(Buffer.concat(burst));
    await waitFor(() => ids.length === 1 + 5 * MAX_IN_FLIGHT, { what: 'every answer', timeout: 30_000 });
    expect(ids).toEqual(Array.from({ length: 1 + 5 * MAX_IN_FLIGHT }, (_, i) => 1 + i));
  }, 120_000);
});
