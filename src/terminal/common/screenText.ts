// The text of an emulator's screen and of what was written since a mark: what `termio sessions
// read` and the control socket's waits show, read straight from the buffer.
import type { Terminal } from '@xterm/headless';

/** Rows of the screen as text, right-trimmed (with `viewport`, the rows shown where the session
 *  is scrolled back to, as every view paints them). With lines=N, the last N rows after dropping
 *  trailing empty rows. */
export function screenLines(term: Terminal, opts: { lines?: number; viewport?: boolean } = {}): string[] {
  const buf = term.buffer.active;
  const top = opts.viewport ? buf.viewportY : buf.baseY;
  const out: string[] = [];
  for (let y = 0; y < term.rows; y++) {
    out.push(buf.getLine(top + y)?.translateToString(true) ?? '');
  }
  if (opts.lines === undefined) return out;
  let end = out.length;
  while (end > 0 && out[end - 1] === '') end--;
  return out.slice(Math.max(0, end - opts.lines), end);
}

/** Where output goes next, as a line of scrollback + screen: a mark for linesSince (-1 on the alternate screen). */
export function outputMark(term: Terminal): number {
  const buf = term.buffer.active;
  return buf.type === 'alternate' ? -1 : buf.baseY + buf.cursorY;
}

/**
 * The lines written since a mark, right-trimmed, up to the last non-empty one. A full-screen
 * program (alternate screen) keeps no scrollback, so there it is the screen. Lines that fell off
 * the scrollback limit since the mark are gone.
 */
export function linesSince(term: Terminal, mark: number): string[] {
  const buf = term.buffer.active;
  if (buf.type === 'alternate' || mark < 0) return screenLines(term, { lines: term.rows }).map((l) => l.trimEnd());
  const out: string[] = [];
  for (let y = Math.min(mark, buf.length); y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true).trimEnd() ?? '');
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}
