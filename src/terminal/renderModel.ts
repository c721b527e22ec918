// The render model: what a view needs to paint one frame, as plain data. Each visible row is a
// list of same-style runs; plus cursor, selection and scroll position. Rows that did not change
// keep their object identity and are left out of `dirtyRows`, so a view repaints only the rest.
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { DisposableStore, type Disposable } from '../protocol/events';
import type { CursorShape, TerminalModes } from './terminalModes';

export type Color = { kind: 'default' } | { kind: 'palette'; index: number } | { kind: 'rgb'; value: number };
export type UnderlineStyle = 'none' | 'single' | 'double' | 'curly' | 'dotted' | 'dashed';

export interface Run {
  /** First column of the run. */
  col: number;
  /** Columns the run covers (characters × cellWidth). */
  cells: number;
  text: string;
  /** Every character of the run covers this many cells (2 = CJK/emoji wide characters). */
  cellWidth: 1 | 2;
  /** One string per character when the text is not one UTF-16 unit per character (surrogate
   *  pairs, combining marks); absent otherwise. */
  chars?: string[];
  fg: Color;
  bg: Color;
  bold: boolean;
  italic: boolean;
  dim: boolean;
  underline: UnderlineStyle;
  strikethrough: boolean;
  overline: boolean;
  inverse: boolean;
  invisible: boolean;
  blink: boolean;
  /** OSC 8 hyperlink target. */
  link?: string;
}

export interface RenderRow {
  /** Runs in column order; blank default-style cells at the end of the row are left out. */
  runs: Run[];
  /** The row's text, right-trimmed. */
  text: string;
  /** This row continues the previous one (soft wrap). */
  wrapped: boolean;
}

export interface CursorState {
  /** Column and viewport row. */
  x: number;
  y: number;
  shape: CursorShape;
  blinking: boolean;
  /** False when hidden by the application (DECTCEM) or scrolled out of the viewport. */
  visible: boolean;
}

export interface BufferPoint {
  /** Column. */
  x: number;
  /** Absolute buffer line (0 = oldest scrollback line). */
  y: number;
}

export type SelectionMode = 'char' | 'word' | 'line';

/** Selected columns [start, end) of one viewport row. */
export interface RowSelection {
  row: number;
  start: number;
  end: number;
}

export interface Frame {
  cols: number;
  rows: number;
  lines: readonly RenderRow[];
  cursor: CursorState;
  selection: readonly RowSelection[];
  /** Lines scrolled back from the bottom (0 = following the output). */
  scrollOffset: number;
  /** Lines of scrollback above the screen. */
  scrollbackLength: number;
  altScreen: boolean;
}

export interface RenderModelOptions {
  cursorShape?: CursorShape;
  cursorBlink?: boolean;
}

