// Claiming a Unix socket path for a server: the one place that decides whether a file at the path
// belongs to a live server (leave it), to a crashed one (replace it), or is not a socket at all
// (refuse: never unlink a file we did not create). Every server socket Termio owns goes through here.
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A live server accepts at once; one that has not answered in a second is busy or frozen, and
 *  its socket is still never taken from it. */
const PROBE_TIMEOUT_MS = 1_000;

export type SocketProbe = 'absent' | 'stale' | 'live' | { error: string };

/** What sits at a socket path: nothing, a socket nobody accepts on, a live server, or a problem. */
export function probeSocket(path: string): Promise<SocketProbe> {
  try {
    if (!lstatSync(path).isSocket()) return Promise.resolve({ error: `${path} exists and is not a socket; remove it if no Termio is running` });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Promise.resolve('absent');
    return Promise.resolve({ error: `cannot inspect ${path}: ${(err as Error).message}` });
  }
  return new Promise((resolve) => {
    const sock = createConnection(path);
    const done = (p: SocketProbe) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(p);
    };
    const timer = setTimeout(() => done('live'), PROBE_TIMEOUT_MS);
    sock.on('connect', () => done('live'));
    sock.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') done('stale');
      else if (err.code === 'ENOENT') done('absent');
      else if (err.code === 'EAGAIN') done('live');
      else done({ error: `cannot probe ${path}: ${err.message}` });
    });
  });
}

export type ClaimResult =
  { ok: true; server: Server; replacedStale: boolean } | { ok: false; reason: 'alreadyRunning' | 'notASocket' | 'listenFailed'; message: string };

export interface ClaimOptions {
  onConnection: (socket: Socket) => void;
  /** Kernel-level accept ceiling (net.Server.maxConnections). */
  maxConnections?: number;
}

/**
 * Listens on `path` with mode 0600, replacing a stale socket left by a process that is gone.
 * A live server at the path, or a file that is not a socket, is a value, not an exception.
 */
export async function claimUnixSocket(path: string, opts: ClaimOptions): Promise<ClaimResult> {
  let replacedStale = false;
  for (let attempt = 0; ; attempt++) {
    const probe = await probeSocket(path);
    if (probe === 'live') return { ok: false, reason: 'alreadyRunning', message: `another Termio is already listening on ${path}` };
    if (typeof probe === 'object') {
      return { ok: false, reason: probe.error.includes('not a socket') ? 'notASocket' : 'listenFailed', message: probe.error };
    }
    if (probe === 'stale') {
      try {
        unlinkSync(path);
        replacedStale = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          return { ok: false, reason: 'listenFailed', message: `cannot remove the stale socket ${path}: ${(err as Error).message}` };
        }
      }
    }
    const server = createServer({ allowHalfOpen: false }, opts.onConnection);
    if (opts.maxConnections !== undefined) server.maxConnections = opts.maxConnections;
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once('error', resolve);
      server.listen(path, () => {
        server.off('error', resolve);
        resolve(null);
      });
    });
    if (error) {
      // Another process won the race between our probe and our bind: look once more.
      if (error.code === 'EADDRINUSE' && attempt === 0) continue;
      if (error.code === 'EADDRINUSE') return { ok: false, reason: 'alreadyRunning', message: `another Termio is already listening on ${path}` };
      return { ok: false, reason: 'listenFailed', message: `cannot listen on ${path}: ${error.message}` };
    }
    // The run folder is 0700 already; the socket itself is made 0600 too so neither depends on the other.
    chmodSync(path, 0o600);
    return { ok: true, server, replacedStale };
  }
}
