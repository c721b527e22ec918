// The terminal view: a widget that shows one session (a TerminalSource: frames from the host). It composes the parts that each do one job
// (frame pacing, cursor blink, find, mouse gestures, IME, shortcuts) and does the painting: at
// most once per frame the rows that changed are painted straight into the widget through the
// native grid painter (its backing store keeps the rest).
import { performance } from 'node:perf_hooks';
import {
  CursorShape as QtCursorShape,
  FocusPolicy,
  QApplication,
  QClipboardMode,
  QInputMethodEvent,
  QInputMethodQueryEvent,
  QMouseEvent,
  QRect,
  QWheelEvent,
  QWidget,
  WidgetAttribute,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import { Emitter, type Disposable, type Event } from '../../../protocol/events';
import type { BufferRange, Frame, Theme } from '../../../terminal/common';
import { darkTheme } from '../../../terminal/common/theme';
import type { TerminalSource } from '../../client/terminalSource';
import { GridOps } from './gridOps';
import { makeCellFonts, type CellFonts } from './cellFonts';
import { CursorBlink } from './cursorBlink';
import { FlushSettler } from './flushSettler';
import { FRAME_INTERVAL_MS, FramePacer } from './framePacer';
import { GridPainter } from './gridPainter';
import { ImeInput } from './imeInput';
import { keyInputFromQt } from './keyMapping';
import { NativeGrid } from './nativeGrid';
import { PointerGestures } from './pointerGestures';
import { NewLinesPill } from './newLinesPill';
import { TerminalFind } from './terminalFind';
import { defaultOpenLink } from './terminalLinks';
import { shortcutFor, type TerminalShortcut } from './terminalShortcuts';
import { defaultSettings } from '../../services/settingsFile';
import { traceLatency } from '../../services/latencyTrace';

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
  /** Rows the session's newest frame changed: 0 when the app repainted on its own (a cursor blink,
   *  focus, a theme), so a bench can tell output reaching the screen from the app's own paints. */
  changed: number;
  full: boolean;
}

