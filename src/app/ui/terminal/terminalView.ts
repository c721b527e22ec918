// The terminal view: paints a Session's render model with QPainter and turns Qt input (keys,
// mouse, wheel, IME, clipboard, focus, resize) into session input. Rows are painted into an
// offscreen image as they change, at most once per frame; the paint event blits the image.
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import {
  CursorShape as QtCursorShape,
  FocusPolicy,
  QApplication,
  QClipboardMode,
  QColor,
  QFont,
  QFontMetrics,
  QFontWeight,
  QImage,
  QImageFormat,
  QInputMethodEvent,
  QInputMethodQueryEvent,
  QKeyEvent,
  QMouseEvent,
  QPainter,
  QPen,
  QRect,
  QResizeEvent,
  QWheelEvent,
  QWidget,
  WidgetAttribute,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import {
  darkTheme, dimColor, Emitter, findLinks, resolveColor, type CursorState, type Event, type Frame, type KeyInput,
  type MouseButton, type RenderRow, type Run, type Session, type Theme, type Disposable, wcwidth,
} from '../../../terminal';
import { boxShapes, isBoxChar } from './boxDrawing';
import { keyInputFromQt, QtMod } from './keyMapping';

export interface TerminalViewOptions {
  fontFamily?: string;
  /** Points. */
  fontSize?: number;
  theme?: Theme;
  /** macOS: Option sends ESC-prefixed keys instead of composing characters. Default true. */
  optionAsMeta?: boolean;
  /** Opens a link the user Cmd/Ctrl-clicked; default `open` (macOS) or `xdg-open`. */
  openLink?: (url: string) => void;
}

export interface FrameTiming {
  /** performance.now() when the frame started. */
  start: number;
  /** Model update + painting rows + blit, in ms. */
  paintMs: number;
  /** Rows repainted. */
  rows: number;
  full: boolean;
}

const isMac = process.platform === 'darwin';
export const DEFAULT_FONT_FAMILY = isMac ? 'Menlo' : 'DejaVu Sans Mono';
/** Points: the size macOS Terminal and most Linux terminals start with. */
export const DEFAULT_FONT_SIZE = isMac ? 13 : 11;
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
/** Qt::MouseButton bits. */
const QT_LEFT = 1;
const QT_RIGHT = 2;
const QT_MIDDLE = 4;

interface Fonts {
  regular: QFont;
  bold: QFont;
  italic: QFont;
  boldItalic: QFont;
  cellW: number;
  cellH: number;
  ascent: number;
  underlinePos: number;
  strikePos: number;
  lineWidth: number;
}

export class TerminalView implements Disposable {
  readonly widget: QWidget;
  private readonly _onFramePainted = new Emitter<FrameTiming>();
  /** Fires after each painted frame, with timings (for benches and diagnostics). */
  readonly onFramePainted: Event<FrameTiming> = this._onFramePainted.event;

  private theme: Theme;
  private fonts!: Fonts;
  private fontFamily: string;
  private fontSize: number;
  private readonly optionAsMeta: boolean;
  private readonly openLink: (url: string) => void;
  private image: QImage | null = null;
  private imageW = 0;
  private imageH = 0;
  private dpr = 1;
  private readonly colors = new Map<number, QColor>();
  private readonly pen = new QPen();
  private readonly subscriptions: Disposable[] = [];
  private readonly listeners: Array<[WidgetEventTypes, (e?: unknown) => void]> = [];
  private frameTimer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  private blinkTimer: NodeJS.Timeout | null = null;
  private lastFrameAt = 0;
  private fullRedraw = true;
  /** Rows to repaint regardless of the model (cursor blink, preedit). */
  private readonly forcedRows = new Set<number>();
  /** Rows painted into the image since the last blit; null = blit everything. */
  private pendingBlit: Set<number> | null = null;
  private ownRepaint = false;
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

  constructor(private readonly session: Session, options: TerminalViewOptions = {}) {
    this.theme = options.theme ?? darkTheme;
    this.fontFamily = options.fontFamily ?? DEFAULT_FONT_FAMILY;
    this.fontSize = options.fontSize ?? DEFAULT_FONT_SIZE;
    this.optionAsMeta = options.optionAsMeta ?? true;
    this.openLink = options.openLink ?? defaultOpenLink;
    this.fonts = makeFonts(this.fontFamily, this.fontSize);

    const w = new QWidget();
    this.widget = w;
    w.setObjectName('terminalView');
    w.setFocusPolicy(FocusPolicy.StrongFocus);
    w.setAttribute(WidgetAttribute.WA_OpaquePaintEvent, true);
    w.setAttribute(WidgetAttribute.WA_InputMethodEnabled, true);
    w.setMouseTracking(true);
    w.setCursor(QtCursorShape.IBeamCursor);
    w.setMinimumSize(this.fonts.cellW * 2, this.fonts.cellH);

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

    this.subscriptions.push(session.onRender(() => this.scheduleFrame()));
    this.subscriptions.push(session.onBell(() => this.flashBell()));
    this.scheduleFrame();
  }

  // ---- public API ------------------------------------------------------------------------

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.colors.clear();
    this.invalidate();
  }

  setFont(family: string, size: number): void {
    this.fontFamily = family;
    this.fontSize = size;
    this.fonts = makeFonts(family, size);
    this.widget.setMinimumSize(this.fonts.cellW * 2, this.fonts.cellH);
    this.fitSessionToWidget();
    this.invalidate();
  }

  focus(): void {
    this.widget.setFocus();
  }

  /** Cell size in logical pixels. */
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

  /** Frees the view's timers, listeners and image. The session stays alive (its owner disposes it). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subscriptions.splice(0)) s.dispose();
    for (const [type, fn] of this.listeners.splice(0)) this.widget.removeEventListener(type, fn);
    this.cancelFrame();
    if (this.blinkTimer) clearInterval(this.blinkTimer);
    this.blinkTimer = null;
    this._onFramePainted.dispose();
    this.image = null;
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
    if (!this.ensureImage()) return;
    const { frame, dirtyRows } = this.session.renderModel.update();
    this.updateBlink(frame.cursor);
    const rows = new Set(dirtyRows);
    for (const r of this.forcedRows) rows.add(r);
    this.forcedRows.clear();
    const full = this.fullRedraw;
    if (full) for (let r = 0; r < frame.rows; r++) rows.add(r);
    this.fullRedraw = false;
    if (rows.size > 0) {
      const painter = new QPainter(this.image!);
      try {
        if (full) painter.fillRect(0, 0, this.imageW, this.imageH, this.color(this.theme.background));
        for (const r of rows) if (r >= 0 && r < frame.rows) this.paintRow(painter, frame, r);
      } finally {
        painter.end();
      }
      if (full || this.pendingBlit === null) this.pendingBlit = null;
      else for (const r of rows) this.pendingBlit.add(r);
      this.ownRepaint = true;
      this.widget.repaint();
      this.ownRepaint = false;
    }
    this._onFramePainted.fire({ start, paintMs: performance.now() - start, rows: rows.size, full });
  }

  private ensureImage(): boolean {
    const w = this.widget.width();
    const h = this.widget.height();
    if (w <= 0 || h <= 0) return false;
    const dpr = this.widget.devicePixelRatioF() || 1;
    if (!this.image || w !== this.imageW || h !== this.imageH || dpr !== this.dpr) {
      this.image = new QImage(Math.ceil(w * dpr), Math.ceil(h * dpr), QImageFormat.RGB32);
      this.image.setDevicePixelRatio(dpr);
      this.imageW = w;
      this.imageH = h;
      this.dpr = dpr;
      this.fullRedraw = true;
      this.pendingBlit = null;
    }
    return true;
  }

  private handlePaint(): void {
    const painter = new QPainter(this.widget);
    try {
      if (!this.image) {
        painter.fillRect(0, 0, this.widget.width(), this.widget.height(), this.color(this.theme.background));
        this.scheduleFrame();
        return;
      }
      const strips = this.ownRepaint ? this.pendingBlit : null;
      if (strips) {
        // Only the rows painted since the last blit; WA_OpaquePaintEvent keeps the rest.
        const ch = this.fonts.cellH;
        for (const r of strips) {
          painter.drawImage(0, r * ch, this.image, 0, Math.round(r * ch * this.dpr), Math.ceil(this.imageW * this.dpr), Math.ceil(ch * this.dpr));
        }
      } else {
        painter.drawImage(0, 0, this.image);
      }
      this.pendingBlit = new Set();
    } finally {
      painter.end();
    }
  }

  // ---- painting --------------------------------------------------------------------------

  private color(rgb: number): QColor {
    let c = this.colors.get(rgb);
    if (!c) {
      c = new QColor((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
      this.colors.set(rgb, c);
    }
    return c;
  }

  private runColors(run: Run): { fg: number; bg: number; bgIsDefault: boolean } {
    const t = this.theme;
    let fg = resolveColor(t, run.fg, 'fg');
    let bg = resolveColor(t, run.bg, 'bg');
    // Bold text in one of the 8 base colours shows the bright variant, as xterm does.
    if (run.bold && run.fg.kind === 'palette' && run.fg.index < 8) fg = resolveColor(t, { kind: 'palette', index: run.fg.index + 8 }, 'fg');
    let bgIsDefault = run.bg.kind === 'default';
    if (run.inverse) {
      [fg, bg] = [bg, fg];
      bgIsDefault = false;
    }
    if (run.dim) fg = dimColor(fg, bg);
    if (run.invisible) fg = bg;
    return { fg, bg, bgIsDefault };
  }

  private fontFor(run: Run): QFont {
    const f = this.fonts;
    if (run.bold) return run.italic ? f.boldItalic : f.bold;
    return run.italic ? f.italic : f.regular;
  }

  private paintRow(p: QPainter, frame: Frame, r: number): void {
    const { cellW, cellH, ascent } = this.fonts;
    const y = r * cellH;
    const row: RenderRow = frame.lines[r]!;
    p.fillRect(0, y, this.imageW, cellH, this.color(this.theme.background));
    for (const run of row.runs) {
      const { bg, bgIsDefault } = this.runColors(run);
      if (!bgIsDefault) p.fillRect(run.col * cellW, y, run.cells * cellW, cellH, this.color(bg));
    }
    for (const s of frame.selection) {
      if (s.row === r) p.fillRect(s.start * cellW, y, (s.end - s.start) * cellW, cellH, this.color(this.theme.selectionBackground));
    }
    let font: QFont | null = null;
    for (const run of row.runs) {
      const { fg, bg } = this.runColors(run);
      const runFont = this.fontFor(run);
      if (runFont !== font) {
        p.setFont(runFont);
        font = runFont;
      }
      p.setPen(this.color(fg));
      this.paintRunText(p, run, y, ascent, fg, bg);
      this.paintDecorations(p, run, y, fg);
    }
    const cur = frame.cursor;
    if (cur.y === r && cur.visible && (this.blinkOn || !cur.blinking || !this.focused)) this.paintCursor(p, frame, cur);
    if (cur.y === r && this.preedit) this.paintPreedit(p, cur);
  }

  private paintRunText(p: QPainter, run: Run, y: number, ascent: number, fg: number, bg: number): void {
    const { cellW, cellH } = this.fonts;
    const chars = run.chars ?? (run.cellWidth === 1 && isPlainAscii(run.text) ? null : [...run.text]);
    if (!chars) {
      // The common case: one drawText for the whole run (monospace ASCII advances = cellW).
      if (run.text.trim()) p.drawText(run.col * cellW, y + ascent, run.text);
      return;
    }
    let x = run.col * cellW;
    let ascii = '';
    let asciiX = x;
    const flushAscii = (): void => {
      if (ascii.trim()) p.drawText(asciiX, y + ascent, ascii);
      ascii = '';
    };
    for (const ch of chars) {
      const cp = ch.codePointAt(0)!;
      const w = run.cellWidth * cellW;
      if (ch.length === 1 && cp < 0x7f && run.cellWidth === 1) {
        if (!ascii) asciiX = x;
        ascii += ch;
      } else {
        flushAscii();
        if (isBoxChar(cp) && ch.length === 1) this.paintBox(p, cp, x, y, w, cellH, fg, bg);
        else if (ch.trim()) p.drawText(x, y + ascent, ch);
      }
      x += w;
    }
    flushAscii();
  }

  private paintBox(p: QPainter, cp: number, x: number, y: number, w: number, h: number, fg: number, bg: number): void {
    const shapes = boxShapes(cp, w, h);
    if (!shapes) return;
    for (const s of shapes) {
      if (s.kind === 'rect') {
        const rgb = s.alpha === undefined ? fg : blend(fg, bg, s.alpha);
        p.fillRect(x + s.x, y + s.y, s.w, s.h, this.color(rgb));
      } else {
        this.pen.setColor(this.color(fg));
        this.pen.setWidth(s.width);
        p.setPen(this.pen);
        if (s.kind === 'line') p.drawLine(x + s.x1, y + s.y1, x + s.x2, y + s.y2);
        else p.drawArc(x + s.cx - s.r, y + s.cy - s.r, s.r * 2, s.r * 2, s.startDeg * 16, s.spanDeg * 16);
        p.setPen(this.color(fg));
      }
    }
  }

  private paintDecorations(p: QPainter, run: Run, y: number, fg: number): void {
    const { cellW, cellH, underlinePos, strikePos, lineWidth, ascent } = this.fonts;
    const x0 = run.col * cellW;
    const width = run.cells * cellW;
    const c = this.color(fg);
    const uy = Math.min(y + cellH - lineWidth, y + ascent + underlinePos);
    // OSC 8 links without an underline of their own get a dotted one, as in iTerm2 and kitty.
    const underline = run.underline === 'none' && run.link ? 'dotted' : run.underline;
    switch (underline) {
      case 'none':
        break;
      case 'double':
        p.fillRect(x0, uy - lineWidth, width, lineWidth, c);
        p.fillRect(x0, Math.min(y + cellH - lineWidth, uy + lineWidth), width, lineWidth, c);
        break;
      case 'curly': {
        // A zigzag two pixels high with a period of about half a cell.
        const step = Math.max(2, Math.floor(cellW / 4));
        this.pen.setColor(c);
        this.pen.setWidth(lineWidth);
        p.setPen(this.pen);
        for (let x = x0, up = true; x < x0 + width; x += step, up = !up) {
          p.drawLine(x, up ? uy : uy - 2, Math.min(x + step, x0 + width), up ? uy - 2 : uy);
        }
        p.setPen(c);
        break;
      }
      case 'dotted':
        for (let x = x0; x < x0 + width; x += lineWidth * 2) p.fillRect(x, uy, lineWidth, lineWidth, c);
        break;
      case 'dashed':
        for (let x = x0; x < x0 + width; x += cellW) p.fillRect(x, uy, Math.ceil(cellW / 2), lineWidth, c);
        break;
      default:
        p.fillRect(x0, uy, width, lineWidth, c);
    }
    if (run.strikethrough) p.fillRect(x0, y + ascent - strikePos, width, lineWidth, c);
    if (run.overline) p.fillRect(x0, y, width, lineWidth, c);
  }

  private paintCursor(p: QPainter, frame: Frame, cur: CursorState): void {
    const { cellW, cellH, ascent } = this.fonts;
    const x = cur.x * cellW;
    const y = cur.y * cellH;
    const run = frame.lines[cur.y]?.runs.find((r) => cur.x >= r.col && cur.x < r.col + r.cells);
    const width = run?.cellWidth === 2 ? cellW * 2 : cellW;
    const color = this.color(this.theme.cursor);
    // Bars and underlines scale with the display so they stay visible on HiDPI.
    const thin = Math.max(2, Math.round(this.fonts.lineWidth * 2));
    if (!this.focused) {
      // Hollow block when the view does not have focus.
      p.fillRect(x, y, width, 1, color);
      p.fillRect(x, y + cellH - 1, width, 1, color);
      p.fillRect(x, y, 1, cellH, color);
      p.fillRect(x + width - 1, y, 1, cellH, color);
      return;
    }
    if (cur.shape === 'bar') {
      p.fillRect(x, y, thin, cellH, color);
    } else if (cur.shape === 'underline') {
      p.fillRect(x, y + cellH - thin, width, thin, color);
    } else {
      p.fillRect(x, y, width, cellH, color);
      if (run) {
        const i = (cur.x - run.col) / run.cellWidth;
        const ch = run.chars ? run.chars[i] : run.text[i];
        if (ch && ch.trim()) {
          p.setFont(this.fontFor(run));
          p.setPen(this.color(this.theme.cursorText));
          const cp = ch.codePointAt(0)!;
          if (isBoxChar(cp)) this.paintBox(p, cp, x, y, width, cellH, this.theme.cursorText, this.theme.cursor);
          else p.drawText(x, y + ascent, ch);
        }
      }
    }
  }

  private paintPreedit(p: QPainter, cur: CursorState): void {
    const { cellW, cellH, ascent } = this.fonts;
    const x = cur.x * cellW;
    const y = cur.y * cellH;
    const cells = [...this.preedit].reduce((n, ch) => n + wcwidth(ch.codePointAt(0)!), 0);
    p.fillRect(x, y, cells * cellW, cellH, this.color(this.theme.background));
    p.setFont(this.fonts.regular);
    p.setPen(this.color(this.theme.foreground));
    p.drawText(x, y + ascent, this.preedit);
    p.fillRect(x, y + cellH - 1, cells * cellW, 1, this.color(this.theme.foreground));
  }

  private updateBlink(cur: CursorState): void {
    const wantBlink = cur.blinking && cur.visible && this.focused;
    if (wantBlink && !this.blinkTimer) {
      this.blinkTimer = setInterval(() => {
        this.blinkOn = !this.blinkOn;
        const c = this.lastCursor;
        if (c) this.forcedRows.add(c.y);
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
    // Visual bell: invert the whole view for one frame.
    if (!this.image || this.disposed) return;
    const painter = new QPainter(this.image);
    try {
      painter.fillRect(0, 0, this.imageW, this.imageH, this.color(this.theme.foreground));
    } finally {
      painter.end();
    }
    this.pendingBlit = null;
    this.widget.repaint();
    this.fullRedraw = true;
    setTimeout(() => this.scheduleFrame(), FRAME_INTERVAL_MS * 6);
  }

  // ---- geometry --------------------------------------------------------------------------

  private handleResize(_e: QResizeEvent): void {
    this.fitSessionToWidget();
    this.invalidate();
  }

  private fitSessionToWidget(): void {
    const cols = Math.max(2, Math.floor(this.widget.width() / this.fonts.cellW));
    const rows = Math.max(1, Math.floor(this.widget.height() / this.fonts.cellH));
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

  /** Copy/paste and scrollback keys: Cmd on macOS, Ctrl+Shift elsewhere. */
  private handleShortcut(k: KeyInput): boolean {
    const command = isMac ? k.meta && !k.ctrl : k.ctrl && k.shift && !k.meta;
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
      else this.session.scrollLines(-this.session.emulator.buffer.active.length);
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
      if (this.lastCursor) this.forcedRows.add(this.lastCursor.y);
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
      e.setValue(IM_CURSOR_RECTANGLE, new QRect(c.x * cellW, c.y * cellH, cellW, cellH));
      this.widget.setEventProcessed(true);
    }
  }

  private handleFocus(focused: boolean): void {
    this.focused = focused;
    this.session.sendFocus(focused);
    if (this.lastCursor) this.forcedRows.add(this.lastCursor.y);
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
    if (this.session.emulator.buffer.active.type === 'alternate') {
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

function makeFonts(family: string, size: number): Fonts {
  const regular = new QFont(family, size);
  const bold = new QFont(family, size, QFontWeight.Bold);
  const italic = new QFont(family, size, QFontWeight.Normal, true);
  const boldItalic = new QFont(family, size, QFontWeight.Bold, true);
  const fm = new QFontMetrics(regular);
  const cellW = Math.max(1, fm.horizontalAdvance('M'));
  const cellH = Math.max(1, fm.lineSpacing());
  return {
    regular, bold, italic, boldItalic, cellW, cellH, ascent: fm.ascent(),
    underlinePos: Math.max(1, fm.underlinePos()), strikePos: fm.strikeOutPos(), lineWidth: Math.max(1, fm.lineWidth()),
  };
}

function qtButton(b: number): MouseButton {
  if (b & QT_LEFT) return 'left';
  if (b & QT_MIDDLE) return 'middle';
  if (b & QT_RIGHT) return 'right';
  return 'none';
}

function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x7f) return false;
  return true;
}

function blend(fg: number, bg: number, alpha: number): number {
  const mix = (s: number): number => Math.round(((fg >> s) & 0xff) * alpha + ((bg >> s) & 0xff) * (1 - alpha));
  return (mix(16) << 16) | (mix(8) << 8) | mix(0);
}

function defaultOpenLink(url: string): void {
  if (!/^(https?|file|mailto):/i.test(url)) return;
  const child = spawn(isMac ? 'open' : 'xdg-open', [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => undefined);
  child.unref();
}
