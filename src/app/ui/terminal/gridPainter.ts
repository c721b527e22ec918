// Paints render-model rows with QPainter on the cell grid. Column x positions use the font's own
// (fractional) advance, so text laid out by Qt lands exactly on its cells. For speed, text is
// batched: per row, every glyph of one font and colour goes into one drawText (gaps as spaces),
// backgrounds of neighbouring runs merge into one fill, and box drawing is geometry.
import { QColor, QFont, QFontMetrics, QFontMetricsF, QFontWeight, QPainter, QPen } from '@nodegui/nodegui';
import { dimColor, resolveColor, wcwidth, type CursorState, type Frame, type Run, type Theme } from '../../../terminal';
import { boxShapes, isBoxChar } from './boxDrawing';

export interface CellFonts {
  regular: QFont;
  bold: QFont;
  italic: QFont;
  boldItalic: QFont;
  /** Logical pixels per column: the font's advance, usually fractional (e.g. 9.0156). */
  cellW: number;
  /** Logical pixels per row (whole pixels, so rows never blend into each other). */
  cellH: number;
  ascent: number;
  underlinePos: number;
  strikePos: number;
  lineWidth: number;
}

export function makeCellFonts(family: string, size: number): CellFonts {
  const regular = new QFont(family, size);
  const bold = new QFont(family, size, QFontWeight.Bold);
  const italic = new QFont(family, size, QFontWeight.Normal, true);
  const boldItalic = new QFont(family, size, QFontWeight.Bold, true);
  const fm = new QFontMetrics(regular);
  // The integer advance of QFontMetrics is rounded (9 for 9.0156): text drawn by Qt drifts
  // off a grid built on it by a pixel every ~50 columns. The real advance keeps them together.
  const cellW = Math.max(1, new QFontMetricsF(regular).horizontalAdvance('M'));
  const cellH = Math.max(1, fm.lineSpacing());
  return {
    regular, bold, italic, boldItalic, cellW, cellH, ascent: fm.ascent(),
    underlinePos: Math.max(1, fm.underlinePos()), strikePos: fm.strikeOutPos(), lineWidth: Math.max(1, fm.lineWidth()),
  };
}

/** Extra backgrounds under the text of a viewport row, columns [start, end) (find matches). */
export interface Highlight {
  row: number;
  start: number;
  end: number;
  /** The current match: painted stronger, text in the background colour. */
  current: boolean;
}

export interface PaintState {
  focused: boolean;
  /** False during the "off" half of a blinking cursor. */
  blinkOn: boolean;
  /** IME composition shown at the cursor. */
  preedit: string;
  highlights: readonly Highlight[];
}

/** Columns of spaces worth drawing inside one drawText instead of starting another: a space costs
 *  Qt ~0.1 µs to lay out, a drawText call ~2 µs (measured under Xvfb). */
const MAX_GAP = 20;
/** Fractional pixels two advances may differ by and still count as one cell. */
const ADVANCE_EPSILON = 0.01;
/** Font indices: regular, bold, italic, bold italic. */
const FONT_SLOTS = 4;

/** Text of one font and colour, batched over a frame. Each line is drawn with one drawText. */
interface TextGroup {
  font: number;
  fg: number;
  /** Flat [col, row, text] triples. */
  lines: Array<number | string>;
  /** The line being extended (same row, within MAX_GAP). */
  row: number;
  col: number;
  end: number;
  text: string;
}

interface RunStyle {
  fg: number;
  bg: number;
  bgIsDefault: boolean;
  font: number;
}

export class GridPainter {
  private readonly colors = new Map<number, QColor>();
  private readonly pen = new QPen();
  /** Whether a BMP code point outside ASCII advances exactly one cell in the regular font. */
  private readonly oneCell = new Map<number, boolean>();
  private metricsF: QFontMetricsF;
  private fontList: QFont[];

  constructor(
    private fonts: CellFonts,
    private theme: Theme,
  ) {
    this.metricsF = new QFontMetricsF(fonts.regular);
    this.fontList = [fonts.regular, fonts.bold, fonts.italic, fonts.boldItalic];
  }

  get cellFonts(): CellFonts {
    return this.fonts;
  }

  setFonts(fonts: CellFonts): void {
    this.fonts = fonts;
    this.metricsF = new QFontMetricsF(fonts.regular);
    this.fontList = [fonts.regular, fonts.bold, fonts.italic, fonts.boldItalic];
    this.oneCell.clear();
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.colors.clear();
  }

