// Text that came from a session or another machine (titles, folders, reasons, relayed screen runs)
// must reach the user's terminal as text, never as a command: an escape sequence in a tab's title
// would otherwise write the clipboard (OSC 52), retitle or clear the terminal `termio` prints to.
// C0 controls other than tab and newline, DEL and the C1 controls (which some terminals obey when
// UTF-8 encoded) are shown as \u00XX: visible, copyable, and in a JSON string the same value.

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const ANY_CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

/** `text` with every control character but tab and newline written out as \u00XX. */
export function inertText(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A run of cells for a terminal: each control character becomes U+FFFD, one cell wide as it was drawn. */
export function inertCells(text: string): string {
  return text.replace(ANY_CONTROL, '\ufffd');
}

/** A title for an OSC sequence: control characters dropped, so nothing ends the sequence early. */
export function inertTitle(text: string): string {
  return text.replace(ANY_CONTROL, '');
}
