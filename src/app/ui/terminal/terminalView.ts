// The terminal view: paints a Session's render model through the native grid painter and turns
// Qt input (keys, mouse, wheel, IME, clipboard, focus, resize) into session input. At most once per
// frame the rows that changed are painted straight into the widget (its backing store keeps the rest).
import { performance } from 'node:perf_hooks';
import {
  CursorShape as QtCursorShape,
  FocusPolicy,
  QApplication,
  QClipboardMode,
  QInputMethodEvent,
  QInputMethodQueryEvent,
  QKeyEvent,
  QMouseEvent,
  QRect,
  QResizeEvent,
  QWheelEvent,
  QWidget,
  WidgetAttribute,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import { Emitter, type Disposable, type Event } from '../../../protocol/events';
import {
  darkTheme, findLinks, nextMatchIndex, rangeRows, type BufferPoint, type BufferRange, type CursorState,
  type FindDirection, type Frame, type KeyInput, type MouseButton, type Session, type Theme,
} from '../../../terminal';
import { FindBar } from './findBar';
import { GridOps } from './gridOps';
import { makeCellFonts, type CellFonts } from './cellFonts';
import { GridPainter, type Highlight } from './gridPainter';
import { keyInputFromQt, QtMod } from './keyMapping';
import { NativeGrid } from './nativeGrid';
import { openExternal } from '../openExternal';
import { defaultSettings } from '../../host/settings';

export interface TerminalViewOptions {
  fontFamily?: string;
  /** Points. */
  fontSize?: number;
  theme?: Theme;
  /** macOS: Option sends ESC-prefixed keys instead of composing characters. Default false. */
  optionAsMeta?: boolean;
  /** Opens a link the user Cmd/Ctrl-clicked; default `open` (macOS) or `xdg-open`. */
  openLink?: (url: string) => void;
}

export interface FrameTiming {
  /** performance.now() when the frame started. */
  start: number;
  /** Model update + painting rows + flush to the window system, in ms. */
  paintMs: number;
  /** The render model's part of paintMs. */
  modelMs: number;
  /** Rows repainted. */
  rows: number;
  full: boolean;
}

const isMac = process.platform === 'darwin';
/** The settings' defaults, for a view made without settings (benchmarks). */
export const DEFAULT_FONT_FAMILY = defaultSettings().terminal.fontFamily;
export const DEFAULT_FONT_SIZE = defaultSettings().terminal.fontSize;
/** Paint at most this often: one frame at 60 Hz. */
const FRAME_INTERVAL_MS = 1000 / 60;
/** Cursor blink half-period (the macOS and GNOME default is ~530 ms). */
const BLINK_INTERVAL_MS = 530;
/** Clicks closer than this (and on the same cell) count as double/triple clicks. */
const MULTI_CLICK_MS = 400;
/** Qt reports wheel rotation in eighths of a degree: one notch = 15° = 120. */
const WHEEL_NOTCH = 120;
/** Lines scrolled per wheel notch through scrollback. */
const WHEEL_LINES = 3;
/** While the find bar is open, matches follow new output at most this often (a search of
 *  10,000 lines takes a few ms; output can arrive every frame). */
const FIND_REFRESH_MS = 250;
/** Qt::MouseButton bits. */
const QT_LEFT = 1;
const QT_RIGHT = 2;
const QT_MIDDLE = 4;

export class TerminalView implements Disposable {
  readonly widget: QWidget;
  private readonly _onFramePainted = new Emitter<FrameTiming>();
  /** Fires after each painted frame, with timings (for benches and diagnostics). */
  readonly onFramePainted: Event<FrameTiming> = this._onFramePainted.event;

  private theme: Theme;
  private fonts: CellFonts;
  private readonly grid: GridPainter;
  /** The frame's drawing operations, reused from paint to paint. */
  private readonly ops = new GridOps();
  private native: NativeGrid;
  private fontFamily: string;
  private fontSize: number;
  private readonly optionAsMeta: boolean;
  private readonly openLink: (url: string) => void;
  private dpr = 1;
  private readonly subscriptions: Disposable[] = [];
  private readonly listeners: Array<[WidgetEventTypes, (e?: unknown) => void]> = [];
  private frameTimer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private blinkTimer: NodeJS.Timeout | null = null;
  private lastFrameAt = 0;
  /** The next paint covers every row (theme, font, size, bell, first paint). */
  private fullRedraw = true;
  /** Rows to paint at the next own repaint: changed in the model, or forced (blink, preedit). */
  private readonly pendingRows = new Set<number>();
  /** True while paintFrame's repaint() runs: only then may the paint event paint just pendingRows. */
  private ownRepaint = false;
  private bellFlash = false;
  /** The frame of the last model update, what any paint event shows. */
  private lastFrame: Frame | null = null;
  private blinkOn = true;
  private focused = false;
  private preedit = '';
  private lastCursor: CursorState | null = null;
  private disposed = false;
  // Mouse state.
  private selecting = false;
  private clickCount = 0;
  private lastClick = { at: 0, col: -1, row: -1 };
  private buttonsDown = 0;
  private lastMouseCell = { col: -1, row: -1 };
  private wheelRemainder = 0;
  // Find in scrollback.
  private findBar: FindBar | null = null;
  private matches: BufferRange[] = [];
  private currentMatch = -1;
  private findRefresh: NodeJS.Timeout | null = null;

  constructor(private readonly session: Session, options: TerminalViewOptions = {}) {
    this.theme = options.theme ?? darkTheme;
    this.fontFamily = options.fontFamily ?? DEFAULT_FONT_FAMILY;
    this.fontSize = options.fontSize ?? DEFAULT_FONT_SIZE;
    this.optionAsMeta = options.optionAsMeta ?? false;
    this.openLink = options.openLink ?? defaultOpenLink;
    this.fonts = makeCellFonts(this.fontFamily, this.fontSize);
    this.grid = new GridPainter(this.fonts, this.theme);
    this.native = new NativeGrid(this.fontFamily, this.fontSize, this.fonts);

    const w = new QWidget();
    this.widget = w;
    w.setObjectName('terminalView');
    w.setFocusPolicy(FocusPolicy.StrongFocus);
    w.setAttribute(WidgetAttribute.WA_OpaquePaintEvent, true);
    w.setAttribute(WidgetAttribute.WA_InputMethodEnabled, true);
    w.setMouseTracking(true);
    w.setCursor(QtCursorShape.IBeamCursor);
    w.setMinimumSize(Math.ceil(this.fonts.cellW * 2), this.fonts.cellH);

    this.listen(WidgetEventTypes.Paint, () => this.handlePaint());
    this.listen(WidgetEventTypes.Resize, (e) => this.handleResize(new QResizeEvent(e as never)));
    this.listen(WidgetEventTypes.KeyPress, (e) => this.handleKey(new QKeyEvent(e as never)));
    this.listen(WidgetEventTypes.MouseButtonPress, (e) => this.handleMousePress(new QMouseEvent(e as never)));
    this.listen(WidgetEventTypes.MouseButtonDblClick, (e) => this.handleMousePress(new QMouseEvent(e as never)));
    this.listen(WidgetEventTypes.MouseButtonRelease, (e) => this.handleMouseRelease(new QMouseEvent(e as never)));
    this.listen(WidgetEventTypes.MouseMove, (e) => this.handleMouseMove(new QMouseEvent(e as never)));
    this.listen(WidgetEventTypes.Wheel, (e) => this.handleWheel(new QWheelEvent(e as never)));
    this.listen(WidgetEventTypes.FocusIn, () => this.handleFocus(true));
    this.listen(WidgetEventTypes.FocusOut, () => this.handleFocus(false));
    this.listen(WidgetEventTypes.InputMethod, (e) => this.handleInputMethod(new QInputMethodEvent(e as never)));
    this.listen(WidgetEventTypes.InputMethodQuery, (e) => this.handleInputMethodQuery(new QInputMethodQueryEvent(e as never)));

    this.subscriptions.push(session.onRender(() => {
      this.scheduleFrame();
      this.scheduleFindRefresh();
    }));
    this.subscriptions.push(session.onBell(() => this.flashBell()));
    this.scheduleFrame();
  }

  // ---- public API ------------------------------------------------------------------------

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.grid.setTheme(theme);
    this.findBar?.setTheme(theme);
    // The rows themselves did not change: repaint them all, no model rebuild.
    this.fullRedraw = true;
    this.scheduleFrame();
  }

  setFont(family: string, size: number): void {
    this.fontFamily = family;
    this.fontSize = size;
    this.fonts = makeCellFonts(family, size);
    this.grid.setFonts(this.fonts);
    this.native = new NativeGrid(family, size, this.fonts);
    this.widget.setMinimumSize(Math.ceil(this.fonts.cellW * 2), this.fonts.cellH);
    this.fitSessionToWidget();
    this.invalidate();
  }

  focus(): void {
    this.widget.setFocus();
  }

  /** Cell size in logical pixels (the width is the font's advance, usually fractional). */
  get cellSize(): { width: number; height: number } {
    return { width: this.fonts.cellW, height: this.fonts.cellH };
  }

  /** Copies the selection to the clipboard; false when nothing is selected. */
  copySelection(): boolean {
    const text = this.session.renderModel.selectionText();
    if (!text) return false;
    QApplication.clipboard()?.setText(text, QClipboardMode.Clipboard);
    return true;
  }

  pasteClipboard(mode: QClipboardMode = QClipboardMode.Clipboard): void {
    const text = QApplication.clipboard()?.text(mode) ?? '';
    if (text) this.session.paste(text);
  }

  /** Frees the view's timers and listeners. The session stays alive (its owner disposes it). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subscriptions.splice(0)) s.dispose();
    for (const [type, fn] of this.listeners.splice(0)) this.widget.removeEventListener(type, fn);
    this.cancelFrame();
    if (this.blinkTimer) clearInterval(this.blinkTimer);
    this.blinkTimer = null;
    if (this.findRefresh) clearTimeout(this.findRefresh);
    this.findBar?.dispose();
    this._onFramePainted.dispose();
  }

  // ---- frame scheduling ------------------------------------------------------------------

  private listen(type: WidgetEventTypes, fn: (e?: unknown) => void): void {
    this.widget.addEventListener(type, fn);
    this.listeners.push([type, fn]);
  }

  private invalidate(): void {
    this.fullRedraw = true;
    this.session.renderModel.invalidate();
    this.scheduleFrame();
  }

  private scheduleFrame(): void {
    if (this.disposed || this.frameTimer) return;
    const wait = this.lastFrameAt + FRAME_INTERVAL_MS - performance.now();
    // Paint right away when the last frame is old enough: typing latency stays minimal.
    this.frameTimer = wait <= 0 ? setImmediate(() => this.paintFrame()) : setTimeout(() => this.paintFrame(), wait);
  }

  private cancelFrame(): void {
    if (!this.frameTimer) return;
    clearTimeout(this.frameTimer as NodeJS.Timeout);
    clearImmediate(this.frameTimer as NodeJS.Immediate);
    this.frameTimer = null;
  }

  private paintFrame(): void {
    this.frameTimer = null;
    if (this.disposed) return;
    const start = performance.now();
    this.lastFrameAt = start;
    if (this.widget.width() <= 0 || this.widget.height() <= 0) return;
    const { frame, dirtyRows } = this.session.renderModel.update();
    this.lastFrame = frame;
    const modelMs = performance.now() - start;
    this.updateBlink(frame.cursor);
    for (const r of dirtyRows) this.pendingRows.add(r);
    const full = this.fullRedraw;
    const rows = full ? frame.rows : this.pendingRows.size;
    if (rows > 0) {
      this.ownRepaint = true;
      // Synchronous: the paint event runs (and is flushed) before repaint() returns, or not at
      // all while the widget is hidden; then pendingRows wait for the next frame or expose.
      this.widget.repaint();
      this.ownRepaint = false;
    }
    this._onFramePainted.fire({ start, paintMs: performance.now() - start, modelMs, rows, full });
  }

  private handlePaint(): void {
    const width = this.widget.width();
    const height = this.widget.height();
    this.dpr = this.widget.devicePixelRatioF() || 1;
    const ops = this.ops;
    ops.reset();
    if (this.bellFlash) {
      ops.fill(0, 0, width, height, this.theme.foreground);
    } else if (!this.lastFrame) {
      // Before the first frame there is nothing to show but the background (the first frame is
      // scheduled by the constructor).
      ops.fill(0, 0, width, height, this.theme.background);
    } else {
      // Anything but our own repaint (expose, resize, show) paints every row: what the window
      // system shows of the widget may be stale.
      const partial = this.ownRepaint && !this.fullRedraw;
      const state = { focused: this.focused, blinkOn: this.blinkOn, preedit: this.preedit, highlights: this.visibleHighlights() };
      this.grid.paint(ops, this.lastFrame, partial ? this.pendingRows : 'all', width, height, state);
      this.pendingRows.clear();
      this.fullRedraw = false;
    }
    this.native.paintWidget(this.widget, ops);
  }

  // ---- find in scrollback ----------------------------------------------------------------

  /** Opens the find bar (or selects its query again); typing searches the whole scrollback. */
  openFind(): void {
    this.findBar ??= new FindBar(this.widget, this.theme, {
      onQuery: () => this.search('start'),
      onStep: (direction) => this.search(direction),
      onClose: () => this.closeFind(),
    });
    this.findBar.open(this.widget.width());
  }

  closeFind(): void {
    if (!this.findBar?.isOpen) return;
    this.findBar.close();
    this.matches = [];
    this.currentMatch = -1;
    this.fullRedraw = true;
    this.scheduleFrame();
    this.widget.setFocus();
  }

  /** The matches of the current query and which one is current (for tests and diagnostics). */
  get findState(): { query: string; matches: readonly BufferRange[]; current: number } {
    return { query: this.findBar?.query ?? '', matches: this.matches, current: this.currentMatch };
  }

  /**
   * Searches again (the buffer may have changed) and moves the current match: 'start' picks the
   * nearest match at or above the bottom of the viewport (the newest output the user can see),
   * 'up' the next older one, 'down' the next newer one; the view scrolls to show it.
   */
  private search(step: FindDirection | 'start' | 'refresh'): void {
    const query = this.findBar?.query ?? '';
    const view = this.session.viewport;
    const previous = this.matches[this.currentMatch]?.start ?? null;
    this.matches = this.session.find(query);
    if (step === 'refresh') {
      const same = previous ? this.matches.findIndex((m) => m.start.x === previous.x && m.start.y === previous.y) : -1;
      this.currentMatch = same >= 0 ? same : Math.min(this.currentMatch, this.matches.length - 1);
    } else {
      const bottom: BufferPoint = { x: this.session.cols, y: view.top + this.session.rows - 1 };
      const from = step === 'start' || !previous ? bottom : previous;
      this.currentMatch = nextMatchIndex(this.matches, from, step === 'start' ? 'up' : step);
      const m = this.matches[this.currentMatch];
      if (m) this.reveal(m);
    }
    this.findBar?.setCount(this.currentMatch, this.matches.length);
    this.fullRedraw = true;
    this.scheduleFrame();
  }

  /** Scrolls so the match is on screen (about a third from the top), unless it already is. */
  private reveal(m: BufferRange): void {
    const view = this.session.viewport;
    const rows = this.session.rows;
    if (m.start.y >= view.top && m.end.y < view.top + rows) return;
    const target = Math.max(0, Math.min(view.bottom, m.start.y - Math.floor(rows / 3)));
    this.session.scrollLines(target - view.top);
  }

  private scheduleFindRefresh(): void {
    if (this.findRefresh || !this.findBar?.isOpen || !this.findBar.query) return;
    this.findRefresh = setTimeout(() => {
      this.findRefresh = null;
      if (!this.disposed && this.findBar?.isOpen) this.search('refresh');
    }, FIND_REFRESH_MS);
  }

  /** Matches on the viewport's rows, the current one marked. */
  private visibleHighlights(): Highlight[] {
    if (this.matches.length === 0) return [];
    const top = this.session.viewport.top;
    const rows = this.session.rows;
    const out: Highlight[] = [];
    for (let i = 0; i < this.matches.length; i++) {
      const m = this.matches[i]!;
      if (m.end.y < top) continue;
      if (m.start.y >= top + rows) break;
      for (const part of rangeRows(m, this.session.cols)) {
        const row = part.y - top;
        if (row >= 0 && row < rows) out.push({ row, start: part.start, end: part.end, current: i === this.currentMatch });
      }
    }
    return out;
  }

  // ---- cursor blink and bell ---------------------------------------------------------

  private updateBlink(cur: CursorState): void {
    const wantBlink = cur.blinking && cur.visible && this.focused;
    if (wantBlink && !this.blinkTimer) {
      this.blinkTimer = setInterval(() => {
        this.blinkOn = !this.blinkOn;
        const c = this.lastCursor;
        if (c) this.pendingRows.add(c.y);
        this.scheduleFrame();
      }, BLINK_INTERVAL_MS);
    } else if (!wantBlink && this.blinkTimer) {
      clearInterval(this.blinkTimer);
      this.blinkTimer = null;
      this.blinkOn = true;
    }
    // Typing or moving keeps the cursor solid.
    if (this.lastCursor && (this.lastCursor.x !== cur.x || this.lastCursor.y !== cur.y)) this.blinkOn = true;
    this.lastCursor = cur;
  }

  private flashBell(): void {
    // Visual bell: the whole view in the foreground colour for a few frames.
    if (this.disposed || this.bellFlash) return;
    this.bellFlash = true;
    this.widget.repaint();
    setTimeout(() => {
      this.bellFlash = false;
      this.fullRedraw = true;
      this.scheduleFrame();
    }, FRAME_INTERVAL_MS * 6);
  }

  // ---- geometry --------------------------------------------------------------------------

  private handleResize(_e: QResizeEvent): void {
    this.findBar?.place(this.widget.width());
    this.fitSessionToWidget();
    this.invalidate();
  }

  private fitSessionToWidget(): void {
    this.fitTo(this.widget.width(), this.widget.height());
  }

  /** Resizes the session to the grid that fits this many pixels (the widget's own size, or the
   *  size it will have once shown). */
  fitTo(width: number, height: number): void {
    const cols = Math.max(2, Math.floor(width / this.fonts.cellW));
    const rows = Math.max(1, Math.floor(height / this.fonts.cellH));
    if (cols !== this.session.cols || rows !== this.session.rows) this.session.resize(cols, rows);
  }

  private cellAt(x: number, y: number): { col: number; row: number } {
    const col = Math.min(this.session.cols - 1, Math.max(0, Math.floor(x / this.fonts.cellW)));
    const row = Math.min(this.session.rows - 1, Math.max(0, Math.floor(y / this.fonts.cellH)));
    return { col, row };
  }

  // ---- keyboard --------------------------------------------------------------------------

  private handleKey(e: QKeyEvent): void {
    const input = keyInputFromQt(e.key(), e.modifiers(), e.text(), { macOS: isMac, optionAsMeta: this.optionAsMeta });
    if (!input) return;
    if (this.handleShortcut(input)) {
      this.widget.setEventProcessed(true);
      return;
    }
    if (this.session.sendKey(input)) {
      // Keep Qt from using Tab for focus changes and the like.
      this.widget.setEventProcessed(true);
      if (this.session.renderModel.hasSelection) {
        this.session.renderModel.clearSelection();
        this.session.requestRender();
      }
    }
  }

  /** Copy/paste, find and scrollback keys: Cmd on macOS, Ctrl+Shift elsewhere. */
  private handleShortcut(k: KeyInput): boolean {
    const command = isMac ? k.meta && !k.ctrl : k.ctrl && k.shift && !k.meta;
    if (command && k.key === 'f') {
      this.openFind();
      return true;
    }
    if (command && k.key === 'c') return this.copySelection() || !isMac;
    if (command && k.key === 'v') {
      this.pasteClipboard();
      return true;
    }
    if (!isMac && k.shift && !k.ctrl && !k.alt && k.key === 'Insert') {
      this.pasteClipboard();
      return true;
    }
    if (k.shift && !k.ctrl && !k.alt && (k.key === 'PageUp' || k.key === 'PageDown')) {
      this.session.scrollLines((k.key === 'PageUp' ? -1 : 1) * Math.max(1, this.session.rows - 1));
      return true;
    }
    if (isMac && k.meta && (k.key === 'ArrowUp' || k.key === 'ArrowDown' || k.key === 'Home' || k.key === 'End')) {
      if (k.key === 'End' || k.key === 'ArrowDown') this.session.scrollToBottom();
      else this.session.scrollLines(-this.session.viewport.length);
      return true;
    }
    return false;
  }

  private handleInputMethod(e: QInputMethodEvent): void {
    const commit = e.commitString();
    const preedit = e.preeditString();
    if (commit) this.session.write(commit);
    if (preedit !== this.preedit) {
      this.preedit = preedit;
      if (this.lastCursor) this.pendingRows.add(this.lastCursor.y);
      this.scheduleFrame();
    }
    this.widget.setEventProcessed(true);
  }

  private handleInputMethodQuery(e: QInputMethodQueryEvent): void {
    // Tell the input method where the cursor is, so its candidate window opens next to it.
    const IM_CURSOR_RECTANGLE = 0x2;
    if (e.queries() & IM_CURSOR_RECTANGLE) {
      const c = this.lastCursor ?? { x: 0, y: 0 };
      const { cellW, cellH } = this.fonts;
      e.setValue(IM_CURSOR_RECTANGLE, new QRect(this.grid.colX(c.x), c.y * cellH, Math.ceil(cellW), cellH));
      this.widget.setEventProcessed(true);
    }
  }

  private handleFocus(focused: boolean): void {
    this.focused = focused;
    this.session.sendFocus(focused);
    if (this.lastCursor) this.pendingRows.add(this.lastCursor.y);
    this.blinkOn = true;
    this.scheduleFrame();
  }

  // ---- mouse -----------------------------------------------------------------------------

  /** Whether mouse events go to the application (Shift forces local selection). */
  private reportsMouse(modifiers: number): boolean {
    return this.session.inputModes.mouseTracking !== 'none' && (modifiers & QtMod.shift) === 0;
  }

  private mouseMods(modifiers: number): { shift: boolean; alt: boolean; ctrl: boolean } {
    return {
      shift: (modifiers & QtMod.shift) !== 0,
      alt: (modifiers & QtMod.alt) !== 0,
      ctrl: (modifiers & (isMac ? QtMod.meta : QtMod.control)) !== 0,
    };
  }

  private handleMousePress(e: QMouseEvent): void {
    this.widget.setFocus();
    const mods = e.modifiers();
    const { col, row } = this.cellAt(e.x(), e.y());
    const button = qtButton(e.button());
    this.buttonsDown |= e.button();
    // Qt reports Cmd as Control on macOS, so this is Cmd-click there and Ctrl-click elsewhere.
    const linkModifier = (mods & QtMod.control) !== 0;
    if (button === 'left' && linkModifier) {
      const url = this.linkAt(col, row);
      if (url) {
        this.openLink(url);
        return;
      }
    }
    if (this.reportsMouse(mods)) {
      this.session.sendMouse({ kind: 'press', button, col, row, x: e.x() * this.dpr, y: e.y() * this.dpr, ...this.mouseMods(mods) });
      return;
    }
    if (button === 'middle' && !isMac) {
      this.pasteClipboard(QClipboardMode.Selection);
      return;
    }
    if (button !== 'left') return;
    const now = performance.now();
    const same = col === this.lastClick.col && row === this.lastClick.row && now - this.lastClick.at < MULTI_CLICK_MS;
    this.clickCount = same ? (this.clickCount % 3) + 1 : 1;
    this.lastClick = { at: now, col, row };
    const model = this.session.renderModel;
    const p = model.viewportToBuffer(col, row);
    const mode = this.clickCount === 3 ? 'line' : this.clickCount === 2 ? 'word' : 'char';
    if (mode === 'char' && (mods & QtMod.shift) !== 0 && model.hasSelection) {
      const range = model.selectionRange()!;
      model.setSelection(range.start, p, 'char');
    } else if (mode === 'char') {
      model.clearSelection();
      model.setSelection(p, p, 'char');
    } else {
      model.setSelection(p, p, mode);
    }
    this.selecting = true;
    this.session.requestRender();
  }

  private handleMouseMove(e: QMouseEvent): void {
    const mods = e.modifiers();
    const { col, row } = this.cellAt(e.x(), e.y());
    if (col === this.lastMouseCell.col && row === this.lastMouseCell.row) return;
    this.lastMouseCell = { col, row };
    if (this.selecting) {
      const model = this.session.renderModel;
      model.extendSelection(model.viewportToBuffer(col, row));
      this.session.requestRender();
      return;
    }
    if (this.reportsMouse(mods)) {
      const held = this.buttonsDown & QT_LEFT ? 'left' : this.buttonsDown & QT_MIDDLE ? 'middle' : this.buttonsDown & QT_RIGHT ? 'right' : 'none';
      this.session.sendMouse({ kind: 'move', button: held, col, row, x: e.x() * this.dpr, y: e.y() * this.dpr, ...this.mouseMods(mods) });
    }
  }

  private handleMouseRelease(e: QMouseEvent): void {
    const mods = e.modifiers();
    this.buttonsDown &= ~e.button();
    if (this.selecting) {
      this.selecting = false;
      const text = this.session.renderModel.hasSelection ? this.session.renderModel.selectionText() : '';
      // X11 convention: a selection is immediately available to middle-click paste.
      if (text && !isMac) QApplication.clipboard()?.setText(text, QClipboardMode.Selection);
      return;
    }
    if (this.reportsMouse(mods)) {
      const { col, row } = this.cellAt(e.x(), e.y());
      this.session.sendMouse({ kind: 'release', button: qtButton(e.button()), col, row, x: e.x() * this.dpr, y: e.y() * this.dpr, ...this.mouseMods(mods) });
    }
  }

  private handleWheel(e: QWheelEvent): void {
    const delta = e.angleDelta().y;
    this.wheelRemainder += delta;
    const notches = Math.trunc(this.wheelRemainder / WHEEL_NOTCH);
    if (notches === 0) return;
    this.wheelRemainder -= notches * WHEEL_NOTCH;
    const mods = e.modifiers();
    const pos = e.position();
    const { col, row } = this.cellAt(pos.x, pos.y);
    if (this.reportsMouse(mods)) {
      const button: MouseButton = notches > 0 ? 'wheelUp' : 'wheelDown';
      for (let i = 0; i < Math.abs(notches); i++) this.session.sendMouse({ kind: 'wheel', button, col, row, ...this.mouseMods(mods) });
      return;
    }
    if (this.session.viewport.altScreen) {
      // Full-screen apps without mouse support (less, man) scroll with arrow keys.
      const key = notches > 0 ? 'ArrowUp' : 'ArrowDown';
      for (let i = 0; i < Math.abs(notches) * WHEEL_LINES; i++) this.session.sendKey({ key });
      return;
    }
    this.session.scrollLines(-notches * WHEEL_LINES);
  }

  private linkAt(col: number, row: number): string | null {
    const line = this.session.renderModel.frame.lines[row];
    if (!line) return null;
    const run = line.runs.find((r) => col >= r.col && col < r.col + r.cells);
    if (run?.link) return run.link;
    for (const l of findLinks(line.text)) if (col >= l.start && col < l.end) return l.url;
    return null;
  }
}

function qtButton(b: number): MouseButton {
  if (b & QT_LEFT) return 'left';
  if (b & QT_MIDDLE) return 'middle';
  if (b & QT_RIGHT) return 'right';
  return 'none';
}

function defaultOpenLink(url: string): void {
  // Only schemes a browser or mail client handles: never hand a terminal's text to `open` as a path or app.
  if (/^(https?|file|mailto):/i.test(url)) openExternal(url);
}
