// Paints host frames into a terminal with plain ANSI escapes: the one `termio attach` runs in, and
// the phone page's xterm.js for a session of another machine. Each changed row is rewritten from
// its runs (SGR per run, erase to the end of the line), then the cursor, its shape and the title.
// One frame is one write inside a synchronized update, so the outer terminal never shows half a
// frame. Rows and columns past the outer terminal are clipped.
import { inertCells, inertTitle } from './inertText';
import { ColorKind, RunAttr, type FrameHeader, type FrameReader } from '../../protocol/hostFrame';

const CSI = '\x1b[';
const SHAPE_CODES = { block: 2, underline: 4, bar: 6 } as const;

function colorSgr(packed: number, fg: boolean): string {
  const kind = packed >>> 24;
  const v = packed & 0xffffff;
  if (kind === ColorKind.palette) {
    if (v < 8) return String((fg ? 30 : 40) + v);
    if (v < 16) return String((fg ? 90 : 100) + v - 8);
    return `${fg ? 38 : 48};5;${v}`;
  }
  if (kind === ColorKind.rgb) return `${fg ? 38 : 48};2;${(v >> 16) & 0xff};${(v >> 8) & 0xff};${v & 0xff}`;
  return fg ? '39' : '49';
}

/** The SGR sequence for a run's style, starting from a reset. */
export function runSgr(attrs: number, fg: number, bg: number): string {
  const p = ['0'];
  if (attrs & RunAttr.bold) p.push('1');
  if (attrs & RunAttr.dim) p.push('2');
  if (attrs & RunAttr.italic) p.push('3');
  if (attrs & RunAttr.underlineMask) p.push('4');
  if (attrs & RunAttr.blink) p.push('5');
  if (attrs & RunAttr.inverse) p.push('7');
  if (attrs & RunAttr.invisible) p.push('8');
  if (attrs & RunAttr.strikethrough) p.push('9');
  if (attrs & RunAttr.overline) p.push('53');
  if (fg) p.push(colorSgr(fg, true));
  if (bg) p.push(colorSgr(bg, false));
  return `${CSI}${p.join(';')}m`;
}

export class AnsiPainter {
  private title: string | null = null;
  private size = '';

  /** `outCols`/`outRows`: the outer terminal's size (frames larger than it are clipped). */
  constructor(
    public outCols: number,
    public outRows: number,
  ) {}

  /** Everything the next frame must repaint (after a resize of the outer terminal). */
  invalidate(): void {
    this.size = '';
  }

  paint(h: FrameHeader, reader: FrameReader): string {
    let out = `${CSI}?2026h${CSI}?25l`;
    const size = `${h.cols}x${h.rows}/${this.outCols}x${this.outRows}`;
    if (h.full || size !== this.size) out += `${CSI}0m${CSI}2J`;
    this.size = size;
    const maxCols = Math.min(h.cols, this.outCols);
    while (reader.nextRow()) {
      if (reader.y >= this.outRows) continue;
      out += `${CSI}${reader.y + 1};1H`;
      let col = 0;
      while (reader.nextRun()) {
        if (reader.col >= maxCols) continue;
        if (reader.col > col) out += `${CSI}0m${' '.repeat(reader.col - col)}`;
        out += runSgr(reader.attrs, reader.fg, reader.bg);
        const width = reader.attrs & RunAttr.wide ? 2 : 1;
        if (reader.col + reader.cells <= maxCols) {
          out += inertCells(reader.text);
          col = reader.col + reader.cells;
        } else {
          // Clip at the outer edge, whole characters only.
          const fit = Math.floor((maxCols - reader.col) / width);
          let units = fit;
          if (reader.charLengths) {
            units = 0;
            for (let i = 0; i < fit; i++) units += reader.charLengths[i]!;
          }
          out += inertCells(reader.text.slice(0, units));
          col = reader.col + fit * width;
        }
      }
      out += `${CSI}0m${CSI}K`;
    }
    if (h.title !== this.title) {
      this.title = h.title;
      // Control characters in a title would end the OSC early; a relayed frame's title comes from
      // another machine, so nothing is assumed about it.
      out += `\x1b]2;${inertTitle(h.title)}\x07`;
    }
    const cx = Math.min(h.cursor.x, this.outCols - 1);
    const cy = Math.min(h.cursor.y, this.outRows - 1);
    out += `${CSI}${cy + 1};${cx + 1}H${CSI}${SHAPE_CODES[h.cursor.shape] - (h.cursor.blinking ? 1 : 0)} q`;
    if (h.cursor.visible) out += `${CSI}?25h`;
    return `${out}${CSI}?2026l`;
  }
}
