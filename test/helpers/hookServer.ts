// A real HookServer for tests, collecting every report it accepts, and a raw client of one.
import { createConnection } from 'node:net';
import { HookServer } from '../../src/app/host/status/hookServer';
import type { TermioPaths } from '../../src/app/services/paths';
import type { HookReport } from '../../src/protocol/hookReport';

export async function startHookServer(
  paths: TermioPaths,
  secretOf: (id: string) => string | undefined,
): Promise<{ server: HookServer; reports: HookReport[] }> {
  const s = await HookServer.start({ paths, secretOf });
  if (!(s instanceof HookServer)) throw new Error(s.message);
  const reports: HookReport[] = [];
  s.onReport((r) => reports.push(r));
  return { server: s, reports };
}

/**
 * Sends bytes on one connection to a hook socket as a reporter would (`end: false` leaves the
 * connection open, as a silent or slow client does), reading the server's answer so its end
 * closes the connection; resolves once it is closed, whatever happened.
 */
export function sendHookBytes(socketPath: string, bytes: string | Buffer, opts: { end?: boolean } = {}): Promise<void> {
  return new Promise((resolve) => {
    const c = createConnection(socketPath);
    c.resume();
    c.on('error', () => resolve());
    c.on('close', () => resolve());
    c.on('connect', () => (opts.end === false ? c.write(bytes) : c.end(bytes)));
  });
}
