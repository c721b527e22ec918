// Flow control between the pty and the emulator: count what was read but not yet parsed, pause
// the pty above a high watermark and resume below a low one, acknowledging from the emulator's
// write callback. A flooding program then blocks in write(2) instead of starving the event loop,
// and Ctrl-C reaches it with at most HIGH unparsed bytes still to show.

export const FlowControlConstants = {
  /** Pause reading above this many unparsed bytes. VS Code's value; the xterm.js flow-control
   *  guide warns that above ~500K Ctrl-C stops feeling instant. At ~30 MB/s of parsing this is
   *  about 3 ms of backlog. */
  HighWatermarkChars: 100_000,
  /** Resume below this. Low enough that the pty is not toggled on every chunk, high enough that
   *  the kernel buffer refills before the emulator runs dry. VS Code's value. */
  LowWatermarkChars: 5_000,
} as const;

export class FlowController {
  private unparsed = 0;
  private paused = false;
  /** How many times reading was paused (a figure for benches). */
  pauseCount = 0;

  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
    private readonly high: number = FlowControlConstants.HighWatermarkChars,
    private readonly low: number = FlowControlConstants.LowWatermarkChars,
  ) {
    if (!(low < high)) throw new Error(`flow control low watermark ${low} must be below the high watermark ${high}`);
  }

  /** Bytes read from the pty and handed to the emulator. */
  received(n: number): void {
    this.unparsed += n;
    if (!this.paused && this.unparsed > this.high) {
      this.paused = true;
      this.pauseCount++;
      this.pause();
    }
  }

  /** Bytes the emulator finished parsing. */
  parsed(n: number): void {
    this.unparsed = Math.max(0, this.unparsed - n);
    if (this.paused && this.unparsed < this.low) {
      this.paused = false;
      this.resume();
    }
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get unparsedChars(): number {
    return this.unparsed;
  }
}
