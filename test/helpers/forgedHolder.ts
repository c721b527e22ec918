// A forged session holder for tests: a socket in run/holders/<id>.sock (where a host looks for
// holders a previous host left) that answers with the hello it is given and records the message
// kinds the host sends it. It speaks only the hello; what a host does with such a socket is the
// point of the tests that use it.
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { decodeHolderBody, HolderDecoder, HolderKind } from '../../src/protocol/holderWire';

export interface ForgedHello {
  holderPid: number;
  agentPid: number;
  cols: number;
  rows: number;
}

export interface ForgedHolder {
  socketPath: string;
  /** Every resize the host sent, in order. */
  resizes: Array<{ cols: number; rows: number }>;
  /** How many connections a host made. */
  connections: number;
  close(): Promise<void>;
}

function hello(h: ForgedHello): Buffer {
  const b = Buffer.alloc(5 + 36);
  b.writeUInt32BE(37, 0);
  b[4] = HolderKind.hello;
  b.writeUInt16BE(1, 5);
  b.writeUInt32BE(h.holderPid, 7);
  b.writeUInt32BE(h.agentPid, 11);
  b.writeUInt16BE(h.cols, 15);
  b.writeUInt16BE(h.rows, 17);
  // base, end: 0; not exited.
  return b;
}

/** Listens as session `id`'s holder in `termioHome` (the folder made 0700 as a host makes it). */
export async function forgeHolder(termioHome: string, id: string, h: ForgedHello): Promise<ForgedHolder> {
  const dir = join(termioHome, 'run', 'holders');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socketPath = join(dir, `${id}.sock`);
  const sockets = new Set<Socket>();
  const forged: ForgedHolder = { socketPath, resizes: [], connections: 0, close: () => Promise.resolve() };
  const server: Server = createServer((s) => {
    forged.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    const decoder = new HolderDecoder();
    s.on('data', (chunk: Buffer) => {
      const bodies = decoder.push(chunk);
      if ('error' in bodies) return;
      for (const body of bodies) {
        const m = decodeHolderBody(body);
        if ('error' in m || m.kind !== 'unknown' || m.code !== HolderKind.resize) continue;
        const v = new DataView(body.buffer, body.byteOffset, body.length);
        forged.resizes.push({ cols: v.getUint16(1), rows: v.getUint16(3) });
      }
    });
    s.write(hello(h));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  forged.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
      rmSync(socketPath, { force: true });
    });
  return forged;
}
