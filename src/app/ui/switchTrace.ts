// Timing logs for benchmarks: how long a session switch takes until its first painted frame, how
// long a view takes from its attach to the host until its first painted frame, and (with
// TERMIO_TRACE_FRAMES=1) every painted frame against the wall clock.
import type { Logger } from '../services/log';

/** TERMIO_TRACE_FRAMES=1 logs every painted frame at debug level (for benchmarks). */
const TRACE_FRAMES = process.env.TERMIO_TRACE_FRAMES === '1';

/** With TERMIO_TRACE_FRAMES=1, a sidebar's paint listener that logs when it painted which rows' states; else none. */
export function sidebarPaintTrace(log: Logger): ((at: number, states: Record<string, string>) => void) | undefined {
  return TRACE_FRAMES ? (at, states) => log.debug('sidebar painted', { at: +at.toFixed(2), states }) : undefined;
}

export interface PaintedFrame {
  start: number;
  paintMs: number;
  rows: number;
  /** Rows of the session's output this paint showed (0: the app's own repaint, e.g. a blink). */
  changed: number;
}

/** When a view asked the host for its frames and when the first one arrived (performance.now()). */
export interface AttachTimes {
  readonly attachAskedAt: number | null;
  readonly firstFrameAt: number | null;
}

export class SwitchTrace {
  /** The switch in progress: which session, and when it started. */
  private switch: { id: string; at: number } | null = null;

  /** Views attached to the host whose first frame is not painted yet. */
  private readonly attaching = new Map<string, AttachTimes>();

  constructor(private readonly log: Logger) {}

  /** A session's view asked the host for its frames (its first is a snapshot of the screen). */
  attached(id: string, times: AttachTimes): void {
    this.attaching.set(id, times);
  }

  /** The user switched to the session. */
  started(id: string): void {
    this.switch = { id, at: performance.now() };
  }

  /** A session's view painted a frame. */
  painted(id: string, f: PaintedFrame): void {
    // Benchmarks time what a user sees against their own clock: the wall time each frame ends.
    if (TRACE_FRAMES)
      this.log.debug('frame painted', {
        id,
        at: +(performance.timeOrigin + f.start + f.paintMs).toFixed(2),
        ms: +f.paintMs.toFixed(2),
        rows: f.rows,
        changed: f.changed,
      });
    const a = this.attaching.get(id);
    // The view may paint its empty grid before the host's first frame arrives: that one is not it.
    if (a?.attachAskedAt != null && a.firstFrameAt !== null && f.start >= a.firstFrameAt) {
      this.attaching.delete(id);
      const end = f.start + f.paintMs;
      const ms = (t: number) => +t.toFixed(2);
      this.log.debug('first frame painted', {
        id,
        ms: ms(end - a.attachAskedAt),
        receivedMs: ms(a.firstFrameAt - a.attachAskedAt),
        paintMs: ms(f.paintMs),
        at: ms(performance.timeOrigin + end),
      });
    }
    if (this.switch?.id !== id) return;
    const end = performance.now();
    this.log.debug('switch painted', { id, ms: +(end - this.switch.at).toFixed(2), at: +(performance.timeOrigin + end).toFixed(2) });
    this.switch = null;
  }
}
