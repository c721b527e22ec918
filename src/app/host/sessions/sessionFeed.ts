// One session's frames for every client view attached to it: reads the render model at most once
// per frame interval, encodes each changed row once (shared by all views), and sends each view the
// rows newer than what it last received, only once it acknowledged its previous frame. So a slow
// or stalled view gets the latest state, never a backlog, and the pty never waits for a view.
// Also holds who has the session's input (and size): the newest view that typed or attached.
import { encodeFrameMessage, encodeRow, type FrameHeader, type WireState } from '../../../protocol/hostFrame';
import { Emitter, type Disposable } from '../../../protocol/events';
import type { RenderRow } from '../../../terminal/common';
import type { SessionRecord } from './sessionRegistry';
import { traceLatency } from '../../services/latencyTrace';

/**
 * Shortest time between two frames of one session: 8 ms is a 120 Hz display's frame. Parsing
 * runs at full speed regardless; this only bounds how often a flood makes the host rebuild rows.
 */
export const MIN_FRAME_INTERVAL_MS = 8;

/**
 * After a view types, its frames skip the frame interval for this long: a key's echo, or the
 * prompt after a Ctrl-C, goes out the moment it is parsed.
 */
export const INPUT_URGENCY_MS = 100;

/** What a feed needs from a client's view: where to send, and whether its socket can take more. */
export interface FeedView {
  readonly id: number;
  cols: number;
  rows: number;
  /** Feed bookkeeping: the feed tick of the last frame this view received (-1: none yet). */
  seenTick: number;
  /** Sequence number of the last frame sent. */
  seq: number;
  /** A frame was sent and not yet acknowledged. */
  inFlight: boolean;
  /** The socket is backed up (not draining): send nothing until it drains. */
  congested(): boolean;
  send(message: Uint8Array): void;
  /** Tells the view whether it holds the input now. */
  holding(on: boolean): void;
}

export class SessionFeed implements Disposable {
  private readonly views = new Set<FeedView>();
  private readonly subscriptions: Disposable[] = [];
  /** Increases on every refresh that changed something; rows and the header remember theirs. */
  private tick = 0;
  private rowTick: number[] = [];
  private rowBytes: Uint8Array[] = [];
  private lastLines: readonly RenderRow[] = [];
  private header: Omit<FrameHeader, 'view' | 'seq' | 'full'> | null = null;
  private headerKey = '';
  private headerTick = 0;
  /** Tick at which the size last changed: a view older than this gets a full frame. */
  private sizeTick = 0;
  private dirty = true;
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private lastFlush = 0;
  private holder: FeedView | null = null;
  /** Until then (Date.now()), frames go out without the frame interval (typed()). */
  private urgentUntil = 0;
  /** No frame is built until the emulator has parsed up to here: the output read before a key. */
  private holdUntilOffset = 0;
  private disposed = false;
  private readonly emptied = new Emitter<void>();
  /** The last view detached. */
  readonly onEmpty = this.emptied.event;

  constructor(
    readonly record: SessionRecord,
    /** Told each time a view types into the session (the host takes it off the attention queue). */
    private readonly onTyped: () => void = () => undefined,
    /** Told each time a frame sent to the views shows a synchronized update half drawn. */
    private readonly onTorn: () => void = () => undefined,
  ) {
    const s = record.session;
    this.subscriptions.push(
      s.onRender(() => this.rendered()),
      s.onTitle(() => this.markDirty()),
      s.onExit(() => this.markDirty()),
    );
  }

  get viewCount(): number {
    return this.views.size;
  }

  /** The status state or the title changed elsewhere (the registry). */
  markDirty(): void {
    this.dirty = true;
    this.schedule();
  }

  /**
   * The emulator parsed output (or the screen changed otherwise). While a view types, the frame is
   * built and sent right here: the loop turn schedule() waits for costs a keystroke's echo about
   * 0.15 ms on this 2-core machine. Not for a view that has not had its first frame yet (its attach
   * is still being answered).
   */
  private rendered(): void {
    traceLatency('parsed');
    this.dirty = true;
    if (!this.timer && !this.immediate && !this.disposed && Date.now() < this.urgentUntil && this.allSeen()) this.flush();
    else this.schedule();
  }

  private allSeen(): boolean {
    for (const v of this.views) if (v.seenTick < 0) return false;
    return true;
  }

  /** Attaches a view: it becomes the newest, so it takes the input and the session takes its size;
   *  its first frame is a full snapshot at that size. */
  attach(view: FeedView): void {
    view.seenTick = -1;
    view.inFlight = false;
    this.views.add(view);
    this.take(view);
    this.markDirty();
  }

  detach(view: FeedView): void {
    if (!this.views.delete(view)) return;
    if (this.holder === view) this.holder = null;
    if (this.views.size === 0) this.emptied.fire();
  }

  /** The view acknowledged frame `seq`: it may get the next one. Stale acks are ignored. */
  ack(view: FeedView, seq: number): void {
    if (!view.inFlight || seq !== view.seq) return;
    view.inFlight = false;
    this.schedule();
  }

  /**
   * A view typed. What the host had read from the pty before the key and not parsed yet is no
   * longer worth a frame of its own: frames wait until it is parsed (the pty itself discards what
   * it still holds on a Ctrl-C), then go out at once, with no frame interval, for a little while.
   * So the screen after a key is the emulator's state right after it, and a frame of stale
   * output is not in flight, waiting for its acknowledgement, when that state is ready.
   */
  typed(): void {
    this.onTyped();
    const s = this.record.session;
    this.holdUntilOffset = s.streamOffset;
    this.urgentUntil = Date.now() + INPUT_URGENCY_MS;
    // A frame held back for the interval goes now (or as soon as the backlog is parsed).
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.schedule();
  }

