// Builds the terminal view for a session from the user's settings (font, theme, Option as Meta).
import type { Session } from '../../terminal';
import { darkTheme, lightTheme } from '../../terminal';
import type { Settings } from '../host/settings';
import type { SessionView } from './mainWindow';
import { TerminalView } from './terminal/terminalView';

export function createTerminalView(session: Session, settings: Settings): SessionView {
  const t = settings.terminal;
  return new TerminalView(session, {
    ...(t.fontFamily ? { fontFamily: t.fontFamily } : {}),
    fontSize: t.fontSize,
    // 'system' follows the desktop; until the platform tells us otherwise, dark is the default.
    theme: t.theme === 'light' ? lightTheme : darkTheme,
    optionAsMeta: t.optionAsMeta,
  });
}
