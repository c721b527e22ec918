// Recovers the output a process writes just before it exits, which node-pty loses on Linux:
// libuv treats POLLHUP after a short read as end-of-stream, but a pty master returns at most
// ~4 KB per read, so whatever the kernel still buffers is dropped (node-pty issue #726). When
// the stream ends, or node-pty gives up waiting and destroys it, we first read the master fd
// ourselves until the kernel reports EIO (slave closed and nothing left) or EAGAIN.
import { readSync } from 'node:fs';
import type { IPty } from 'node-pty';

/** Upper bound for one drain: the kernel holds well under 1 MB for a pty; the cap only stops
 *  a grandchild that keeps the slave open and writing from blocking the event loop forever. */
const MAX_DRAIN_BYTES = 8 * 1024 * 1024;
/** Read size: larger than any pty buffer chunk, so each call returns what one read can. */
const READ_CHUNK = 64 * 1024;

interface UnixPtyInternals {
  _fd?: number;
  _socket?: { on(ev: 'end', fn: () => void): void; destroy: (...args: unknown[]) => unknown };
}

/** Installs the drain; `onData` gets every recovered chunk before node-pty closes the fd. */
export function installExitDrain(proc: IPty, onData: (chunk: Buffer) => void): void {
  const internals = proc as unknown as UnixPtyInternals;
  const fd = internals._fd;
  const socket = internals._socket;
  if (typeof fd !== 'number' || !socket || typeof socket.destroy !== 'function') return;
  let drained = false;
  const drain = (): void => {
    if (drained) return;
    drained = true;
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let total = 0;
    while (total < MAX_DRAIN_BYTES) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, READ_CHUNK, null);
      } catch {
        break; // EIO: slave closed and drained; EAGAIN: nothing more right now; EBADF: closed.
      }
      if (n <= 0) break;
      total += n;
      onData(Buffer.from(buf.subarray(0, n)));
    }
  };
  socket.on('end', drain);
  const destroy = socket.destroy;
  socket.destroy = function (this: unknown, ...args: unknown[]) {
    drain();
    return destroy.apply(this, args);
  };
}