  /** The pixel x of a column's left edge (cell edges are whole pixels; text uses col × cellW). */
  colX(col: number): number {
    return Math.round(col * this.fonts.cellW);
  }

  color(rgb: number): QColor {
    let c = this.colors.get(rgb);
    if (!c) {
      c = new QColor((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
      this.colors.set(rgb, c);
    }
    return c;
  }

  /**
   * Paints `rows` of the frame (or all of it, with the margins right and below the grid) onto a
   * painter whose device is `width`×`height` logical pixels.
   */
  paint(p: QPainter, frame: Frame, rows: Iterable<number> | 'all', width: number, height: number, state: PaintState): void {
    const { cellH } = this.fonts;
    const background = this.color(this.theme.background);
    const all = rows === 'all';
    if (all) p.fillRect(0, 0, width, height, background);
    const groups = new Map<number, TextGroup>();
    const painted: number[] = [];
    for (const r of all ? range(frame.rows) : rows) {
      if (r < 0 || r >= frame.rows) continue;
      painted.push(r);
      if (!all) p.fillRect(0, r * cellH, width, cellH, background);
      const runs = frame.lines[r]!.runs;
      const styles = runs.map((run) => this.style(run));
      this.paintRowBackground(p, frame, r, styles, state);
      this.collectRowText(p, runs, styles, r, groups, state);
    }
    this.drawText(p, groups);
    const cur = frame.cursor;
    if (painted.includes(cur.y)) {
      if (cur.visible && (state.blinkOn || !cur.blinking || !state.focused)) this.paintCursor(p, frame, cur, state.focused);
      if (state.preedit) this.paintPreedit(p, cur, state.preedit);
    }
  }

  private style(run: Run): RunStyle {
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
    return { fg, bg, bgIsDefault, font: (run.bold ? 1 : 0) + (run.italic ? 2 : 0) };
  }

  private fill(p: QPainter, y: number, startCol: number, endCol: number, rgb: number): void {
    const x0 = this.colX(startCol);
    p.fillRect(x0, y, this.colX(endCol) - x0, this.fonts.cellH, this.color(rgb));
  }

  private paintRowBackground(p: QPainter, frame: Frame, r: number, styles: RunStyle[], state: PaintState): void {
    const y = r * this.fonts.cellH;
    const runs = frame.lines[r]!.runs;
    // Neighbouring runs with the same background become one fill.
    let spanStart = -1;
    let spanEnd = -1;
    let spanColor = -1;
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      const s = styles[i]!;
      if (s.bgIsDefault) continue;
      if (s.bg === spanColor && run.col === spanEnd) {
        spanEnd = run.col + run.cells;
        continue;
      }
      if (spanStart >= 0) this.fill(p, y, spanStart, spanEnd, spanColor);
      spanStart = run.col;
      spanEnd = run.col + run.cells;
      spanColor = s.bg;
    }
    if (spanStart >= 0) this.fill(p, y, spanStart, spanEnd, spanColor);
    for (const s of frame.selection) if (s.row === r) this.fill(p, y, s.start, s.end, this.theme.selectionBackground);
    for (const h of state.highlights) {
      if (h.row === r) this.fill(p, y, h.start, h.end, h.current ? this.currentMatchBackground() : this.matchBackground());
    }
  }

  /** Find matches: the theme's yellow, full for the current one and faint for the others. */
  private currentMatchBackground(): number {
    return this.theme.ansi[3]!;
  }

  private matchBackground(): number {
    return blend(this.theme.ansi[3]!, this.theme.background, 0.35);
  }

  private currentMatchAt(state: PaintState, r: number, col: number): boolean {
    for (const h of state.highlights) if (h.current && h.row === r && col >= h.start && col < h.end) return true;
    return false;
  }

  /** Queues the row's glyphs into per-font-and-colour groups; paints box drawing and decorations. */
  private collectRowText(p: QPainter, runs: readonly Run[], styles: RunStyle[], r: number, groups: Map<number, TextGroup>, state: PaintState): void {
    const cellH = this.fonts.cellH;
    const y = r * cellH;
    const hasCurrent = state.highlights.some((h) => h.current && h.row === r);
    const background = this.theme.background;
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      const s = styles[i]!;
      if (run.underline !== 'none' || run.link || run.strikethrough || run.overline) this.paintDecorations(p, run, y, s.fg);
      if (run.invisible) continue;
      const chars = run.chars ?? (run.cellWidth === 1 && isPlainAscii(run.text) ? null : [...run.text]);
      if (!chars) {
        if (hasCurrent) this.queueSplitByMatch(groups, s.font, s.fg, r, run.col, run.text, state);
        else this.queue(groups, s.font, s.fg, r, run.col, run.text);
        continue;
      }
      let col = run.col;
      let text = '';
      let textCol = col;
      let textFg = s.fg;
      const w = run.cellWidth;
      for (const ch of chars) {
        const cp = ch.codePointAt(0)!;
        // Text inside the current find match is drawn in the background colour, on yellow.
        const fg = hasCurrent && this.currentMatchAt(state, r, col) ? background : s.fg;
        if (w === 1 && ch.length === 1 && this.isOneCell(cp)) {
          if (text && fg !== textFg) {
            this.queue(groups, s.font, textFg, r, textCol, text);
            text = '';
          }
          if (!text) {
            textCol = col;
            textFg = fg;
          }
          text += ch;
        } else {
          if (text) this.queue(groups, s.font, textFg, r, textCol, text);
          text = '';
          if (ch.length === 1 && isBoxChar(cp)) {
            const x0 = this.colX(col);
            this.paintBox(p, cp, x0, y, this.colX(col + w) - x0, cellH, fg, s.bg);
          } else if (ch.trim()) {
            // Wide, fallback or combined glyphs: one call each, placed on their own cells.
            this.queueSingle(groups, s.font, fg, r, col, ch);
          }
        }
        col += w;
      }
      if (text) this.queue(groups, s.font, textFg, r, textCol, text);
    }
  }

