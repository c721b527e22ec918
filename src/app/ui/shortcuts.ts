// Default keyboard shortcuts per OS. Qt spells Cmd as "Ctrl" on macOS, so the macOS column
// reads Ctrl where a Mac user presses ⌘; elsewhere Ctrl+Shift keeps plain Ctrl keys for the TUI.
export type ShortcutAction =
  | 'newSession'
  | 'closeSession'
  | 'closeWindow'
  | 'newWindow'
  | 'nextSession'
  | 'previousSession'
  | 'jumpToSession'
  | 'renameSession'
  | 'find'
  | 'copy'
  | 'paste'
  | 'settings'
  | 'reviewChanges'
  | 'searchHistory'
  | 'showUsage';

const mac: Record<ShortcutAction, string> = {
  newSession: 'Ctrl+T',
  closeSession: 'Ctrl+W',
  closeWindow: 'Ctrl+Shift+W',
  newWindow: 'Ctrl+N',
  nextSession: 'Ctrl+Shift+]',
  previousSession: 'Ctrl+Shift+[',
  jumpToSession: 'Ctrl+P',
  renameSession: 'Ctrl+Shift+R',
  find: 'Ctrl+F',
  copy: 'Ctrl+C',
  paste: 'Ctrl+V',
  settings: 'Ctrl+,',
  reviewChanges: 'Ctrl+Shift+D',
  searchHistory: 'Ctrl+Shift+H',
  showUsage: 'Ctrl+Shift+U',
};

const other: Record<ShortcutAction, string> = {
  newSession: 'Ctrl+Shift+T',
  closeSession: 'Ctrl+Shift+W',
  closeWindow: 'Ctrl+Shift+Q',
  newWindow: 'Ctrl+Shift+N',
  nextSession: 'Ctrl+PgDown',
  previousSession: 'Ctrl+PgUp',
  jumpToSession: 'Ctrl+Shift+P',
  renameSession: 'Ctrl+Shift+R',
  find: 'Ctrl+Shift+F',
  copy: 'Ctrl+Shift+C',
  paste: 'Ctrl+Shift+V',
  settings: 'Ctrl+,',
  reviewChanges: 'Ctrl+Shift+D',
  searchHistory: 'Ctrl+Shift+H',
  // Ctrl+Shift+U starts Unicode input in GTK and IBus desktops: Alt keeps it free.
  showUsage: 'Ctrl+Alt+U',
};

export function defaultShortcuts(platform: NodeJS.Platform = process.platform): Record<ShortcutAction, string> {
  return { ...(platform === 'darwin' ? mac : other) };
}

/** Cmd+1…9 on macOS, Ctrl+1…9 elsewhere (Qt's "Ctrl" is ⌘ on macOS): the n-th session. */
export function sessionNumberShortcut(n: number): string {
  return `Ctrl+${n}`;
}

/** How a key sequence reads in text: "⌘T" or "⇧⌘]" on macOS (where Qt's Ctrl is ⌘ and Meta is ⌃),
 *  "Ctrl+Shift+T" elsewhere. */
export function shortcutLabel(keys: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== 'darwin') return keys;
  const symbols: Record<string, string> = { Meta: '⌃', Alt: '⌥', Shift: '⇧', Ctrl: '⌘' };
  const parts = keys.split('+');
  const key = parts.pop() ?? '';
  // Apple's order: Control, Option, Shift, Command, then the key.
  const mods = ['Meta', 'Alt', 'Shift', 'Ctrl'].filter((m) => parts.includes(m)).map((m) => symbols[m]);
  return `${mods.join('')}${key}`;
}
