// The render model: what a view needs to paint one frame, as plain data. Each visible row is a
// list of same-style runs; plus cursor, selection and scroll position. Rows that did not change
// keep their object identity and are left out of `dirtyRows`, so a view repaints only the rest.
import type { IBuffer, Terminal } from '@xterm/headless';
import { DisposableStore, type Disposable } from '../../protocol/events';
import { RowBuilder, rowsEqual, type XtermLinks } from './rowBuilder';
import type { RenderRow } from '../common/renderTypes';
import { changedSelectionRows, Selection } from './selection';
import type { BufferPoint, RowSelection, SelectionMode, SelectionState } from '../common/renderTypes';
import type { CursorShape, TerminalModes } from '../common/terminalModes';

export type {
  Color,
  UnderlineStyle,
  Run,
  RenderRow,
  BufferPoint,
  SelectionMode,
  RowSelection,
  SelectionState,
  CursorState,
  Frame,
  SelectOp,
} from '../common/renderTypes';
import type { CursorState, Frame, SelectOp } from '../common/renderTypes';

export interface RenderModelOptions {
  cursorShape?: CursorShape;
  cursorBlink?: boolean;
}

/** xterm internals we read when present: the OSC 8 link table and per-parse dirty rows. */
interface XtermCore extends XtermLinks {
  _inputHandler?: {
    onRequestRefreshRows?(listener: (r: { start: number; end: number } | undefined) => void): Disposable;
    /** Screen rows the parse in progress has changed so far (reported when it ends). */
    _dirtyRowTracker?: { start: number; end: number };
  };
}

/** DEC private mode 2026: synchronized output. */
const SYNC_OUTPUT_MODE = 2026;
/** How long a DEC synchronized update (?2026h) may hold back rendering if the application never
 *  ends it (a crash mid-update); xterm.js's browser renderer uses the same 1 s. */
export const SYNC_OUTPUT_TIMEOUT_MS = 1000;
/** A synchronized update that ends mid-parse is kept as a frame at most this often: one frame at
 *  60 Hz, the view's own cap. */
const SNAPSHOT_INTERVAL_MS = 1000 / 60;

export class RenderModel implements Disposable {
  /** The cursor the user chose in settings, used until the application sets its own (DECSCUSR).
   *  The next frame carries it; the cursor's row is repainted. */
  setCursorDefaults(opts: RenderModelOptions): void {
    this.opts = { ...opts };
  }

  private lines: RenderRow[] = [];
  private selections: RowSelection[] = [];
  private cursor: CursorState | null = null;
  private pendingAll = true;
  private pendingStart = Number.MAX_SAFE_INTEGER;
  private pendingEnd = -1;
  private lastViewportY = -1;
  private lastBuffer: string = '';
  private readonly selection: Selection;
  private readonly store = new DisposableStore();
  private readonly rowBuilder: RowBuilder;
  private readonly core: XtermCore;
  private frameCache: Frame | null = null;
  /** Viewport rows changed since the last update() returned. */
  private readonly unreported = new Set<number>();
  /** A frame was built when a synchronized update ended, and the emulator is already inside the
   *  next one: update() returns that frame instead of the half-drawn screen. */
  private snapshotPending = false;
  private lastBuildAt = Number.NEGATIVE_INFINITY;
  /** When a view last asked for a frame (update()); a new model counts as read, as its first
   *  view is on its way. */
  private lastReadAt = performance.now();
  private syncStartedAt = 0;
  /** The last frame update() returned was built from a screen inside a synchronized update (no
   *  whole frame was kept, or the update outlived its timeout): a view painting it shows a torn
   *  screen. */
  private torn = false;