const isMac = process.platform === 'darwin';
/** The settings' defaults, for a view made without settings (benchmarks). */
export const DEFAULT_FONT_FAMILY = defaultSettings().terminal.fontFamily;
export const DEFAULT_FONT_SIZE = defaultSettings().terminal.fontSize;
/** The visual bell lasts this many frames (100 ms at 60 Hz: long enough to see, short enough not to annoy). */
const BELL_FRAMES = 6;

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
  private readonly optionAsMeta: boolean;
  private dpr = 1;
  private readonly subscriptions: Disposable[] = [];
  private readonly listeners: Array<[WidgetEventTypes, (e?: unknown) => void]> = [];
  private readonly pacer = new FramePacer((start) => this.paintFrame(start));
  /** Settles the window's flush after an echo, while idle (so the next echo does not wait for it). */
  private readonly settler = new FlushSettler(() => {
    if (!this.disposed) this.native.settleFlush(this.widget);
  });
  private readonly blink = new CursorBlink(() => this.repaintCursorRow());
  private readonly find: TerminalFind;
  private readonly newLines: NewLinesPill;
  private readonly pointer: PointerGestures;
  private readonly ime: ImeInput;
  /** The next paint covers every row (theme, font, size, bell, first paint). */
  private fullRedraw = true;
  /** Rows to paint at the next own repaint: changed in the model, or forced (blink, preedit). */
  private readonly pendingRows = new Set<number>();
  /** True while paintFrame's repaint() runs: only then may the paint event paint just pendingRows. */
  private ownRepaint = false;
  private bellFlash = false;
  /** The frame of the last model update, what any paint event shows. */
  private lastFrame: Frame | null = null;
  private focused = false;
  private disposed = false;

  constructor(
    private readonly session: TerminalSource,
    options: TerminalViewOptions = {},
  ) {
    this.theme = options.theme ?? darkTheme;
    const fontFamily = options.fontFamily ?? DEFAULT_FONT_FAMILY;
    const fontSize = options.fontSize ?? DEFAULT_FONT_SIZE;
    this.optionAsMeta = options.optionAsMeta ?? false;
    this.fonts = makeCellFonts(fontFamily, fontSize);
    this.grid = new GridPainter(this.fonts, this.theme);
    this.native = new NativeGrid(fontFamily, fontSize, this.fonts);
    this.widget = this.createWidget();
    this.find = new TerminalFind(this.widget, session, this.theme, () => this.redrawAll());
    this.newLines = new NewLinesPill(this.widget, this.theme, () => {
      this.session.scrollTo('bottom');
      this.widget.setFocus();
    });
    this.pointer = new PointerGestures(session, {
      widget: this.widget,
      cellAt: (x, y) => this.cellAt(x, y),
      devicePixelRatio: () => this.dpr,
      pasteClipboard: (mode) => this.pasteClipboard(mode),
      openLink: options.openLink ?? defaultOpenLink,
    });
    this.ime = new ImeInput(
      this.widget,
      session,
      () => this.cursorRect(),
      () => this.repaintCursorRow(),
    );
    this.listenToWidget();
    this.subscriptions.push(
      session.onRender(() => {
        this.pacer.changed();
        this.find.scheduleRefresh();
      }),
    );
    this.subscriptions.push(session.onBell(() => this.flashBell()));
    this.pacer.schedule();
  }

  // ---- public API ------------------------------------------------------------------------

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.grid.setTheme(theme);
    this.find.setTheme(theme);
    this.newLines.setTheme(theme);
    // The rows themselves did not change: repaint them all, no model rebuild.
    this.redrawAll();
  }

  setFont(family: string, size: number): void {
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

  /** Copies the selection to the clipboard (once the host sent its text); false when nothing is selected. */
  copySelection(): boolean {
    if (!this.session.hasSelection) return false;
    void this.session.selectionText().then((text) => {
      if (text && !this.disposed) QApplication.clipboard()?.setText(text, QClipboardMode.Clipboard);
    });
    return true;
  }

  pasteClipboard(mode: QClipboardMode = QClipboardMode.Clipboard): void {
    const text = QApplication.clipboard()?.text(mode) ?? '';
    if (text) this.session.paste(text);
  }

  /** Opens the find bar (or selects its query again); typing searches the whole scrollback. */
  openFind(): void {
    this.find.open();
  }

  closeFind(): void {
    this.find.close();
  }

  /** What the pill over a scrolled-back view says (null: at the bottom, no pill). */
  get newLinesText(): string | null {
    return this.newLines.text;
  }

  /** The matches of the current query and which one is current (for tests and diagnostics). */
  get findState(): { query: string; matches: readonly BufferRange[]; current: number } {
    return this.find.state;
  }

  /** Resizes the session to the grid that fits this many pixels (the widget's own size, or the
   *  size it will have once shown). */
  fitTo(width: number, height: number): void {
    const cols = Math.max(2, Math.floor(width / this.fonts.cellW));
    const rows = Math.max(1, Math.floor(height / this.fonts.cellH));
    // The source keeps the last size asked for: the session itself may be at another client's size.
    this.session.resize(cols, rows);
  }

  /** Frees the view's timers and listeners. The session stays alive (its owner disposes it). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subscriptions.splice(0)) s.dispose();
    for (const [type, fn] of this.listeners.splice(0)) this.widget.removeEventListener(type, fn);
    this.pacer.dispose();
    this.settler.dispose();
    this.blink.dispose();
    this.find.dispose();
    this.newLines.dispose();
    this._onFramePainted.dispose();
  }

  // ---- widget and events -----------------------------------------------------------------

  private createWidget(): QWidget {
    const w = new QWidget();
    w.setObjectName('terminalView');
    w.setFocusPolicy(FocusPolicy.StrongFocus);
    w.setAttribute(WidgetAttribute.WA_OpaquePaintEvent, true);
    w.setAttribute(WidgetAttribute.WA_InputMethodEnabled, true);
    w.setMouseTracking(true);
    w.setCursor(QtCursorShape.IBeamCursor);
    w.setMinimumSize(Math.ceil(this.fonts.cellW * 2), this.fonts.cellH);
    return w;
  }

  private listenToWidget(): void {
    const mouse = (e?: unknown): QMouseEvent => new QMouseEvent(e as never);
    this.listen(WidgetEventTypes.Paint, () => this.handlePaint());
    this.listen(WidgetEventTypes.Resize, () => this.handleResize());
    // Shown again (a switch to this tab): take the newest screen now.
    this.listen(WidgetEventTypes.Show, () => this.redrawAll());
    // Not a NodeGUI listener: keys come straight from Qt (NativeGrid.watchKeys); after dispose they
    // are Qt's again.
    this.native.watchKeys(this.widget, (key, modifiers, text) => !this.disposed && this.handleKey(key, modifiers, text));
    this.listen(WidgetEventTypes.MouseButtonPress, (e) => this.pointer.handlePress(mouse(e)));
    this.listen(WidgetEventTypes.MouseButtonDblClick, (e) => this.pointer.handlePress(mouse(e)));
    this.listen(WidgetEventTypes.MouseButtonRelease, (e) => this.pointer.handleRelease(mouse(e)));
    this.listen(WidgetEventTypes.MouseMove, (e) => this.pointer.handleMove(mouse(e)));
    this.listen(WidgetEventTypes.Wheel, (e) => this.pointer.handleWheel(new QWheelEvent(e as never)));
    this.listen(WidgetEventTypes.FocusIn, () => this.handleFocus(true));
    this.listen(WidgetEventTypes.FocusOut, () => this.handleFocus(false));
    this.listen(WidgetEventTypes.InputMethod, (e) => this.ime.handleInputMethod(new QInputMethodEvent(e as never)));
    this.listen(WidgetEventTypes.InputMethodQuery, (e) => this.ime.handleInputMethodQuery(new QInputMethodQueryEvent(e as never)));
  }

  private listen(type: WidgetEventTypes, fn: (e?: unknown) => void): void {
    this.widget.addEventListener(type, fn);
    this.listeners.push([type, fn]);
  }

  // ---- painting --------------------------------------------------------------------------

  /** The model changed size or fonts: rebuild it and repaint every row. */
  private invalidate(): void {
    this.fullRedraw = true;
    this.session.invalidate();
    this.pacer.schedule();
  }

  /** Repaints every row from the current model (theme, highlights, bell). */
  private redrawAll(): void {
    this.fullRedraw = true;
    this.pacer.schedule();
  }

  /** Repaints the cursor's row (blink, preedit, focus). */
  private repaintCursorRow(): void {
    const c = this.blink.cursor;
    if (c) this.pendingRows.add(c.y);
    this.pacer.schedule();
  }

  private paintFrame(start: number): void {
    traceLatency('paint');
    // A hidden view takes no frames: the host keeps marking what changes and sends it all in one
    // frame once the view is shown and asks (so a background flood costs the app nothing).
    if (this.widget.width() <= 0 || this.widget.height() <= 0 || !this.widget.isVisible()) return;
    const { frame, dirtyRows } = this.session.update();
    // The frame is acknowledged by then at the latest, even if painting threw: the host sends no
    // other until it is.
    try {
      this.paintTaken(start, frame, dirtyRows);
    } finally {
      this.session.painted();
    }
  }

  private paintTaken(start: number, frame: Frame, dirtyRows: number[]): void {
    this.lastFrame = frame;
    this.newLines.update(frame.scrollOffset, frame.scrollbackLength);
    const modelMs = performance.now() - start;
    this.blink.update(frame.cursor);
    for (const r of dirtyRows) this.pendingRows.add(r);
    const full = this.fullRedraw;
    const rows = full ? frame.rows : this.pendingRows.size;
    if (rows > 0) {
      this.ownRepaint = true;
      // Synchronous: the paint event runs (and is flushed) before repaint() returns, or not at
      // all while the widget is hidden; then pendingRows wait for the next frame or expose.
      // Only the band of the changed rows is repainted and flushed to the window system: a
      // whole-window flush costs a key's echo about a millisecond.
      this.settler.painting();
      try {
        if (full) this.widget.repaint();
        else this.repaintBand();
      } finally {
        this.ownRepaint = false;
      }
      this.settler.painted(this.pacer.urgent);
    }
    this._onFramePainted.fire({ start, paintMs: performance.now() - start, modelMs, rows, changed: dirtyRows.length, full });
  }

  /** Repaints the rows from the first pending one to the last, painted by the native painter in
   *  the paint event itself; if Qt's event covered more than that band, handlePaint had it. */
  private repaintBand(): void {
    // The flash covers the whole view; what the rows owe is painted when it ends (redrawAll).
    if (this.bellFlash) return;
    let first = Infinity;
    let last = -1;
    for (const r of this.pendingRows) {
      if (r < first) first = r;
      if (r > last) last = r;
    }
    const { cellH } = this.fonts;
    const ops = this.rowOps(this.lastFrame!, this.pendingRows, this.widget.width(), this.widget.height());
    if (this.native.paintRows(this.widget, first * cellH, (last - first + 1) * cellH, ops)) this.pendingRows.clear();
  }

  /** The painter's operations for these rows of the frame (or all of them), in this.ops. */
  private rowOps(frame: Frame, rows: Set<number> | 'all', width: number, height: number): GridOps {
    const ops = this.ops;
    ops.reset();
    const state = { focused: this.focused, blinkOn: this.blink.on, preedit: this.ime.preedit, highlights: this.find.highlights() };
    this.grid.paint(ops, frame, rows, width, height, state);
    return ops;
  }

  private handlePaint(): void {
    const width = this.widget.width();
    const height = this.widget.height();
    this.dpr = this.widget.devicePixelRatioF() || 1;
    let ops = this.ops;
    if (this.bellFlash || !this.lastFrame) {
      // Before the first frame there is nothing to show but the background (the first frame is
      // scheduled by the constructor).
      ops.reset();
      ops.fill(0, 0, width, height, this.bellFlash ? this.theme.foreground : this.theme.background);
    } else {
      // Anything but our own repaint (expose, resize, show) paints every row: what the window
      // system shows of the widget may be stale.
      const partial = this.ownRepaint && !this.fullRedraw;
      ops = this.rowOps(this.lastFrame, partial ? this.pendingRows : 'all', width, height);
      // A paint event of Qt's own (an expose, or a child like the find bar changing) may reach the
      // screen only inside its clip: what this view owes the screen stays owed until its own repaint.
      if (this.ownRepaint) {
        this.pendingRows.clear();
        this.fullRedraw = false;
      }
    }
    this.native.paintWidget(this.widget, ops);
  }

  private flashBell(): void {
    // Visual bell: the whole view in the foreground colour for a few frames.
    if (this.disposed || this.bellFlash) return;
    this.bellFlash = true;
    this.widget.repaint();
    setTimeout(() => {
      this.bellFlash = false;
      this.redrawAll();
    }, FRAME_INTERVAL_MS * BELL_FRAMES);
  }

  // ---- geometry --------------------------------------------------------------------------

  private handleResize(): void {
    this.find.place(this.widget.width());
    this.newLines.place();
    this.fitSessionToWidget();
    // A new grid size rebuilds the model by itself (the emulator's resize); a page shown again at
    // its size (a session switch) needs every row painted, not rebuilt.
    this.redrawAll();
  }

  private fitSessionToWidget(): void {
    this.fitTo(this.widget.width(), this.widget.height());
  }

  private cellAt(x: number, y: number): { col: number; row: number } {
    const col = Math.min(this.session.cols - 1, Math.max(0, Math.floor(x / this.fonts.cellW)));
    const row = Math.min(this.session.rows - 1, Math.max(0, Math.floor(y / this.fonts.cellH)));
    return { col, row };
  }

  /** The cursor's cell in widget pixels, where the input method opens its candidate window. */
  private cursorRect(): QRect {
    const c = this.blink.cursor ?? { x: 0, y: 0 };
    const { cellW, cellH } = this.fonts;
    return new QRect(this.grid.colX(c.x), c.y * cellH, Math.ceil(cellW), cellH);
  }

  // ---- keyboard and focus ----------------------------------------------------------------

  /** A key press from Qt: true when the view took it (Qt stops there: Tab moves no focus). */
  private handleKey(key: number, modifiers: number, text: string): boolean {
    traceLatency('key');
    const input = keyInputFromQt(key, modifiers, text, { macOS: isMac, optionAsMeta: this.optionAsMeta });
    if (!input) return false;
    const shortcut = shortcutFor(input, isMac);
    if (shortcut && this.runShortcut(shortcut)) return true;
    this.session.sendKey(input);
    this.pacer.expedite();
    if (this.session.hasSelection) this.session.clearSelection();
    return true;
  }

  /** Runs a shortcut; false lets the key through to the session (on macOS, Cmd+C with nothing
   *  selected). */
  private runShortcut(shortcut: TerminalShortcut): boolean {
    switch (shortcut) {
      case 'find':
        this.openFind();
        return true;
      case 'copy':
        return this.copySelection() || !isMac;
      case 'paste':
        this.pasteClipboard();
        return true;
      case 'pageUp':
      case 'pageDown':
        this.session.scrollLines((shortcut === 'pageUp' ? -1 : 1) * Math.max(1, this.session.rows - 1));
        return true;
      case 'scrollToTop':
        this.session.scrollTo('top');
        return true;
      case 'scrollToBottom':
        this.session.scrollTo('bottom');
        return true;
    }
  }

  private handleFocus(focused: boolean): void {
    this.focused = focused;
    this.session.sendFocus(focused);
    this.blink.focusChanged(focused);
    this.blink.on = true;
    this.repaintCursorRow();
  }
}
