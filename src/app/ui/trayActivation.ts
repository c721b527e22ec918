// What a click on the menu-bar (tray) icon should do, per platform. Pure, with Qt's enum values
// spelled out, so each platform's branch is testable without loading Qt.

/** QSystemTrayIcon::ActivationReason (qsystemtrayicon.h). */
export const TrayActivation = { Unknown: 0, Context: 1, DoubleClick: 2, Trigger: 3, MiddleClick: 4 } as const;

/**
 * Whether an activation of the tray icon should bring a window forward. On Linux a left click
 * (Trigger) does, and the menu is on the right button. On macOS the icon's only click opens its
 * menu, and Qt 6 reports that same click as Trigger as well: showing a window there would raise
 * or create one every time the user opens the menu. The menu's own "Show Termio" covers it.
 */
export function trayActivationShowsWindow(reason: number, platform: NodeJS.Platform): boolean {
  if (platform === 'darwin') return false;
  return reason === TrayActivation.Trigger;
}
