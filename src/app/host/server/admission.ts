// Who gets a place on the host socket, and who loses it. Slots are kept per kind of
// client (what its hello says it is), so clients of one kind can never take the room of another:
// however many scripts, `termio attach` windows or silent connections there are, the app and the
// CLI still get in. A client that leaves output waiting and takes none of it is dropped after a
// while, so a non-reading client cannot hold its slot either.
import type { Socket } from 'node:net';

/** A connection that has not said hello yet, or the kind its hello named. */
export type ClientKind = 'pending' | 'app' | 'cli' | 'other';

/**
 * Connections of each kind at once. Pending ones only wait for a hello (5 s at most); the app
 * opens one or two; each `termio` command one while it runs; everything else (attach, scripts,
 * hubs of other machines) shares the rest. 128 in all bounds the host's file descriptors.
 */
export const CLIENT_LIMITS: Readonly<Record<ClientKind, number>> = { pending: 16, app: 8, cli: 48, other: 56 };

export const MAX_CLIENTS = Object.values(CLIENT_LIMITS).reduce((a, b) => a + b, 0);

/** The kernel-level ceiling sits above MAX_CLIENTS: a connection the host turns away is counted
 *  there until its socket has closed, and must not keep a newcomer from being seen at all. */
export const ACCEPT_CEILING = MAX_CLIENTS + 32;

/** A client with output waiting that takes none of it for this long is not reading: dropped.
 *  The host's output to a reading client is taken as it comes (frames wait for their
 *  acknowledgement, so only large answers ever wait in the socket): 5 s is far past any pause. */
export const STALL_MS = 5_000;

/** How often the server looks for such clients. */
export const STALL_CHECK_MS = 1_000;

/** The kind a hello's `client` names: the app (and its settings window), the CLI, or other. */
export function kindOf(client: string): Exclude<ClientKind, 'pending'> {
  if (client === 'termio-app' || client.startsWith('termio-app-')) return 'app';
  if (client === 'termio-cli' || client === 'termio-stdio') return 'cli';
  return 'other';
}

/** Whether a newcomer of a full kind takes the place of the quietest client of that kind (the app
 *  and the CLI, which must always get in), or is refused (every other kind). */
export function evictsWhenFull(kind: ClientKind): boolean {
  return kind !== 'other';
}

/** Watches one socket for a peer that has stopped reading. */
export class ReadWatch {
  private taken = -1;
  private since = 0;

  /** Whether output has waited on `socket` with none of it taken for STALL_MS by `now`. */
  stalled(socket: Socket, now: number): boolean {
    const waiting = socket.writableLength;
    // bytesWritten counts what is still buffered too: what the peer's side has taken is the rest.
    const taken = (socket.bytesWritten ?? 0) - waiting;
    if (waiting === 0 || taken !== this.taken) {
      this.taken = taken;
      this.since = now;
      return false;
    }
    return now - this.since >= STALL_MS;
  }
}
