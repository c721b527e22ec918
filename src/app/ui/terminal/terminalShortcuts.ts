// The terminal view's own shortcuts (copy, paste, find, scrollback), told apart from keys the
// session receives. Cmd on macOS, Ctrl+Shift elsewhere, so Ctrl+C and Ctrl+V still reach the
// program in the terminal. Pure, so each platform's table is testable anywhere.
import type { KeyInput } from '../../../terminal/common';

export type TerminalShortcut = 'find' | 'copy' | 'paste' | 'pageUp' | 'pageDown' | 'scrollToTop' | 'scrollToBottom';

/** The shortcut a key is, or null when the key belongs to the session. */
export function shortcutFor(k: KeyInput, macOS: boolean): TerminalShortcut | null {
  const command = macOS ? k.meta && !k.ctrl : k.ctrl && k.shift && !k.meta;
  if (command && k.key === 'f') return 'find';
  if (command && k.key === 'c') return 'copy';
  if (command && k.key === 'v') return 'paste';
  if (!macOS && k.shift && !k.ctrl && !k.alt && k.key === 'Insert') return 'paste';
  if (k.shift && !k.ctrl && !k.alt && (k.key === 'PageUp' || k.key === 'PageDown')) {
    return k.key === 'PageUp' ? 'pageUp' : 'pageDown';
  }
  if (macOS && k.meta && (k.key === 'ArrowUp' || k.key === 'ArrowDown' || k.key === 'Home' || k.key === 'End')) {
    return k.key === 'End' || k.key === 'ArrowDown' ? 'scrollToBottom' : 'scrollToTop';
  }
  return null;
}
