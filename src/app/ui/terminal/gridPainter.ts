// Turns render-model rows into the native painter's drawing operations (gridOps.ts): colours
// from cellColors.ts, neighbouring backgrounds merged, box drawing as geometry, text as
// runs on the cell grid (x = col × the font's fractional advance; cell edges are whole pixels).
import type { CursorState, Frame, Run, Theme } from '../../../terminal/common';
import { wcwidth } from '../../../terminal/common/unicodeWidth';
import { boxShapes, isBoxChar, type BoxShape } from './boxDrawing';
import { blend, matchBackground, runColors } from './cellColors';
import type { CellFonts } from './cellFonts';
import type { FontSlot, GridOps } from './gridOps';

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

/** The colours and font of each run of the row being encoded, in arrays reused from row to row:
 *  a frame has a thousand runs or more, and an object per run was most of the encoding's time. */
class RowStyles {
  fg = new Int32Array(RUNS_PER_ROW);
  bg = new Int32Array(RUNS_PER_ROW);
  /** 1 when the run shows the terminal's own background (nothing to fill under it). */
  bgIsDefault = new Uint8Array(RUNS_PER_ROW);
  font = new Uint8Array(RUNS_PER_ROW);

  set(theme: Theme, runs: readonly Run[]): void {
    if (runs.length > this.fg.length) {
      const n = Math.max(runs.length, this.fg.length * 2);
      this.fg = new Int32Array(n);
      this.bg = new Int32Array(n);
      this.bgIsDefault = new Uint8Array(n);
      this.font = new Uint8Array(n);
    }
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      const c = runColors(theme, run);
      this.fg[i] = c.fg;
      this.bg[i] = c.bg;
      this.bgIsDefault[i] = c.bgIsDefault ? 1 : 0;
      this.font[i] = fontSlot(run);
    }
  }
}

/** The first code point that may be box drawing or a block element (U+2500). */
const FIRST_BOX = 0x2500;
/** Cell widths in pixels the box-shape cache tells apart (two cells at the largest font size). */
const BOX_WIDTHS = 256;
/** Runs a row's style arrays start with: a 200-column row of short words has about 40. */
const RUNS_PER_ROW = 64;

export class GridPainter {
  /** Box-drawing shapes per code point and cell width, for the current cell size. */
  private readonly boxes = new Map<number, BoxShape[] | null>();
  private readonly styles = new RowStyles();

  constructor(
    private fonts: CellFonts,
    private theme: Theme,
  ) {}

  get cellFonts(): CellFonts {
    return this.fonts;
  }

  setFonts(fonts: CellFonts): void {
    this.fonts = fonts;
    this.boxes.clear();
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
  }

  /** The pixel x of a column's left edge (cell edges are whole pixels; text uses col × cellW). */
  colX(col: number): number {
    return Math.round(col * this.fonts.cellW);
  }

  /**
   * Encodes `rows` of the frame (or all of it, with the margins right and below the grid) for a
   * device of `width`×`height` logical pixels.
   */
  paint(out: GridOps, frame: Frame, rows: Iterable<number> | 'all', width: number, height: number, state: PaintState): void {
    const { cellH } = this.fonts;
    const background = this.theme.background;
    const all = rows === 'all';
    if (all) out.fill(0, 0, width, height, background);
    let cursorPainted = false;
    const cur = frame.cursor;
    for (const r of all ? range(frame.rows) : rows) {
      if (r < 0 || r >= frame.rows) continue;
      if (r === cur.y) cursorPainted = true;
      if (!all) out.fill(0, r * cellH, width, cellH, background);
      const runs = frame.lines[r]!.runs;
      this.styles.set(this.theme, runs);
      this.paintRowBackground(out, frame, r, this.styles, state);
      this.paintRowText(out, runs, this.styles, r, state);
    }
    if (cursorPainted) {
      out.flush();
      if (cur.visible && (state.blinkOn || !cur.blinking || !state.focused)) this.paintCursor(out, frame, cur, state.focused);
      if (state.preedit) this.paintPreedit(out, cur, state.preedit);
    }
  }

  private fill(out: GridOps, y: number, startCol: number, endCol: number, rgb: number): void {
    const x0 = this.colX(startCol);
    out.fill(x0, y, this.colX(endCol) - x0, this.fonts.cellH, rgb);
  }