  constructor(
    private readonly term: Terminal,
    private readonly modes: TerminalModes,
    private opts: RenderModelOptions = {},
  ) {
    this.core = (term as unknown as { _core?: XtermCore })._core ?? {};
    const refresh = this.core._inputHandler?.onRequestRefreshRows;
    if (refresh) {
      this.store.add(
        refresh.call(this.core._inputHandler, (r) => {
          if (!r) this.pendingAll = true;
          else this.markRows(r.start, r.end);
        }),
      );
    } else {
      this.store.add(term.onWriteParsed(() => (this.pendingAll = true)));
    }
    this.store.add(term.onScroll(() => (this.pendingAll = true)));
    this.store.add(term.onResize(() => (this.pendingAll = true)));
    this.store.add(term.buffer.onBufferChange(() => (this.pendingAll = true)));
    this.rowBuilder = new RowBuilder(term, this.core);
    this.selection = new Selection(term);
    this.store.add(
      term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
        if (!term.modes.synchronizedOutputMode && params.includes(SYNC_OUTPUT_MODE)) this.syncStartedAt = performance.now();
        return false;
      }),
    );
    this.store.add(term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => this.syncEnding(params)));
  }

  /**
   * A synchronized update is ending (CSI ? 2026 l, before xterm resets the mode): the screen is
   * whole right now. A flood of such updates (a TUI redrawing fast, or `cat` of its output) parses
   * many per slice and a slice almost always ends inside the next one, so the screen at the end
   * of a slice is never whole. Keeping the frame here, at most once per frame interval, lets the
   * view paint whole screens while the flood lasts.
   */
  private syncEnding(params: readonly (number | number[])[]): boolean {
    if (!this.term.modes.synchronizedOutputMode || !params.includes(SYNC_OUTPUT_MODE)) return false;
    const now = performance.now();
    if (now - this.lastBuildAt < SNAPSHOT_INTERVAL_MS) return false;
    // A session no view reads (a hidden tab) costs its parsing only. A view that comes back gets
    // the last whole frame until the update in progress ends, and whole frames again after it.
    if (now - this.lastReadAt > SYNC_OUTPUT_TIMEOUT_MS) return false;
    // The rows this parse changed so far are reported only when it ends; without xterm's tracker
    // every row is rebuilt (a few tenths of a ms at 200×50).
    const tracker = this.core._inputHandler?._dirtyRowTracker;
    const buf = this.term.buffer.active;
    if (tracker) this.markRows(tracker.start + buf.baseY - buf.viewportY, tracker.end + buf.baseY - buf.viewportY);
    else this.pendingAll = true;
    this.build();
    this.snapshotPending = true;
    return false;
  }

  /** Whether the last frame update() returned shows a synchronized update half drawn. */
  get lastFrameTorn(): boolean {
    return this.torn;
  }

  /** A whole frame from the end of a synchronized update is waiting for the view. */
  get hasSnapshot(): boolean {
    return this.snapshotPending;
  }

  private markRows(start: number, end: number): void {
    if (start < this.pendingStart) this.pendingStart = start;
    if (end > this.pendingEnd) this.pendingEnd = end;
  }

  /** Forces the next update() to rebuild every row (theme or font changes in the view). */
  invalidate(): void {
    this.pendingAll = true;
  }

  /** The last frame built by update() (what a view paints on an expose event). */
  get frame(): Frame {
    return this.frameCache ?? this.update().frame;
  }

  /** Rebuilds the rows the emulator changed since the last call and reports which viewport rows
   *  differ from the previous frame. One consumer (the view) should call it once per frame. */
  update(): { frame: Frame; dirtyRows: number[] } {
    // Inside a synchronized update the view gets the last whole frame (until the update times
    // out); otherwise the live screen.
    this.lastReadAt = performance.now();
    const holding = this.frameCache && this.term.modes.synchronizedOutputMode && this.lastReadAt - this.syncStartedAt < SYNC_OUTPUT_TIMEOUT_MS;
    if (!holding) this.build();
    this.torn = !holding && this.term.modes.synchronizedOutputMode;
    this.snapshotPending = false;
    const dirtyRows = [...this.unreported].sort((a, b) => a - b);
    this.unreported.clear();
    return { frame: this.frameCache!, dirtyRows };
  }

  private build(): void {
    this.lastBuildAt = performance.now();
    const { rows, cols } = this.term;
    const buf = this.term.buffer.active;
    const viewportY = buf.viewportY;
    this.buildRows(buf, rows, cols);
    const cursor = this.buildCursor(buf, rows, cols);
    const selections = this.selection.viewportRows(viewportY, rows, cols);
    for (const row of changedSelectionRows(this.selections, selections, rows)) this.unreported.add(row);
    this.selections = selections;
    this.frameCache = {
      cols,
      rows,
      lines: this.lines.slice(),
      cursor,
      selection: selections,
      scrollOffset: buf.baseY - viewportY,
      scrollbackLength: buf.baseY,
      altScreen: buf.type === 'alternate',
    };
  }

  /** Rebuilds the pending rows (all of them after a scroll, resize or screen switch), keeping
   *  each row that did not change as the same object. */
  private buildRows(buf: IBuffer, rows: number, cols: number): void {
    const viewportY = buf.viewportY;
    const dirty = this.unreported;
    let from = 0;
    let to = rows - 1;
    const all = this.pendingAll || viewportY !== this.lastViewportY || buf.type !== this.lastBuffer || this.lines.length !== rows || viewportY !== buf.baseY;
    if (!all) {
      from = Math.max(0, this.pendingStart);
      to = Math.min(rows - 1, this.pendingEnd);
    }
    if (this.lines.length !== rows) this.lines.length = rows;
    for (let y = from; y <= to; y++) {
      const line = buf.getLine(viewportY + y);
      const row = line ? this.rowBuilder.build(line, cols) : { runs: [], text: '', wrapped: false };
      const prev = this.lines[y];
      if (!prev || !rowsEqual(prev, row)) {
        this.lines[y] = row;
        dirty.add(y);
      }
    }
    for (let y = 0; y < rows; y++) {
      if (!this.lines[y]) {
        this.lines[y] = { runs: [], text: '', wrapped: false };
        dirty.add(y);
      }
    }
    this.pendingAll = false;
    this.pendingStart = Number.MAX_SAFE_INTEGER;
    this.pendingEnd = -1;
    this.lastViewportY = viewportY;
    this.lastBuffer = buf.type;
  }

  /** The cursor in viewport coordinates; the rows it left and entered are marked dirty. */
  private buildCursor(buf: IBuffer, rows: number, cols: number): CursorState {
    const cursorRow = buf.baseY + buf.cursorY - buf.viewportY;
    const cursor: CursorState = {
      x: Math.min(buf.cursorX, cols - 1),
      y: cursorRow,
      shape: this.modes.cursorShape ?? this.opts.cursorShape ?? 'block',
      blinking: this.modes.cursorBlink ?? this.opts.cursorBlink ?? false,
      visible: this.modes.cursorVisible && cursorRow >= 0 && cursorRow < rows,
    };
    const prev = this.cursor;
    if (!prev || !cursorsEqual(prev, cursor)) {
      if (prev && prev.y >= 0 && prev.y < rows) this.unreported.add(prev.y);
      if (cursor.y >= 0 && cursor.y < rows) this.unreported.add(cursor.y);
    }
    this.cursor = cursor;
    return cursor;
  }

  /** One buffer line (0 = the oldest scrollback line) as runs, for clients paging through
   *  scrollback; null past the end of the buffer. */
  bufferRow(y: number): RenderRow | null {
    const line = this.term.buffer.active.getLine(y);
    return line ? this.rowBuilder.build(line, this.term.cols) : null;
  }

  /** The buffer point under a viewport cell (views turn pointer positions into selection ends). */
  viewportToBuffer(col: number, row: number): BufferPoint {
    return { x: col, y: this.term.buffer.active.viewportY + row };
  }

  // ---- selection: kept by a Selection; the next frame carries its viewport rows ----------

  /** Starts or extends a selection between two buffer points (anchor stays where it began). */
  setSelection(anchor: BufferPoint, head: BufferPoint, mode: SelectionMode = 'char'): void {
    this.selection.set(anchor, head, mode);
  }

  /** Moves the selection's head (a drag), keeping its anchor and mode. No-op without one. */
  extendSelection(head: BufferPoint): void {
    this.selection.extend(head);
  }

  /** The session's selection, kept aside while a client's range borrows the model (selectionText). */
  selectionState(): SelectionState {
    return this.selection.state;
  }

  restoreSelection(state: SelectionState): void {
    this.selection.restore(state);
  }

  clearSelection(): void {
    this.selection.clear();
  }

  /** What a pointer does to the selection, in one place for every view: start one at a point (by
   *  char, word or line), drag its head, extend it from its start (Shift-click), or clear it. */
  select(op: SelectOp): void {
    if (op.action === 'clear') this.selection.clear();
    else if (op.action === 'start') this.selection.set(op.at, op.at, op.mode);
    else if (op.action === 'extend') this.selection.extend(op.at);
    else this.selection.set(this.selection.range()?.start ?? op.at, op.at, 'char');
  }

  get hasSelection(): boolean {
    return !this.selection.isEmpty;
  }

  /** The selection normalised to [start, end) in buffer coordinates, expanded by its mode. */
  selectionRange(): { start: BufferPoint; end: BufferPoint } | null {
    return this.selection.range();
  }

  /** The word around a buffer point: a run of word characters, or a run of one other char. */
  wordBounds(p: BufferPoint): { start: BufferPoint; end: BufferPoint } {
    return this.selection.wordBounds(p);
  }

  /** The selected text, soft-wrapped rows joined, hard line ends as '\n', trailing blanks cut. */
  selectionText(): string {
    return this.selection.text();
  }

  dispose(): void {
    this.store.dispose();
    this.lines = [];
    this.frameCache = null;
  }
}

function cursorsEqual(a: CursorState, b: CursorState): boolean {
  return a.x === b.x && a.y === b.y && a.shape === b.shape && a.blinking === b.blinking && a.visible === b.visible;
}
