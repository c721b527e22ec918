// Timing logs for benchmarks: how long a session switch takes until its first painted frame,
// and (with TERMIO_TRACE_FRAMES=1) every painted frame against the wall clock.
import type { Logger } from '../host/log';

/** TERMIO_TRACE_FRAMES=1 logs every painted frame at debug level (for benchmarks). */
const TRACE_FRAMES = process.env.TERMIO_TRACE_FRAMES === '1';

export interface PaintedFrame {
  start: number;
  paintMs: number;
  rows: number;
}

export class SwitchTrace {
  /** The switch in progress: which session, and when it started. */
  private switch: { id: string; at: number } | null = null;

  constructor(private readonly log: Logger) {}

  /** The user switched to this session. */
  started(id: string): void {
    this.switch = { id, at: performance.now() };
  }

  /** A session's view painted a frame. */
  painted(id: string, f: PaintedFrame): void {
    // Benchmarks time what a user sees against their own clock: the wall time each frame ends.
    if (TRACE_FRAMES) this.log.debug('frame painted', { id, at: +(performance.timeOrigin + f.start + f.paintMs).toFixed(2), ms: +f.paintMs.toFixed(2), rows: f.rows });
    if (this.switch?.id !== id) return;
    const end = performance.now();
    this.log.debug('switch painted', { id, ms: +(end - this.switch.at).toFixed(2), at: +(performance.timeOrigin + end).toFixed(2) });
    this.switch = null;
  }
}
