// Find in scrollback: plain-text search over the emulator's active buffer (scrollback + screen),
// soft-wrapped rows joined into one logical line, matches as cell ranges in buffer coordinates.
// Pure over the buffer: no view state; the view keeps the query and the current match.
import type { IBuffer, IBufferCell, IBufferLine } from '@xterm/headless';
import type { BufferPoint } from './renderTypes';

/** A match: from `start` to `end` (exclusive), in cells; spans rows when the line wrapped. */
export interface BufferRange {
  start: BufferPoint;
  end: BufferPoint;
}

export interface FindOptions {
  /** Default false: `Error` finds `error` and `ERROR`. */
  caseSensitive?: boolean;
}

/** Towards older output (up the scrollback) or newer output (down). */
export type FindDirection = 'up' | 'down';

/**
 * Every non-overlapping match of `query` in the buffer, in buffer order. Wide characters count
 * as their two cells, combining marks stay with their base cell, and case folding that changes
 * a character's length (e.g. 'İ') still maps back to the right cell.
 */
export function findAll(buffer: IBuffer, cols: number, query: string, opts: FindOptions = {}): BufferRange[] {
  if (!query) return [];
  const fold = opts.caseSensitive ? (s: string): string => s : foldCase;
  const needle = fold(query);
  const out: BufferRange[] = [];
  const cell = buffer.getNullCell();
  for (let y = 0; y < buffer.length;) {
    let end = y + 1;
    while (end < buffer.length && buffer.getLine(end)?.isWrapped) end++;
    // Cheap test on the line's text first; the cell map is built only for lines that match.
    let joined = '';
    for (let r = y; r < end; r++) {
      const line = buffer.getLine(r);
      if (!line) continue;
      joined += r === end - 1 ? line.translateToString(true) : line.translateToString(false, 0, wrapEnd(line, cols, cell));
    }
    if (fold(joined).includes(needle)) {
      const line = cellMap(buffer, cols, y, end, cell, fold);
      let from = 0;
      for (;;) {
        const i = line.text.indexOf(needle, from);
        if (i < 0) break;
        const last = i + needle.length - 1;
        out.push({
          start: { x: line.col[i]!, y: line.row[i]! },
          end: { x: line.col[last]! + line.width[last]!, y: line.row[last]! },
        });
        from = i + needle.length;
      }
    }
    y = end;
  }
  return out;
}

/** Lower case, with the word-final sigma folded like any sigma: JavaScript lower-cases 'Σ' by
 *  context, and the text is folded whole for the quick test but cell by cell for the map. */
function foldCase(s: string): string {
  return s.toLowerCase().replace(/\u03C2/g, 'σ'); // ς → σ, escaped: the bundled host stays ASCII
}

/**
 * The match to go to from `from` (the current match's start, or a point such as the bottom of
 * the viewport when there is none): the nearest one strictly before it going up, strictly after
 * it going down, wrapping around the ends. -1 when there are no matches.
 */
export function nextMatchIndex(matches: readonly BufferRange[], from: BufferPoint, direction: FindDirection): number {
  if (matches.length === 0) return -1;
  const before = (a: BufferPoint, b: BufferPoint): boolean => a.y < b.y || (a.y === b.y && a.x < b.x);
  if (direction === 'up') {
    for (let i = matches.length - 1; i >= 0; i--) if (before(matches[i]!.start, from)) return i;
    return matches.length - 1;
  }
  for (let i = 0; i < matches.length; i++) if (before(from, matches[i]!.start)) return i;
  return 0;
}

/** The parts of a range on each buffer row: columns [start, end) of row y. */
export function rangeRows(range: BufferRange, cols: number): Array<{ y: number; start: number; end: number }> {
  const out: Array<{ y: number; start: number; end: number }> = [];
  for (let y = range.start.y; y <= range.end.y; y++) {
    const start = y === range.start.y ? range.start.x : 0;
    const end = y === range.end.y ? range.end.x : cols;
    if (end > start) out.push({ y, start, end });
  }
  return out;
}

interface CellMap {
  /** Folded text; one entry per UTF-16 unit in the arrays below. */
  text: string;
  row: number[];
  col: number[];
  width: number[];
}

/** Rows [y, end) of one logical line as folded text with the cell of every UTF-16 unit. */
function cellMap(buffer: IBuffer, cols: number, y: number, end: number, cell: IBufferCell, fold: (s: string) => string): CellMap {
  let text = '';
  const row: number[] = [];
  const col: number[] = [];
  const width: number[] = [];
  for (let r = y; r < end; r++) {
    const line = buffer.getLine(r);
    if (!line) break;
    const limit = r < end - 1 ? wrapEnd(line, cols, cell) : cols;
    for (let x = 0; x < limit; x++) {
      line.getCell(x, cell);
      const w = cell.getWidth();
      // The right half of a wide character.
      if (w === 0) continue;
      const chars = fold(cell.getChars() || ' ');
      text += chars;
      for (let k = 0; k < chars.length; k++) {
        row.push(r);
        col.push(x);
        width.push(w);
      }
    }
  }
  return { text, row, col, width };
}

/** Where a soft-wrapped row's text ends: before its last cell when that cell is empty because
 *  a wide character did not fit there and moved on to the next row. */
function wrapEnd(line: IBufferLine, cols: number, cell: IBufferCell): number {
  line.getCell(cols - 1, cell);
  return cell.getChars() === '' && cell.getWidth() === 1 ? cols - 1 : cols;
}
