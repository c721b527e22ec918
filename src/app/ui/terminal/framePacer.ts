// Frame pacing for a terminal view: any number of repaint requests between two frames become one
// frame, at most one per display refresh, and a request after a quiet spell paints at once so
// typing latency stays minimal.
import { performance } from 'node:perf_hooks';
import type { Disposable } from '../../../protocol/events';

/** Paint at most this often: one frame at 60 Hz. */
export const FRAME_INTERVAL_MS = 1000 / 60;

export class FramePacer implements Disposable {
  private timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private lastFrameAt = 0;
  private disposed = false;

  /** `paint` runs once per frame, with performance.now() at the frame's start. */
  constructor(private readonly paint: (start: number) => void) {}

  /** Asks for a frame: the next one if one is already pending, else as soon as the pace allows. */
  schedule(): void {
    if (this.disposed || this.timer) return;
    const wait = this.lastFrameAt + FRAME_INTERVAL_MS - performance.now();
    // Paint right away when the last frame is old enough: typing latency stays minimal.
    this.timer = wait <= 0 ? setImmediate(() => this.run()) : setTimeout(() => this.run(), wait);
  }

  dispose(): void {
    this.disposed = true;
    if (!this.timer) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = null;
  }

  private run(): void {
    this.timer = null;
    if (this.disposed) return;
    const start = performance.now();
    this.lastFrameAt = start;
    this.paint(start);
  }
}
