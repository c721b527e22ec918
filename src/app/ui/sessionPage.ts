// A session's page in a window: the terminal view built from the user's settings (font, theme,
// Option as Meta), inside a frame that gives the grid a little breathing room, painted in the
// terminal's own background so the margin reads as part of the terminal.
import { Direction, QBoxLayout, QDragEnterEvent, QDropEvent, QWidget, WidgetEventTypes } from '@nodegui/nodegui';
import { droppedPaths } from '../services/shellQuote';
import type { Theme } from '../../terminal/common';
import { cssHex, darkTheme, lightTheme } from '../../terminal/common/theme';
import type { TerminalSource } from '../client/terminalSource';
import type { Settings } from '../services/settingsFile';
import type { Appearance } from './chromeStyle';
import type { SessionPage } from './mainWindow';
import { TerminalView } from './terminal/terminalView';

/** Margins around the grid, in px: like Terminal.app and iTerm2, a few px keep text off the edges. */
const PAD = { left: 10, top: 6, right: 4, bottom: 4 };

export interface SessionPageCallbacks {
  /** Files dropped on the terminal (local paths). */
  onDropPaths(paths: string[]): void;
}

/** The terminal colours for an appearance. */
export function terminalTheme(appearance: Appearance): Theme {
  return appearance === 'light' ? lightTheme : darkTheme;
}

export interface TerminalSessionPage extends SessionPage {
  terminal: TerminalView;
  /** Recolours the grid and the margin around it. */
  setTheme(theme: Theme): void;
}

/** `appearance` is the one the app decided (the theme setting, or the system's for 'system'). */
export function createSessionPage(session: TerminalSource, settings: Settings, callbacks?: SessionPageCallbacks, appearance?: Appearance): TerminalSessionPage {
  const t = settings.terminal;
  const theme = terminalTheme(appearance ?? (t.theme === 'light' ? 'light' : 'dark'));
  const terminal = new TerminalView(session, {
    fontFamily: t.fontFamily,
    fontSize: t.fontSize,
    theme,
    optionAsMeta: t.optionAsMeta,
  });
  const frame = new QWidget();
  frame.setObjectName('terminalFrame');
  const frameStyle = (th: Theme) => `#terminalFrame { background-color: ${cssHex(th.background)}; }`;
  frame.setStyleSheet(frameStyle(theme));
  const layout = new QBoxLayout(Direction.TopToBottom);
  layout.setContentsMargins(PAD.left, PAD.top, PAD.right, PAD.bottom);
  frame.setLayout(layout);
  layout.addWidget(terminal.widget, 1);
  if (callbacks) {
    // Dropping files pastes their quoted paths, as Terminal.app and iTerm2 do.
    frame.setAcceptDrops(true);
    frame.addEventListener(WidgetEventTypes.DragEnter, (native) => {
      const e = new QDragEnterEvent(native as never);
      if (e.mimeData().hasUrls()) e.acceptProposedAction();
    });
    frame.addEventListener(WidgetEventTypes.Drop, (native) => {
      const e = new QDropEvent(native as never);
      const urls = e
        .mimeData()
        .urls()
        .map((u) => u.toString());
      if (urls.length === 0) return;
      e.acceptProposedAction();
      callbacks.onDropPaths(droppedPaths(urls));
    });
  }
  return {
    widget: frame,
    terminal,
    focus: () => terminal.focus(),
    dispose: () => terminal.dispose(),
    fitTo: (width, height) => terminal.fitTo(width - PAD.left - PAD.right, height - PAD.top - PAD.bottom),
    setTheme: (th) => {
      terminal.setTheme(th);
      frame.setStyleSheet(frameStyle(th));
    },
  };
}
