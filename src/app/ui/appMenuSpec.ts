// The macOS application menu's entries Termio provides, per platform. Pure, with Qt's enum
// values spelled out, so the platform branch is testable without loading Qt (appMenu.ts builds it).

/** QAction::MenuRole (qaction.h): where macOS's menu bar puts an action. */
export const QtMenuRole = {
  NoRole: 0,
  TextHeuristicRole: 1,
  ApplicationSpecificRole: 2,
  AboutQtRole: 3,
  AboutRole: 4,
  PreferencesRole: 5,
  QuitRole: 6,
} as const;

export type AppMenuCommand = 'quit' | 'quitEnd';

export interface AppMenuItem {
  text: string;
  /** A QtMenuRole value. */
  role: number;
  /** A QKeySequence string; Qt's Ctrl is ⌘ on macOS. */
  shortcut: string;
  command: AppMenuCommand;
}

/**
 * On macOS, Qt fills the application menu with its own Quit (⌘Q), which ends Qt's loop and the
 * process at once: sessions are not detached or ended and the state is not saved. An action
 * with the Quit role takes that item's place, and its ⌘Q, so both run Termio's own quit (which
 * detaches: sessions keep running in the session host). Other
 * platforms have no application menu: the tray and the windows carry Quit.
 */
export function appMenuItems(platform: NodeJS.Platform): AppMenuItem[] {
  if (platform !== 'darwin') return [];
  return [
    { text: 'Quit Termio', role: QtMenuRole.QuitRole, shortcut: 'Ctrl+Q', command: 'quit' },
    // Quit leaves the sessions running in the session host; this one ends them (⌥⌘Q, as Finder's "Quit and Keep Windows" pairs with ⌘Q).
    { text: 'Quit and End All Sessions', role: QtMenuRole.ApplicationSpecificRole, shortcut: 'Ctrl+Alt+Q', command: 'quitEnd' },
  ];
}
