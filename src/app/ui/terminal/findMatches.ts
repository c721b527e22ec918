// Find in scrollback as data: which match becomes current after a search, where the view
// scrolls to show it, and which matches fall on the viewport's rows. Pure; TerminalFind applies it.
import type { BufferPoint, BufferRange, FindDirection } from '../../../terminal/common';
import { nextMatchIndex, rangeRows } from '../../../terminal/common/bufferSearch';
import type { Highlight } from './gridPainter';

/** 'start': a new query; 'up'/'down': the next older/newer match; 'refresh': the buffer changed. */
export type FindStep = FindDirection | 'start' | 'refresh';

/**
 * The index of the current match in `matches` (-1 for none) after a search. 'start' picks the
 * nearest match at or above `bottom` (the newest output the user can see), 'up'/'down' move from
 * the previous current match, 'refresh' keeps the same match where it still is.
 */
export function nextCurrentMatch(matches: readonly BufferRange[], previous: BufferPoint | null, current: number, step: FindStep, bottom: BufferPoint): number {
  if (step === 'refresh') {
    const same = previous ? matches.findIndex((m) => m.start.x === previous.x && m.start.y === previous.y) : -1;
    return same >= 0 ? same : Math.min(current, matches.length - 1);
  }
  const from = step === 'start' || !previous ? bottom : previous;
  return nextMatchIndex(matches, from, step === 'start' ? 'up' : step);
}

/**
 * The viewport top that shows the match about a third from the top, or null when the viewport
 * (`top`, `rows` high, scrollable down to `maxTop`) already shows it whole.
 */
export function revealTop(m: BufferRange, top: number, rows: number, maxTop: number): number | null {
  if (m.start.y >= top && m.end.y < top + rows) return null;
  return Math.max(0, Math.min(maxTop, m.start.y - Math.floor(rows / 3)));
}

/** The matches on the viewport's rows (`top`, `rows` high, `cols` wide), the current one marked. */
export function visibleHighlights(matches: readonly BufferRange[], current: number, top: number, rows: number, cols: number): Highlight[] {
  const out: Highlight[] = [];
  for (let i = 0; i < matches.length; i++) {
    const m = matches[i]!;
    if (m.end.y < top) continue;
    if (m.start.y >= top + rows) break;
    for (const part of rangeRows(m, cols)) {
      const row = part.y - top;
      if (row >= 0 && row < rows) out.push({ row, start: part.start, end: part.end, current: i === current });
    }
  }
  return out;
}
