// The application menu per platform: on macOS a Quit with the Quit role and ⌘Q, so Qt's own
// Quit (which ends the process without Termio's quit) is replaced; elsewhere no app menu.
import { describe, expect, it } from 'vitest';
import { appMenuItems, QtMenuRole } from '../../../src/app/ui/appMenuSpec';

describe('appMenuItems', () => {
  it('on macOS, Quit Termio takes the Quit role and ⌘Q (Qt’s Ctrl) and runs Termio’s quit', () => {
    expect(appMenuItems('darwin')).toEqual([
      { text: 'Quit Termio', role: 6, shortcut: 'Ctrl+Q', command: 'quit' },
      { text: 'Quit and End All Sessions', role: 2, shortcut: 'Ctrl+Alt+Q', command: 'quitEnd' },
    ]);
    expect(QtMenuRole.QuitRole).toBe(6);
  });

  it('elsewhere there is no application menu', () => {
    expect(appMenuItems('linux')).toEqual([]);
    expect(appMenuItems('win32')).toEqual([]);
  });
});
