// Memory back to the system once the app has been quiet a while. On Linux the Qt loop shim keeps
// 16 MB of freed heap rather than returning it at once (a flood would otherwise fault every page
// back in, see native/qodeshim), V8 keeps a young generation grown by start-up or a flood (up to
// 32 MB, mostly empty), and a busy minute leaves more free memory in both. None of it is needed by
// an app nobody is watching output in: after IDLE_TRIM_MS with no activity (new output painted; a
// blinking cursor is not activity) the runtime trims it, once per quiet spell. No timer runs while
// the app stays idle.

/** Quiet time before the heap is trimmed: well past a pause in an agent's output. */
export const IDLE_TRIM_MS = 5000;

export class IdleTrim {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly trim: () => boolean,
    private readonly idleMs = IDLE_TRIM_MS,
  ) {}

  /** Something allocated (a frame came and was painted): the trim waits for quiet after it. */
  poke(): void {
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.trim();
    }, this.idleMs);
    // The trim never keeps the process alive.
    this.timer.unref();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
