// Plain-text URL detection in a row's text, for Cmd/Ctrl-click (OSC 8 links come from the
// emulator's cells instead). Pure.

export interface TextLink {
  /** Column range [start, end) in the row text (one column per UTF-16 unit: callers pass rows
   *  whose text maps 1:1 to cells, or accept approximate columns for wide characters). */
  start: number;
  end: number;
  url: string;
}

// Schemes people click in terminals; the path stops at whitespace and at quotes/brackets that
// usually enclose a URL rather than belong to it.
const URL_RE = /\b(?:https?|file|ftp):\/\/[^\s"'<>`{}|\\^]+|\bmailto:[^\s"'<>`]+/gi;
/** Punctuation that ends a sentence more often than a URL. */
const TRAILING = /[.,;:!?)\]]+$/;

export function findLinks(text: string): TextLink[] {
  const out: TextLink[] = [];
  for (const m of text.matchAll(URL_RE)) {
    let url = m[0];
    const trail = TRAILING.exec(url);
    if (trail) {
      // Keep a closing parenthesis that balances one inside the URL (Wikipedia-style links).
      let cut = trail[0];
      if (cut.startsWith(')') && (url.match(/\(/g)?.length ?? 0) > (url.slice(0, -cut.length).match(/\)/g)?.length ?? 0)) {
        cut = cut.slice(1);
      }
      url = url.slice(0, url.length - cut.length);
    }
    if (url.length > 0) out.push({ start: m.index, end: m.index + url.length, url });
  }
  return out;
}
