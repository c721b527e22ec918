// A block of lines we own at the end of a text config (TOML), between a start and an end marker
// line, written and removed as text: the user's bytes outside it are never touched. Removing the
// block gives the text back exactly as it was before we added it, including the blank line we
// put before it and a final newline the user's last line lacked (the "+eol" start marker says so).

export interface BlockMarkers {
  /** The start line, containing `label` (e.g. "termio hook trust"). */
  start: string;
  end: string;
  /** The part of `start` that the "+eol" start marker extends. */
  label: string;
}

function addedEolStart(m: BlockMarkers): string {
  return m.start.replace(m.label, `${m.label} (+eol)`);
}

/** Where the block lies (with the separator before it), or null when there is none or no end marker. */
export function findMarkedBlock(text: string, m: BlockMarkers): { start: number; end: number } | null {
  const plain = text.indexOf(m.start);
  const added = text.indexOf(addedEolStart(m));
  const start = plain >= 0 ? plain : added;
  if (start < 0) return null;
  const endAt = text.indexOf(m.end, start);
  if (endAt < 0) return null;
  let end = endAt + m.end.length;
  if (text.startsWith('\r\n', end)) end += 2;
  else if (text.startsWith('\n', end)) end += 1;
  // The blank line we put before the block belongs to it (and the user's missing final newline).
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const sep = start === added ? eol.length * 2 : text.slice(0, start).endsWith(eol + eol) ? eol.length : 0;
  return { start: start - sep, end };
}

/** The text inside the block (markers included), or null. */
export function markedBlockText(text: string | null, m: BlockMarkers): string | null {
  const b = text === null ? null : findMarkedBlock(text, m);
  return b ? (text as string).slice(b.start, b.end) : null;
}

/** The text without the block (the user's bytes, exactly as they were). */
export function withoutMarkedBlock(text: string, m: BlockMarkers): string {
  const b = findMarkedBlock(text, m);
  return b ? text.slice(0, b.start) + text.slice(b.end) : text;
}

/** The text with the block replaced by one holding `lines` (none: the block removed). A block
 *  already there is rewritten where it stands, so two blocks in one file (Codex's hook trust and
 *  the MCP server) keep their order and removing them in reverse gives the user's bytes back. */
export function withMarkedBlock(text: string | null, m: BlockMarkers, lines: readonly string[]): string {
  const current = text ?? '';
  const eol = current.includes('\r\n') ? '\r\n' : '\n';
  if (lines.length && findMarkedBlock(current, m)) {
    const marker = current.includes(m.start) ? m.start : addedEolStart(m);
    const start = current.indexOf(marker);
    const end = current.indexOf(m.end, start) + m.end.length;
    return current.slice(0, start) + [marker, ...lines, m.end].join(eol) + current.slice(end);
  }
  const base = withoutMarkedBlock(current, m);
  if (lines.length === 0) return base;
  const addedEol = base !== '' && !base.endsWith(eol);
  const lead = base === '' ? '' : addedEol ? eol + eol : eol;
  return `${base}${lead}${[addedEol ? addedEolStart(m) : m.start, ...lines, m.end].join(eol)}${eol}`;
}