  /** An ASCII run that the current match covers in part: the covered cells get their own colour. */
  private queueSplitByMatch(groups: Map<number, TextGroup>, font: number, fg: number, r: number, col: number, text: string, state: PaintState): void {
    let start = 0;
    let inMatch = this.currentMatchAt(state, r, col);
    for (let i = 1; i <= text.length; i++) {
      const m = i < text.length ? this.currentMatchAt(state, r, col + i) : !inMatch;
      if (m !== inMatch) {
        this.queue(groups, font, inMatch ? this.theme.background : fg, r, col + start, text.slice(start, i));
        start = i;
        inMatch = m;
      }
    }
  }

  private group(groups: Map<number, TextGroup>, font: number, fg: number): TextGroup {
    const key = fg * FONT_SLOTS + font;
    let g = groups.get(key);
    if (!g) {
      g = { font, fg, lines: [], row: -1, col: 0, end: 0, text: '' };
      groups.set(key, g);
    }
    return g;
  }

  private queue(groups: Map<number, TextGroup>, font: number, fg: number, row: number, col: number, text: string): void {
    // Leading and trailing blanks paint nothing.
    let a = 0;
    let b = text.length;
    while (a < b && text.charCodeAt(a) === 32) a++;
    while (b > a && text.charCodeAt(b - 1) === 32) b--;
    if (a === b) return;
    if (a > 0 || b < text.length) {
      text = text.slice(a, b);
      col += a;
    }
    const g = this.group(groups, font, fg);
    if (g.row === row && col >= g.end && col - g.end <= MAX_GAP) {
      g.text += ' '.repeat(col - g.end) + text;
      g.end = col + text.length;
      return;
    }
    if (g.row >= 0) g.lines.push(g.col, g.row, g.text);
    g.row = row;
    g.col = col;
    g.end = col + text.length;
    g.text = text;
  }

  private queueSingle(groups: Map<number, TextGroup>, font: number, fg: number, row: number, col: number, ch: string): void {
    this.group(groups, font, fg).lines.push(col, row, ch);
  }

  private drawText(p: QPainter, groups: Map<number, TextGroup>): void {
    const { cellW, cellH, ascent } = this.fonts;
    let font = -1;
    for (const g of groups.values()) {
      if (g.row >= 0) g.lines.push(g.col, g.row, g.text);
      if (g.font !== font) {
        p.setFont(this.fontList[g.font]!);
        font = g.font;
      }
      p.setPen(this.color(g.fg));
      const lines = g.lines;
      for (let i = 0; i < lines.length; i += 3) {
        p.drawTextF((lines[i] as number) * cellW, (lines[i + 1] as number) * cellH + ascent, lines[i + 2] as string);
      }
    }
  }

