// How the window names a shortcut in text (the empty window's hint): Apple's symbols and order on
// macOS, Qt's own spelling elsewhere, for whatever Settings → Shortcuts says.
import { describe, expect, it } from 'vitest';
import { defaultShortcuts, shortcutLabel } from '../../../src/app/ui/shortcuts';

describe('shortcutLabel', () => {
  it('reads the defaults as a Mac and a Linux user see them', () => {
    expect(shortcutLabel(defaultShortcuts('darwin').newSession, 'darwin')).toBe('⌘T');
    expect(shortcutLabel(defaultShortcuts('linux').newSession, 'linux')).toBe('Ctrl+Shift+T');
  });

  it('orders modifiers as Apple does, whatever order the setting wrote them in', () => {
    expect(shortcutLabel('Ctrl+Shift+]', 'darwin')).toBe('⇧⌘]');
    expect(shortcutLabel('Shift+Alt+Meta+Ctrl+K', 'darwin')).toBe('⌃⌥⇧⌘K');
  });

  it('shows an override from Settings, not the default', () => {
    expect(shortcutLabel('Alt+N', 'darwin')).toBe('⌥N');
    expect(shortcutLabel('Alt+N', 'linux')).toBe('Alt+N');
  });
});