  private paintRowBackground(out: GridOps, frame: Frame, r: number, styles: RowStyles, state: PaintState): void {
    const y = r * this.fonts.cellH;
    const runs = frame.lines[r]!.runs;
    // Neighbouring runs with the same background become one fill.
    let spanStart = -1;
    let spanEnd = -1;
    let spanColor = -1;
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      if (styles.bgIsDefault[i]) continue;
      const bg = styles.bg[i]!;
      if (bg === spanColor && run.col === spanEnd) {
        spanEnd = run.col + run.cells;
        continue;
      }
      if (spanStart >= 0) this.fill(out, y, spanStart, spanEnd, spanColor);
      spanStart = run.col;
      spanEnd = run.col + run.cells;
      spanColor = bg;
    }
    if (spanStart >= 0) this.fill(out, y, spanStart, spanEnd, spanColor);
    for (const s of frame.selection) if (s.row === r) this.fill(out, y, s.start, s.end, this.theme.selectionBackground);
    for (const h of state.highlights) {
      if (h.row === r) this.fill(out, y, h.start, h.end, matchBackground(this.theme, h.current));
    }
  }

  /** The current find match on row r, as columns [start, end), or null. */
  private currentMatchOn(state: PaintState, r: number): { start: number; end: number } | null {
    for (const h of state.highlights) if (h.current && h.row === r) return h;
    return null;
  }

  /** Text, box drawing and decorations of one row. */
  private paintRowText(out: GridOps, runs: readonly Run[], styles: RowStyles, r: number, state: PaintState): void {
    const cellH = this.fonts.cellH;
    const y = r * cellH;
    const match = this.currentMatchOn(state, r);
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      const s = { fg: styles.fg[i]!, bg: styles.bg[i]!, font: styles.font[i] as FontSlot };
      if (run.underline !== 'none' || run.link || run.strikethrough || run.overline) this.paintDecorations(out, run, y, s.fg);
      if (run.invisible) continue;
      const w = run.cellWidth;
      const chars = run.chars;
      if (!chars && !match && !hasBoxChar(run.text)) {
        out.text(run.col, r, w, s.font, s.fg, run.text);
        continue;
      }
      // Cell by cell: box drawing becomes geometry, text inside the current find match is drawn
      // in the background colour (on yellow), characters longer than one UTF-16 unit (astral
      // emoji, combining marks) go one by one, and the rest in as few text ops as it can.
      const n = chars ? chars.length : run.text.length;
      let textStart = -1;
      let textFrom = 0;
      let textFg = s.fg;
      // UTF-16 offset of cell k in run.text (the run's characters joined).
      let offset = 0;
      const flushText = (): void => {
        if (textStart >= 0) out.text(run.col + textStart * w, r, w, s.font, textFg, run.text.slice(textFrom, offset));
        textStart = -1;
      };
      for (let k = 0; k < n; k++) {
        const col = run.col + k * w;
        const ch = chars ? chars[k]! : run.text[k]!;
        const fg = match && col >= match.start && col < match.end ? this.theme.background : s.fg;
        const cp = ch.codePointAt(0)!;
        const box = ch.length === 1 && cp >= FIRST_BOX && isBoxChar(cp);
        if (ch.length === 1 && !box) {
          if (textStart >= 0 && fg !== textFg) flushText();
          if (textStart < 0) {
            textStart = k;
            textFrom = offset;
            textFg = fg;
          }
          offset++;
          continue;
        }
        flushText();
        if (box) {
          const x0 = this.colX(col);
          this.paintBox(out, cp, x0, y, this.colX(col + w) - x0, cellH, fg, s.bg);
        } else {
          out.cluster(col, r, w, s.font, fg, ch);
        }
        offset += ch.length;
      }
      flushText();
    }
  }

  paintBox(out: GridOps, cp: number, x: number, y: number, w: number, h: number, fg: number, bg: number): void {
    // Cell widths differ by a pixel from column to column (edges are rounded): key on both.
    const key = cp * BOX_WIDTHS + Math.min(w, BOX_WIDTHS - 1);
    let shapes = this.boxes.get(key);
    if (shapes === undefined) {
      shapes = boxShapes(cp, w, h);
      this.boxes.set(key, shapes);
    }
    if (!shapes) return;
    for (const s of shapes) {
      if (s.kind === 'rect') {
        const rgb = s.alpha === undefined ? fg : blend(fg, bg, s.alpha);
        out.fill(x + s.x, y + s.y, s.w, s.h, rgb);
      } else if (s.kind === 'line') {
        out.line(x + s.x1, y + s.y1, x + s.x2, y + s.y2, s.width, fg);
      } else {
        out.arc(x + s.cx - s.r, y + s.cy - s.r, s.r * 2, s.r * 2, s.startDeg * 16, s.spanDeg * 16, s.width, fg);
      }
    }
  }

  private paintDecorations(out: GridOps, run: Run, y: number, fg: number): void {
    const { cellW, cellH, underlinePos, strikePos, lineWidth, ascent } = this.fonts;
    const x0 = this.colX(run.col);
    const width = this.colX(run.col + run.cells) - x0;
    const uy = Math.min(y + cellH - lineWidth, y + ascent + underlinePos);
    // OSC 8 links without an underline of their own get a dotted one, as in iTerm2 and kitty.
    const underline = run.underline === 'none' && run.link ? 'dotted' : run.underline;
    switch (underline) {
      case 'none':
        break;
      case 'double':
        out.fill(x0, uy - lineWidth, width, lineWidth, fg);
        out.fill(x0, Math.min(y + cellH - lineWidth, uy + lineWidth), width, lineWidth, fg);
        break;
      case 'curly': {
        // A zigzag two pixels high with a period of about half a cell.
        const step = Math.max(2, Math.floor(cellW / 4));
        for (let x = x0, up = true; x < x0 + width; x += step, up = !up) {
          out.line(x, up ? uy : uy - 2, Math.min(x + step, x0 + width), up ? uy - 2 : uy, lineWidth, fg);
        }
        break;
      }
      case 'dotted':
        for (let x = x0; x < x0 + width; x += lineWidth * 2) out.fill(x, uy, lineWidth, lineWidth, fg);
        break;
      case 'dashed':
        for (let i = 0; i < run.cells; i++) {
          const x = this.colX(run.col + i);
          out.fill(x, uy, Math.ceil(cellW / 2), lineWidth, fg);
        }
        break;
      default:
        out.fill(x0, uy, width, lineWidth, fg);
    }
    if (run.strikethrough) out.fill(x0, y + ascent - strikePos, width, lineWidth, fg);
    if (run.overline) out.fill(x0, y, width, lineWidth, fg);
  }

  private paintCursor(out: GridOps, frame: Frame, cur: CursorState, focused: boolean): void {
    const { cellH } = this.fonts;
    const run = frame.lines[cur.y]?.runs.find((r) => cur.x >= r.col && cur.x < r.col + r.cells);
    const cells = run?.cellWidth === 2 ? 2 : 1;
    const x = this.colX(cur.x);
    const y = cur.y * cellH;
    const width = this.colX(cur.x + cells) - x;
    const color = this.theme.cursor;
    // Bars and underlines scale with the display so they stay visible on HiDPI.
    const thin = Math.max(2, Math.round(this.fonts.lineWidth * 2));
    if (!focused) {
      // Hollow block when the view does not have focus.
      out.fill(x, y, width, 1, color);
      out.fill(x, y + cellH - 1, width, 1, color);
      out.fill(x, y, 1, cellH, color);
      out.fill(x + width - 1, y, 1, cellH, color);
      return;
    }
    if (cur.shape === 'bar') {
      out.fill(x, y, thin, cellH, color);
    } else if (cur.shape === 'underline') {
      out.fill(x, y + cellH - thin, width, thin, color);
    } else {
      out.fill(x, y, width, cellH, color);
      if (!run) return;
      const i = Math.floor((cur.x - run.col) / run.cellWidth);
      const ch = run.chars ? run.chars[i] : run.text[i];
      if (!ch || !ch.trim()) return;
      const cp = ch.codePointAt(0)!;
      if (isBoxChar(cp)) {
        this.paintBox(out, cp, x, y, width, cellH, this.theme.cursorText, this.theme.cursor);
        return;
      }
      out.cluster(run.col + i * run.cellWidth, cur.y, cells, fontSlot(run), this.theme.cursorText, ch);
    }
  }

  private paintPreedit(out: GridOps, cur: CursorState, preedit: string): void {
    const { cellH } = this.fonts;
    const x = this.colX(cur.x);
    const y = cur.y * cellH;
    const cells = [...preedit].reduce((n, ch) => n + wcwidth(ch.codePointAt(0)!), 0);
    const width = this.colX(cur.x + cells) - x;
    out.fill(x, y, width, cellH, this.theme.background);
    out.string(cur.x, cur.y, 0, this.theme.foreground, preedit);
    out.fill(x, y + cellH - 1, width, 1, this.theme.foreground);
  }
}

function* range(n: number): Iterable<number> {
  for (let i = 0; i < n; i++) yield i;
}

/** Whether a run's text (one UTF-16 unit per character) holds box drawing or block elements. */
function hasBoxChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= FIRST_BOX && isBoxChar(c)) return true;
  }
  return false;
}

/** The font of a run: regular, bold, italic or bold italic (GridOps' slot numbering). */
function fontSlot(run: Run): FontSlot {
  return ((run.bold ? 1 : 0) + (run.italic ? 2 : 0)) as FontSlot;
}