  private isOneCell(cp: number): boolean {
    if (cp >= 0x20 && cp < 0x7f) return true;
    let ok = this.oneCell.get(cp);
    if (ok === undefined) {
      // Right-to-left letters would be reordered by Qt's bidi pass inside a batched string, and
      // anything the font draws wider or narrower than a cell would push its neighbours off.
      ok = !isRtl(cp) && wcwidth(cp) === 1 && !isBoxChar(cp)
        && Math.abs(this.metricsF.horizontalAdvance(String.fromCharCode(cp)) - this.fonts.cellW) < ADVANCE_EPSILON;
      this.oneCell.set(cp, ok);
    }
    return ok;
  }

  paintBox(p: QPainter, cp: number, x: number, y: number, w: number, h: number, fg: number, bg: number): void {
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
      }
    }
  }

  private paintDecorations(p: QPainter, run: Run, y: number, fg: number): void {
    const { cellW, cellH, underlinePos, strikePos, lineWidth, ascent } = this.fonts;
    const x0 = this.colX(run.col);
    const width = this.colX(run.col + run.cells) - x0;
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
        break;
      }
      case 'dotted':
        for (let x = x0; x < x0 + width; x += lineWidth * 2) p.fillRect(x, uy, lineWidth, lineWidth, c);
        break;
      case 'dashed':
        for (let i = 0; i < run.cells; i++) {
          const x = this.colX(run.col + i);
          p.fillRect(x, uy, Math.ceil(cellW / 2), lineWidth, c);
        }
        break;
      default:
        p.fillRect(x0, uy, width, lineWidth, c);
    }
    if (run.strikethrough) p.fillRect(x0, y + ascent - strikePos, width, lineWidth, c);
    if (run.overline) p.fillRect(x0, y, width, lineWidth, c);
  }

  private paintCursor(p: QPainter, frame: Frame, cur: CursorState, focused: boolean): void {
    const { cellH, ascent, cellW } = this.fonts;
    const run = frame.lines[cur.y]?.runs.find((r) => cur.x >= r.col && cur.x < r.col + r.cells);
    const cells = run?.cellWidth === 2 ? 2 : 1;
    const x = this.colX(cur.x);
    const y = cur.y * cellH;
    const width = this.colX(cur.x + cells) - x;
    const color = this.color(this.theme.cursor);
    // Bars and underlines scale with the display so they stay visible on HiDPI.
    const thin = Math.max(2, Math.round(this.fonts.lineWidth * 2));
    if (!focused) {
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
      if (!run) return;
      const i = (cur.x - run.col) / run.cellWidth;
      const ch = run.chars ? run.chars[i] : run.text[i];
      if (!ch || !ch.trim()) return;
      const cp = ch.codePointAt(0)!;
      if (isBoxChar(cp)) {
        this.paintBox(p, cp, x, y, width, cellH, this.theme.cursorText, this.theme.cursor);
        return;
      }
      p.setFont(this.fontList[this.style(run).font]!);
      p.setPen(this.color(this.theme.cursorText));
      p.drawTextF(cur.x * cellW, y + ascent, ch);
    }
  }

  private paintPreedit(p: QPainter, cur: CursorState, preedit: string): void {
    const { cellH, ascent, cellW } = this.fonts;
    const x = this.colX(cur.x);
    const y = cur.y * cellH;
    const cells = [...preedit].reduce((n, ch) => n + wcwidth(ch.codePointAt(0)!), 0);
    const width = this.colX(cur.x + cells) - x;
    p.fillRect(x, y, width, cellH, this.color(this.theme.background));
    p.setFont(this.fonts.regular);
    p.setPen(this.color(this.theme.foreground));
    p.drawTextF(cur.x * cellW, y + ascent, preedit);
    p.fillRect(x, y + cellH - 1, width, 1, this.color(this.theme.foreground));
  }
}

function* range(n: number): Iterable<number> {
  for (let i = 0; i < n; i++) yield i;
}

function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x7f) return false;
  return true;
}

/** Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan and their presentation forms. */
function isRtl(cp: number): boolean {
  return (cp >= 0x0590 && cp <= 0x08ff) || (cp >= 0xfb1d && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfeff);
}

export function blend(fg: number, bg: number, alpha: number): number {
  const mix = (s: number): number => Math.round(((fg >> s) & 0xff) * alpha + ((bg >> s) & 0xff) * (1 - alpha));
  return (mix(16) << 16) | (mix(8) << 8) | mix(0);
}
