// The terminal's fonts and the cell grid they define: one family and size in four styles, the
// cell's width (the font's own fractional advance) and height, and where lines go inside a cell.
import { QFont, QFontMetrics, QFontMetricsF, QFontWeight } from '@nodegui/nodegui';

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
    regular,
    bold,
    italic,
    boldItalic,
    cellW,
    cellH,
    ascent: fm.ascent(),
    underlinePos: Math.max(1, fm.underlinePos()),
    strikePos: fm.strikeOutPos(),
    lineWidth: Math.max(1, fm.lineWidth()),
  };
}
