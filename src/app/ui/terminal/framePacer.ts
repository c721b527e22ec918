// Frame pacing for a terminal view: any number of repaint requests between two frames become one
// frame, at most one per display refresh, and a request after a quiet spell paints at once so
// typing latency stays minimal.
import type { Disposable } from '../../../protocol/events';

/** Paint at most this often: one frame at 60 Hz. */
export const FRAME_INTERVAL_MS = 1000 / 60;

/** After the user types, frames paint as they come, with no pacing, for this long: the echo of a
 *  key, or the prompt after a Ctrl-C, is not held for the rest of a display refresh. The host
 *  sends a view its next frame only once the view painted the last one, so this cannot queue up. */
export const TYPING_URGENCY_MS = 100;

export class FramePacer implements Disposable {
  /** Cancels the pending frame; null when none is pending. */
  private cancelPending: (() => void) | null = null;
  /** When the pending frame is due (performance.now()). */
  private pendingAt = 0;
  private lastFrameAt = 0;
  private urgentUntil = 0;
  /** Inside paint: a change reported meanwhile waits for the next frame. */
  private painting = false;
  private disposed = false;

  /** `paint` runs once per frame, with performance.now() at the frame's start. */
  constructor(private readonly paint: (start: number) => void) {}

  /** The user typed: frames in the next TYPING_URGENCY_MS paint at once (a frame waiting for the
   *  pace goes now). */
  expedite(): void {
    if (this.disposed) return;
    const t = performance.now();
    this.urgentUntil = t + TYPING_URGENCY_MS;
    if (this.cancelPending && this.pendingAt > t) {
      this.cancelPending();
      this.cancelPending = null;
      this.schedule();
    }
  }

  /** The user typed in the last TYPING_URGENCY_MS. */
  get urgent(): boolean {
    return performance.now() < this.urgentUntil;
  }

  /** The session's screen changed: while the user is typing, painted right here (not a loop turn
   *  later: in the app a turn goes through GLib's sources too); else as schedule(). */
  changed(): void {
    if (this.disposed || this.painting) return this.schedule();
    if (performance.now() >= this.urgentUntil) return this.schedule();
    this.cancelPending?.();
    this.cancelPending = null;
    this.run();
  }

  /** Asks for a frame: the next one if one is already pending, else as soon as the pace allows. */
  schedule(): void {
    if (this.disposed || this.cancelPending) return;
    const t = performance.now();
    const wait = t < this.urgentUntil ? 0 : this.lastFrameAt + FRAME_INTERVAL_MS - t;
    this.pendingAt = t + Math.max(0, wait);
    // Paint right away when the last frame is old enough: typing latency stays minimal.
    if (wait <= 0) {
      const immediate = setImmediate(() => this.run());
      this.cancelPending = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(() => this.run(), wait);
      this.cancelPending = () => clearTimeout(timeout);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.cancelPending?.();
    this.cancelPending = null;
  }

  private run(): void {
    this.cancelPending = null;
    if (this.disposed) return;
    const start = performance.now();
    this.lastFrameAt = start;
    this.painting = true;
    try {
      this.paint(start);
    } finally {
      this.painting = false;
    }
  }
}