const DEFAULT_COLOR: Color = Object.freeze({ kind: 'default' }) as Color;
const UNDERLINE_STYLES: UnderlineStyle[] = ['none', 'single', 'double', 'curly', 'dotted', 'dashed'];
/** Characters xterm allows in a "word" for double-click selection, besides letters and digits. */
const WORD_CHARS = /[\p{L}\p{N}_\-./~:@%+#?&=]/u;

/** xterm's internal cell (CellData): raw attribute words make style comparison cheap. */
interface RawCell {
  fg: number;
  bg: number;
  extended?: { underlineStyle?: number; urlId?: number };
  hasExtendedAttrs?(): number;
}

/** xterm internals we read when present: the OSC 8 link table and per-parse dirty rows. */
interface XtermCore {
  _oscLinkService?: { getLinkData(id: number): { uri: string } | undefined };
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
  private selection: { anchor: BufferPoint; head: BufferPoint; mode: SelectionMode } | null = null;
  private readonly store = new DisposableStore();
  private readonly cell: IBufferCell;
  /** A second cell so reading a run's style does not clobber the cell being scanned. */
  private readonly styleCell: IBufferCell;
  private readonly core: XtermCore;
  private frameCache: Frame | null = null;
  /** Viewport rows changed since the last update() returned. */
  private readonly unreported = new Set<number>();
  /** A frame was built when a synchronized update ended, and the emulator is already inside the
   *  next one: update() returns that frame instead of the half-drawn screen. */
  private snapshotPending = false;
  private lastBuildAt = Number.NEGATIVE_INFINITY;
  private syncStartedAt = 0;

  constructor(private readonly term: Terminal, private readonly modes: TerminalModes, private opts: RenderModelOptions = {}) {
    this.core = (term as unknown as { _core?: XtermCore })._core ?? {};
    const refresh = this.core._inputHandler?.onRequestRefreshRows;
    if (refresh) {
      this.store.add(refresh.call(this.core._inputHandler, (r) => {
        if (!r) this.pendingAll = true;
        else this.markRows(r.start, r.end);
      }));
    } else {
      this.store.add(term.onWriteParsed(() => (this.pendingAll = true)));
    }
    this.store.add(term.onScroll(() => (this.pendingAll = true)));
    this.store.add(term.onResize(() => (this.pendingAll = true)));
    this.store.add(term.buffer.onBufferChange(() => (this.pendingAll = true)));
    this.cell = term.buffer.active.getNullCell();
    this.styleCell = term.buffer.active.getNullCell();
    this.store.add(term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
      if (!term.modes.synchronizedOutputMode && params.includes(SYNC_OUTPUT_MODE)) this.syncStartedAt = performance.now();
      return false;
    }));
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
    if (performance.now() - this.lastBuildAt < SNAPSHOT_INTERVAL_MS) return false;
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
    const holding = this.frameCache && this.term.modes.synchronizedOutputMode && performance.now() - this.syncStartedAt < SYNC_OUTPUT_TIMEOUT_MS;
    if (!holding) this.build();
    this.snapshotPending = false;
    const dirtyRows = [...this.unreported].sort((a, b) => a - b);
    this.unreported.clear();
    return { frame: this.frameCache!, dirtyRows };
  }

  private build(): void {
    this.lastBuildAt = performance.now();
    const term = this.term;
    const buf = term.buffer.active;
    const rows = term.rows;
    const cols = term.cols;
    const viewportY = buf.viewportY;
    const dirty = this.unreported;

    let from = 0;
    let to = rows - 1;
    const all = this.pendingAll || viewportY !== this.lastViewportY || buf.type !== this.lastBuffer || this.lines.length !== rows
      || viewportY !== buf.baseY;
    if (!all) {
      from = Math.max(0, this.pendingStart);
      to = Math.min(rows - 1, this.pendingEnd);
    }
    if (this.lines.length !== rows) this.lines.length = rows;
    for (let y = from; y <= to; y++) {
      const line = buf.getLine(viewportY + y);
      const row = line ? this.buildRow(line, cols) : { runs: [], text: '', wrapped: false };
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

    const cursorRow = buf.baseY + buf.cursorY - viewportY;
    const cursor: CursorState = {
      x: Math.min(buf.cursorX, cols - 1),
      y: cursorRow,
      shape: this.modes.cursorShape ?? this.opts.cursorShape ?? 'block',
      blinking: this.modes.cursorBlink ?? this.opts.cursorBlink ?? false,
      visible: this.modes.cursorVisible && cursorRow >= 0 && cursorRow < rows,
    };
    const prevCursor = this.cursor;
    if (!prevCursor || !cursorsEqual(prevCursor, cursor)) {
      if (prevCursor && prevCursor.y >= 0 && prevCursor.y < rows) dirty.add(prevCursor.y);
      if (cursor.y >= 0 && cursor.y < rows) dirty.add(cursor.y);
    }
    this.cursor = cursor;

    const selections = this.viewportSelection(viewportY, rows, cols);
    const before = new Map(this.selections.map((s) => [s.row, s]));
    for (const s of selections) {
      const b = before.get(s.row);
      if (!b || b.start !== s.start || b.end !== s.end) dirty.add(s.row);
      before.delete(s.row);
    }
    for (const row of before.keys()) if (row < rows) dirty.add(row);
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

  private buildRow(line: IBufferLine, cols: number): RenderRow {
    const runs: Run[] = [];
    const cell = this.cell;
    const styleCell = this.styleCell;
    let runStart = -1;
    let runText = '';
    let runChars: string[] | null = null;
    let runSimple = true;
    let runWidth: 1 | 2 = 1;
    let runFg = 0;
    let runBg = 0;
    let runExtA = 0;
    let runExtB = 0;
    let runCells = 0;
    let lastContent = -1; // last column whose cell would paint something on a default background
    let text = '';
    const flush = (): void => {
      if (runStart < 0) return;
      line.getCell(runStart, styleCell);
      const run = styleOf(styleCell, this.core, runWidth, runStart, runCells, runText);
      if (!runSimple) run.chars = runChars!;
      runs.push(run);
      runStart = -1;
    };
    for (let x = 0; x < cols; x++) {
      line.getCell(x, cell);
      const w = cell.getWidth();
      if (w === 0) continue;
      const raw = cell as unknown as RawCell;
      let chars = cell.getChars();
      if (chars === '') chars = ' ';
      const ext = raw.hasExtendedAttrs?.() ? raw.extended : undefined;
      const extA = ext?.underlineStyle ?? 0;
      const extB = ext?.urlId ?? 0;
      const width = (w === 2 ? 2 : 1) as 1 | 2;
      if (runStart < 0 || raw.fg !== runFg || raw.bg !== runBg || extA !== runExtA || extB !== runExtB || width !== runWidth) {
        flush();
        runStart = x;
        runText = '';
        runChars = [];
        runSimple = true;
        runWidth = width;
        runFg = raw.fg;
        runBg = raw.bg;
        runExtA = extA;
        runExtB = extB;
        runCells = 0;
      }
      runText += chars;
      runChars!.push(chars);
      if (chars.length !== 1) runSimple = false;
      runCells += width;
      text += chars;
      if (chars !== ' ' || !cell.isBgDefault() || cell.isInverse() || cell.isUnderline() || cell.isStrikethrough()) {
        lastContent = x + width - 1;
      }
    }
    flush();
    // Drop the blank default-style tail so views do not paint empty cells.
    const trimmed: Run[] = [];
    for (const run of runs) {
      if (run.col > lastContent) break;
      const end = run.col + run.cells - 1;
      if (end > lastContent) {
        const keep = Math.floor((lastContent - run.col + 1) / run.cellWidth);
        if (run.chars) run.chars = run.chars.slice(0, keep);
        run.text = run.chars ? run.chars.join('') : run.text.slice(0, keep);
        run.cells = keep * run.cellWidth;
      }
      trimmed.push(run);
    }
    return { runs: trimmed, text: text.trimEnd(), wrapped: line.isWrapped };
  }

  /** One buffer line (0 = the oldest scrollback line) as runs, for clients paging through
   *  scrollback; null past the end of the buffer. */
  bufferRow(y: number): RenderRow | null {
    const line = this.term.buffer.active.getLine(y);
    return line ? this.buildRow(line, this.term.cols) : null;
  }

  // ---- selection -------------------------------------------------------------------------

  /** Starts or extends a selection between two buffer points (anchor stays where it began). */
  setSelection(anchor: BufferPoint, head: BufferPoint, mode: SelectionMode = 'char'): void {
    this.selection = { anchor, head, mode };
  }

  /** Moves the selection's head (a drag), keeping its anchor and mode. No-op without one. */
  extendSelection(head: BufferPoint): void {
    if (this.selection) this.selection = { ...this.selection, head };
  }

  clearSelection(): void {
    this.selection = null;
  }

  get hasSelection(): boolean {
    const r = this.selectionRange();
    return r !== null && (r.start.y !== r.end.y || r.start.x !== r.end.x);
  }

  /** The selection normalised to [start, end) in buffer coordinates, expanded by its mode. */
  selectionRange(): { start: BufferPoint; end: BufferPoint } | null {
    const s = this.selection;
    if (!s) return null;
    const before = s.anchor.y < s.head.y || (s.anchor.y === s.head.y && s.anchor.x <= s.head.x);
    let start = before ? s.anchor : s.head;
    let end = before ? s.head : s.anchor;
    const cols = this.term.cols;
    if (s.mode === 'line') {
      return { start: { x: 0, y: this.wrapStart(start.y) }, end: { x: cols, y: this.wrapEnd(end.y) } };
    }
    if (s.mode === 'word') {
      start = this.wordBounds(start).start;
      end = this.wordBounds(end).end;
    }
    return { start, end };
  }

  /** Buffer point → viewport-relative conversion helpers for views. */
  viewportToBuffer(col: number, row: number): BufferPoint {
    return { x: col, y: this.term.buffer.active.viewportY + row };
  }

  private wrapStart(y: number): number {
    const buf = this.term.buffer.active;
    while (y > 0 && buf.getLine(y)?.isWrapped) y--;
    return y;
  }

  private wrapEnd(y: number): number {
    const buf = this.term.buffer.active;
    while (y + 1 < buf.length && buf.getLine(y + 1)?.isWrapped) y++;
    return y;
  }

  /** The word around a buffer point: a run of word characters, or a run of one other char. */
  wordBounds(p: BufferPoint): { start: BufferPoint; end: BufferPoint } {
    const line = this.term.buffer.active.getLine(p.y);
    if (!line) return { start: p, end: p };
    const cols = this.term.cols;
    const charAt = (x: number): string => line.getCell(x)?.getChars() || ' ';
    const x0 = Math.min(Math.max(0, p.x), cols - 1);
    const kind = (c: string): number => (WORD_CHARS.test(c) ? 1 : c === ' ' ? 0 : 2);
    const k = kind(charAt(x0));
    let a = x0;
    let b = x0 + 1;
    if (k !== 2) {
      while (a > 0 && kind(charAt(a - 1)) === k) a--;
      while (b < cols && kind(charAt(b)) === k) b++;
    }
    return { start: { x: a, y: p.y }, end: { x: b, y: p.y } };
  }

  /** The selected text, soft-wrapped rows joined, hard line ends as '\n', trailing blanks cut. */
  selectionText(): string {
    const r = this.selectionRange();
    if (!r) return '';
    const buf = this.term.buffer.active;
    let out = '';
    for (let y = r.start.y; y <= r.end.y; y++) {
      const line = buf.getLine(y);
      if (!line) break;
      const startCol = y === r.start.y ? r.start.x : 0;
      const endCol = y === r.end.y ? r.end.x : this.term.cols;
      const next = buf.getLine(y + 1);
      const continues = y < r.end.y && next?.isWrapped === true;
      let piece = line.translateToString(!continues, startCol, endCol);
      if (!continues && y < r.end.y) piece = piece.trimEnd() + '\n';
      out += piece;
    }
    return out;
  }

  private viewportSelection(viewportY: number, rows: number, cols: number): RowSelection[] {
    const r = this.selectionRange();
    if (!r) return [];
    const out: RowSelection[] = [];
    for (let row = 0; row < rows; row++) {
      const y = viewportY + row;
      if (y < r.start.y || y > r.end.y) continue;
      const start = y === r.start.y ? r.start.x : 0;
      const end = y === r.end.y ? r.end.x : cols;
      if (end > start) out.push({ row, start, end: Math.min(end, cols) });
    }
    return out;
  }

  dispose(): void {
    this.store.dispose();
    this.lines = [];
    this.frameCache = null;
  }
}

function colorOf(value: number, isRgb: boolean, isPalette: boolean): Color {
  if (isRgb) return { kind: 'rgb', value };
  if (isPalette) return { kind: 'palette', index: value };
  return DEFAULT_COLOR;
}

function styleOf(cell: IBufferCell, core: XtermCore, cellWidth: 1 | 2, col: number, cells: number, text: string): Run {
  const raw = cell as unknown as RawCell;
  const ext = raw.hasExtendedAttrs?.() ? raw.extended : undefined;
  const underlined = cell.isUnderline() !== 0;
  let underline: UnderlineStyle = 'none';
  if (underlined) underline = UNDERLINE_STYLES[ext?.underlineStyle ?? 1] ?? 'single';
  if (underlined && underline === 'none') underline = 'single';
  const run: Run = {
    col,
    cells,
    text,
    cellWidth,
    fg: colorOf(cell.getFgColor(), cell.isFgRGB(), cell.isFgPalette()),
    bg: colorOf(cell.getBgColor(), cell.isBgRGB(), cell.isBgPalette()),
    bold: cell.isBold() !== 0,
    italic: cell.isItalic() !== 0,
    dim: cell.isDim() !== 0,
    underline,
    strikethrough: cell.isStrikethrough() !== 0,
    overline: cell.isOverline() !== 0,
    inverse: cell.isInverse() !== 0,
    invisible: cell.isInvisible() !== 0,
    blink: cell.isBlink() !== 0,
  };
  const urlId = ext?.urlId ?? 0;
  if (urlId) {
    const uri = core._oscLinkService?.getLinkData(urlId)?.uri;
    if (uri) run.link = uri;
  }
  return run;
}

function colorsEqual(a: Color, b: Color): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'rgb') return a.value === (b as { value: number }).value;
  if (a.kind === 'palette') return a.index === (b as { index: number }).index;
  return true;
}

function runsEqual(a: Run, b: Run): boolean {
  return a.col === b.col && a.cells === b.cells && a.text === b.text && a.cellWidth === b.cellWidth
    && colorsEqual(a.fg, b.fg) && colorsEqual(a.bg, b.bg) && a.bold === b.bold && a.italic === b.italic
    && a.dim === b.dim && a.underline === b.underline && a.strikethrough === b.strikethrough
    && a.overline === b.overline && a.inverse === b.inverse && a.invisible === b.invisible
    && a.blink === b.blink && a.link === b.link;
}

function rowsEqual(a: RenderRow, b: RenderRow): boolean {
  if (a.runs.length !== b.runs.length || a.wrapped !== b.wrapped || a.text !== b.text) return false;
  for (let i = 0; i < a.runs.length; i++) if (!runsEqual(a.runs[i]!, b.runs[i]!)) return false;
  return true;
}

function cursorsEqual(a: CursorState, b: CursorState): boolean {
  return a.x === b.x && a.y === b.y && a.shape === b.shape && a.blinking === b.blinking && a.visible === b.visible;
}
