// Input on its way to a session's program: node-pty queues what the pty does not take at once,
// without a bound, so a program that does not read (or a flood of sends) would grow the host
// for ever. This keeps that queue under a cap, refusing a write past it, and drops it on close.
import type * as pty from 'node-pty';

/** Unread input one session may hold: far more than any paste or prompt a person sends (a
 *  4 MiB paste is about 60,000 lines), small enough that a flood costs the host little. */
export const MAX_PENDING_INPUT_BYTES = 4 * 1024 * 1024;
/** Below this our own running count is trusted; above it the pty writer's queue is measured. */
const RECOUNT_ABOVE_BYTES = 256 * 1024;

/** node-pty 1.x's writer on Unix: the chunks the pty has not taken yet (test/unit/terminal checks it). */
interface PtyWriteQueue {
  _writeQueue?: Array<{ buffer: Buffer; offset: number }>;
}

export class PtyInput {
  /** Bytes written since the queue was last measured, plus what it held then: never less than the truth. */
  private upper = 0;

  constructor(private readonly pty: pty.IPty) {}

  /** Bytes written to the program that it has not read yet (0 where the writer cannot be seen). */
  pending(): number {
    const queue = this.queue();
    let n = 0;
    for (const task of queue ?? []) n += task.buffer.length - task.offset;
    return n;
  }

  /** Writes unless the program already has MAX_PENDING_INPUT_BYTES unread; false: refused, nothing written. */
  write(data: string | Buffer): boolean {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    if (this.upper + bytes > RECOUNT_ABOVE_BYTES) this.upper = this.pending();
    if (this.upper + bytes > MAX_PENDING_INPUT_BYTES) return false;
    this.upper += bytes;
    this.pty.write(data as string);
    return true;
  }

  /** The program is gone: what it never read is let go. */
  drop(): void {
    const queue = this.queue();
    if (queue) queue.length = 0;
    this.upper = 0;
  }

  private queue(): Array<{ buffer: Buffer; offset: number }> | undefined {
    return (this.pty as unknown as { _writeStream?: PtyWriteQueue })._writeStream?._writeQueue;
  }
}