  /** A socket drained: views that were congested may get frames again. */
  kick(): void {
    this.schedule();
  }

  /** The view typed (or clicked): it takes the input and, if its size differs, the session's size. */
  take(view: FeedView): void {
    if (this.holder !== view) {
      const before = this.holder;
      this.holder = view;
      before?.holding(false);
      view.holding(true);
    }
    this.applySize(view);
  }

  isHolder(view: FeedView): boolean {
    return this.holder === view;
  }

  /** A view's window changed size: recorded, and applied when the view holds the input. */
  resize(view: FeedView, cols: number, rows: number): void {
    view.cols = cols;
    view.rows = rows;
    if (this.holder === view || this.holder === null) this.applySize(view);
  }

  private applySize(view: FeedView): void {
    const s = this.record.session;
    if (s.cols !== view.cols || s.rows !== view.rows) s.resize(view.cols, view.rows);
  }

  private schedule(): void {
    if (this.disposed || this.timer || this.immediate) return;
    const t = Date.now();
    const wait = t < this.urgentUntil ? 0 : this.lastFlush + MIN_FRAME_INTERVAL_MS - t;
    if (wait > 0) this.timer = setTimeout(() => this.flush(), wait);
    else this.immediate = setImmediate(() => this.flush());
  }

  private flush(): void {
    this.timer = null;
    this.immediate = null;
    if (this.disposed) return;
    let ready = false;
    for (const v of this.views) if (!v.inFlight && !v.congested()) ready = true;
    // Nobody can take a frame: leave the model untouched (the pty keeps flowing regardless).
    if (!ready) return;
    // Output read before a key is still being parsed: the slice that finishes it renders again.
    if (this.record.session.parsedOffset < this.holdUntilOffset) return;
    this.lastFlush = Date.now();
    if (this.dirty) this.refresh();
    for (const v of this.views) {
      if (v.inFlight || v.congested()) continue;
      const msg = this.frameFor(v);
      if (!msg) continue;
      v.inFlight = true;
      v.send(msg);
    }
  }

  /** Reads the render model: re-encodes rows whose object changed, and the header if it did. */
  private refresh(): void {
    this.dirty = false;
    const s = this.record.session;
    const { frame } = s.renderModel.update();
    const tick = this.tick + 1;
    let changed = false;
    if (frame.rows !== this.rowBytes.length || frame.cols !== this.header?.cols) {
      this.sizeTick = tick;
      this.rowTick = new Array<number>(frame.rows).fill(tick);
      this.rowBytes = frame.lines.map((row, y) => encodeRow(y, row));
      changed = true;
    } else {
      for (let y = 0; y < frame.rows; y++) {
        const row = frame.lines[y]!;
        if (row === this.lastLines[y]) continue;
        this.rowBytes[y] = encodeRow(y, row);
        this.rowTick[y] = tick;
        changed = true;
      }
    }
    this.lastLines = frame.lines;
    const modes = s.inputModes;
    const exit = s.exited;
    const header: Omit<FrameHeader, 'view' | 'seq' | 'full'> = {
      cols: frame.cols,
      rows: frame.rows,
      cursor: {
        x: frame.cursor.x,
        y: Math.max(0, Math.min(frame.rows - 1, frame.cursor.y)),
        shape: frame.cursor.shape,
        blinking: frame.cursor.blinking,
        visible: frame.cursor.visible,
      },
      modes: {
        applicationCursorKeys: modes.applicationCursorKeys,
        applicationKeypad: modes.applicationKeypad,
        bracketedPaste: modes.bracketedPaste,
        sendFocus: modes.sendFocus,
        altScreen: frame.altScreen,
        mouseTracking: modes.mouseTracking,
      },
      state: this.record.state as WireState,
      exit: exit ? (exit.signal ? { exitCode: exit.exitCode, signal: exit.signal } : { exitCode: exit.exitCode }) : null,
      scrollbackLength: frame.scrollbackLength,
      scrollOffset: frame.scrollOffset,
      // Already cut to the viewport's rows and columns, empty spans left out (Selection.viewportRows).
      selection: frame.selection,
      hasSelection: s.renderModel.hasSelection,
      title: this.record.title,
    };
    const key = JSON.stringify(header);
    if (key !== this.headerKey) {
      this.headerKey = key;
      this.header = header;
      this.headerTick = tick;
      changed = true;
    }
    if (changed) this.tick = tick;
    if (changed && s.renderModel.lastFrameTorn) this.onTorn();
  }

  /** The frame a view has not seen yet, or null when it is up to date. */
  private frameFor(v: FeedView): Uint8Array | null {
    const h = this.header;
    if (!h) return null;
    const full = v.seenTick < this.sizeTick;
    if (!full && v.seenTick >= this.tick) return null;
    const rows: Uint8Array[] = [];
    for (let y = 0; y < this.rowBytes.length; y++) {
      if (full || this.rowTick[y]! > v.seenTick) rows.push(this.rowBytes[y]!);
    }
    if (!full && rows.length === 0 && this.headerTick <= v.seenTick) {
      v.seenTick = this.tick;
      return null;
    }
    v.seenTick = this.tick;
    v.seq = (v.seq + 1) >>> 0;
    return encodeFrameMessage({ ...h, view: v.id, seq: v.seq, full }, rows);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    for (const d of this.subscriptions) d.dispose();
    this.views.clear();
    this.emptied.dispose();
  }
}
