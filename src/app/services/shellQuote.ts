// Quoting for text Termio types into a shell on the user's behalf (a dropped file's path):
// POSIX single quotes, which every shell an agent runs in reads literally.
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(text: string): string {
  if (text !== '' && SAFE.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Local paths from dropped URLs ("file:///a%20b" → "/a b"); other schemes are kept as they are. */
export function droppedPaths(urls: string[]): string[] {
  return urls.map((u) => (u.startsWith('file://') ? decodeURIComponent(u.slice('file://'.length).replace(/^localhost\//, '/')) : u));
}
