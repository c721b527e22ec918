// Frame pacing for a terminal view: any number of repaint requests between two frames become one
// frame, at most one per display refresh, and a request after a quiet spell paints at once so
// typing latency stays minimal.
import { performance } from 'node:perf_hooks';
import type { Disposable } from '../../../protocol/events';

/** Paint at most this often: one frame at 60 Hz. */
export const FRAME_INTERVAL_MS = 1000 / 60;

export class FramePacer implements Disposable {
  /** Cancels the pending frame; null when none is pending. */
  private cancelPending: (() => void) | null = null;
  private lastFrameAt = 0;
  private disposed = false;

  /** `paint` runs once per frame, with performance.now() at the frame's start. */
  constructor(private readonly paint: (start: number) => void) {}

  /** Asks for a frame: the next one if one is already pending, else as soon as the pace allows. */
  schedule(): void {
    if (this.disposed || this.cancelPending) return;
    const wait = this.lastFrameAt + FRAME_INTERVAL_MS - performance.now();
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
    this.paint(start);
  }
}
