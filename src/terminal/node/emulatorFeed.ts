// Hands a session's bytes to its emulator in short slices, with a turn of the event loop between
// two slices. @xterm/headless's own write queue parses for up to 12 ms before it lets the loop
// run, and restarts an idle queue on a timer (1 ms at least in Node). In a host that also answers
// keys and frame acknowledgements on the same thread, those 12 ms are what a Ctrl-C typed into a
// flood waited before it even reached the pty, and what the next frame waited for its
// acknowledgement. Here a slice ends after SLICE_MS and the next one is a setImmediate away, so
// input, acknowledgements and frames are served between slices. A small write into an idle feed (a
// keystroke's echo, a prompt) is parsed at once, inside the write; a larger one in the loop turn it
// arrived in.
//
// The slices use the synchronous write of the emulator's own queue (xterm's WriteBuffer.writeSync,
// internal API; Terminal.writeSync wraps it with a deprecation warning). Every parser hook this
// codebase registers is synchronous, which is what a synchronous write requires. When a future
// xterm drops it, the feed falls back to the public asynchronous write, with the old timing (a
// unit test names the installed xterm that lacks it).
import type { Terminal } from '@xterm/headless';
import { performance } from 'node:perf_hooks';

/** Longest stretch of parsing before the loop gets a turn: a key or an acknowledgement that
 *  arrives during a flood waits at most about this long. */
export const SLICE_MS = 3;

/** A chunk is parsed in pieces of at most this many bytes, so one large read from the pty does
 *  not make a slice overrun SLICE_MS by the time it takes to parse it. The parser keeps its state
 *  (a sequence or a UTF-8 character cut in two) from one piece to the next, as it does between
 *  two reads of the pty. */
export const PIECE_BYTES = 8192;

/** A write of at most this much into an idle feed is parsed at once, not a loop turn later. */
export const INLINE_BYTES = 1024;

interface SyncCore {
  _writeBuffer?: { writeSync?: (data: string | Uint8Array) => void };
}

interface Pending {
  data: string | Uint8Array;
  done: (() => void) | undefined;
  /** How much of `data` the parser has had (pieces of a large chunk). */
  at: number;
}

export class EmulatorFeed {
  private queue: Pending[] = [];
  private head = 0;
  private pumping: NodeJS.Immediate | null = null;
  /** Inside a slice: a write from a parser hook or a done callback joins the queue, and the slice
   *  (or the next) parses it. */
  private inPump = false;
  private disposed = false;
  /** Holds in force (hold()): while any is, nothing is parsed. */
  private holds = 0;
  private readonly writeSync: ((data: string | Uint8Array) => void) | null;
  /** Slices parsed so far (a figure for benches and tests). */
  slices = 0;

  /** `afterSlice` runs once after each slice that parsed something (where xterm fires onWriteParsed). */
  constructor(
    private readonly term: Terminal,
    private readonly afterSlice: () => void,
  ) {
    const queue = (term as unknown as { _core?: SyncCore })._core?._writeBuffer;
    this.writeSync = typeof queue?.writeSync === 'function' ? queue.writeSync.bind(queue) : null;
    // Without writeSync the emulator's own queue slices the parse and says when it did.
    if (!this.writeSync) term.onWriteParsed(() => this.afterSlice());
  }

  /** True when slices are this feed's own (writeSync found); false on the fallback. */
  get sliced(): boolean {
    return this.writeSync !== null;
  }

  /** Bytes not parsed yet, in this feed's queue. */
  get queued(): number {
    let n = 0;
    for (let i = this.head; i < this.queue.length; i++) n += this.queue[i]!.data.length - this.queue[i]!.at;
    return n;
  }

  /** Queues `data`; `done` runs right after it is parsed, before anything written later is. */
  write(data: string | Uint8Array, done?: () => void): void {
    if (this.disposed) return;
    if (!this.writeSync) {
      this.term.write(data, done);
      return;
    }
    const idle = this.head === this.queue.length && !this.pumping && !this.inPump;
    this.queue.push({ data, done, at: 0 });
    // A little output into an idle feed (a keystroke's echo, a prompt) is parsed right here: the
    // loop turn a slice would wait for costs the echo about 0.1 ms on this 2-core machine, and so
    // little parses in far less than a slice.
    if (idle && data.length <= INLINE_BYTES) this.pump();
    else if (!this.pumping && !this.inPump) this.pumping = setImmediate(() => this.pump());
  }

  /** Runs `done` once everything written before this call is parsed. */
  whenParsed(done: () => void): void {
    this.write('', done);
  }

  /**
   * Stops parsing until the returned release is called: what is written meanwhile waits in the
   * queue, in order. Called from a whenParsed callback, the emulator stays exactly as it is at
   * that point, so its state can be read across several turns of the loop (a checkpoint of a long
   * scrollback, in steps). Null on the fallback, whose parsing is the emulator's own.
   */
  hold(): (() => void) | null {
    if (!this.writeSync) return null;
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (!this.disposed && !this.pumping && !this.inPump && this.head < this.queue.length) this.schedulePump();
    };
  }

  private pump(): void {
    this.pumping = null;
    if (this.disposed || this.holds > 0) return;
    this.inPump = true;
    try {
      this.parseSlice();
    } finally {
      this.inPump = false;
    }
    // A done callback or the afterSlice hook wrote more after the slice's loop ended.
    if (!this.disposed && !this.pumping && this.head < this.queue.length) this.schedulePump();
  }

  private parseSlice(): void {
    const writeSync = this.writeSync!;
    const start = performance.now();
    let parsed = false;
    while (this.head < this.queue.length) {
      const item = this.queue[this.head]!;
      const { data, at } = item;
      const end = Math.min(data.length, at + PIECE_BYTES);
      if (end > at) {
        writeSync(at === 0 && end === data.length ? data : typeof data === 'string' ? data.slice(at, end) : data.subarray(at, end));
        item.at = end;
        parsed = true;
      }
      if (end === data.length) {
        // Cleared first: a callback that throws must not leave the chunk to be parsed twice.
        this.queue[this.head++] = EMPTY;
        item.done?.();
        if (this.disposed) return;
        // The callback holds the emulator as it is now.
        if (this.holds > 0) break;
      }
      if (performance.now() - start >= SLICE_MS) break;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 64) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.head < this.queue.length) this.schedulePump();
    if (parsed) {
      this.slices++;
      this.afterSlice();
    }
  }

  /**
   * The next slice, after everything that became ready during this one: an immediate scheduled
   * now runs in the next loop turn, but behind the immediates that turn's I/O schedules (a
   * client's message turn, a frame). Going through one more turn puts the slice behind them.
   * None while the feed is held: the last release schedules it.
   */
  private schedulePump(): void {
    if (this.holds > 0) return;
    this.pumping = setImmediate(() => {
      this.pumping = setImmediate(() => this.pump());
    });
  }

  dispose(): void {
    this.disposed = true;
    if (this.pumping) clearImmediate(this.pumping);
    this.pumping = null;
    this.queue = [];
    this.head = 0;
  }
}

const EMPTY: Pending = { data: '', done: undefined, at: 0 };
