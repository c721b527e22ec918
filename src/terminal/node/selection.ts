// The text selection over an emulator's buffer: an anchor and a head in buffer coordinates,
// grown to whole words or lines by its mode; gives the selected text and the columns it covers on
// each viewport row. Views paint those columns; the render model marks the rows that change.
import type { Terminal } from '@xterm/headless';
import type { SelectionMode } from '../../protocol/selectionMode';

import type { BufferPoint, RowSelection, SelectionState } from '../common/renderTypes';

/** Characters xterm allows in a "word" for double-click selection, besides letters and digits. */
const WORD_CHARS = /[\p{L}\p{N}_\-./~:@%+#?&=]/u;

export class Selection {
  private current: { anchor: BufferPoint; head: BufferPoint; mode: SelectionMode } | null = null;

  constructor(private readonly term: Terminal) {}

  /** Starts or extends a selection between two buffer points (anchor stays where it began). */
  set(anchor: BufferPoint, head: BufferPoint, mode: SelectionMode = 'char'): void {
    this.current = { anchor, head, mode };
  }

  /** Moves the selection's head (a drag), keeping its anchor and mode. No-op without one. */
  extend(head: BufferPoint): void {
    if (this.current) this.current = { ...this.current, head };
  }

  clear(): void {
    this.current = null;
  }

  /** The selection as it stands, to put back with restore() after borrowing it. */
  get state(): SelectionState {
    return this.current;
  }

  restore(state: SelectionState): void {
    this.current = state;
  }

  /** No selection, or one that covers no cell (a click without a drag). */
  get isEmpty(): boolean {
    const r = this.range();
    return r === null || (r.start.y === r.end.y && r.start.x === r.end.x);
  }

  /** The selection normalised to [start, end) in buffer coordinates, expanded by its mode. */
  range(): { start: BufferPoint; end: BufferPoint } | null {
    const s = this.current;
    if (!s) return null;
    const before = s.anchor.y < s.head.y || (s.anchor.y === s.head.y && s.anchor.x <= s.head.x);
    let start = before ? s.anchor : s.head;
    let end = before ? s.head : s.anchor;
    if (s.mode === 'line') {
      return { start: { x: 0, y: this.wrapStart(start.y) }, end: { x: this.term.cols, y: this.wrapEnd(end.y) } };
    }
    if (s.mode === 'word') {
      start = this.wordBounds(start).start;
      end = this.wordBounds(end).end;
    }
    return { start, end };
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
  text(): string {
    const r = this.range();
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

  /** The selected columns of each of `rows` viewport rows starting at buffer line viewportY. */
  viewportRows(viewportY: number, rows: number, cols: number): RowSelection[] {
    const r = this.range();
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
}

/** Viewport rows whose selected columns differ between two selections (rows past `rows` are gone). */
export function changedSelectionRows(before: readonly RowSelection[], after: readonly RowSelection[], rows: number): number[] {
  const old = new Map(before.map((s) => [s.row, s]));
  const changed: number[] = [];
  for (const s of after) {
    const b = old.get(s.row);
    if (!b || b.start !== s.start || b.end !== s.end) changed.push(s.row);
    old.delete(s.row);
  }
  for (const row of old.keys()) if (row < rows) changed.push(row);
  return changed;
}
