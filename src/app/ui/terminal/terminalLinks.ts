// Links in a terminal view: the URL under a cell (an OSC 8 hyperlink, or a URL in the row's
// text) and which URLs the default handler may open.
import type { RenderRow } from '../../../terminal/common';
import { findLinks } from '../../../terminal/common/links';
import { openExternal } from '../openExternal';

/** The link at column `col` of a row, or null. */
export function linkAt(line: RenderRow | undefined, col: number): string | null {
  if (!line) return null;
  const run = line.runs.find((r) => col >= r.col && col < r.col + r.cells);
  if (run?.link) return run.link;
  for (const l of findLinks(line.text)) if (col >= l.start && col < l.end) return l.url;
  return null;
}

/** Only schemes a browser or mail client handles: never hand a terminal's text to `open` as a path or app. */
export function isOpenableLink(url: string): boolean {
  return /^(https?|file|mailto):/i.test(url);
}

export function defaultOpenLink(url: string): void {
  if (isOpenableLink(url)) openExternal(url);
}
