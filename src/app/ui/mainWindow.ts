// A Termio window: the session sidebar on the left, the selected session's terminal on the
// right, and an empty state that says how to start when there is no session yet.
import {
  Direction,
  QBoxLayout,
  QKeyEvent,
  QLabel,
  QMainWindow,
  QKeySequence,
  QMouseEvent,
  QShortcut,
  QStackedWidget,
  QWidget,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import type { Logger } from '../host/log';
import { chromeStyleSheet } from './chromeStyle';

export interface MainWindowOptions {
  log: Logger;
  onClosed(): void;
}

const SIDEBAR_WIDTH_PX = 240; // fits a folder name, an agent name and a status time at 13 px

export class MainWindow {
  readonly window = new QMainWindow();
  readonly sidebar = new QWidget();
  readonly stack = new QStackedWidget();
  private readonly emptyState = new QWidget();
  private readonly shortcuts: QShortcut[] = [];

  constructor(private readonly opts: MainWindowOptions) {
    const w = this.window;
    w.setWindowTitle('Termio');
    w.setObjectName('mainWindow');
    w.resize(1100, 700);
    w.setMinimumSize(640, 400);
    w.setStyleSheet(chromeStyleSheet());

    const central = new QWidget();
    central.setObjectName('central');
    const row = new QBoxLayout(Direction.LeftToRight);
    row.setContentsMargins(0, 0, 0, 0);
    row.setSpacing(0);
    central.setLayout(row);

    this.sidebar.setObjectName('sidebar');
    this.sidebar.setFixedWidth(SIDEBAR_WIDTH_PX);
    const side = new QBoxLayout(Direction.TopToBottom);
    side.setContentsMargins(12, 14, 12, 12);
    side.setSpacing(6);
    this.sidebar.setLayout(side);
    const heading = new QLabel();
    heading.setObjectName('sidebarHeading');
    heading.setText('SESSIONS');
    side.addWidget(heading);
    side.addStretch(1);

    this.buildEmptyState();
    this.stack.setObjectName('stack');
    this.stack.addWidget(this.emptyState);

    row.addWidget(this.sidebar);
    row.addWidget(this.stack, 1);
    w.setCentralWidget(central);

    w.addEventListener(WidgetEventTypes.Close, () => opts.onClosed());
    // Qt maps Ctrl to Cmd on macOS, so this is Cmd+Shift+W there, as in Terminal and iTerm2.
    this.addShortcut('Ctrl+Shift+W', () => this.window.close());
    // Input that no child widget took ends here. TERMIO_TRACE_INPUT=1 logs it (a diagnostic
    // for tests and bug reports; never on by default, since it would log keystrokes).
    if (process.env.TERMIO_TRACE_INPUT === '1') this.traceInput();
  }

  private traceInput(): void {
    const w = this.window;
    const opts = this.opts;
    w.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      opts.log.debug('input key', { key: e.key(), text: e.text(), modifiers: e.modifiers() });
    });
    w.addEventListener(WidgetEventTypes.MouseButtonPress, (native) => {
      const e = new QMouseEvent(native as never);
      opts.log.debug('input mouse', { x: e.x(), y: e.y(), button: e.button() });
    });
  }

  addShortcut(keys: string, handler: () => void): QShortcut {
    const sc = new QShortcut(this.window);
    sc.setKey(new QKeySequence(keys));
    sc.setEnabled(true);
    sc.addEventListener('activated', handler);
    this.shortcuts.push(sc);
    return sc;
  }

  private buildEmptyState(): void {
    this.emptyState.setObjectName('emptyState');
    const col = new QBoxLayout(Direction.TopToBottom);
    col.addStretch(1);
    const title = new QLabel();
    title.setObjectName('emptyTitle');
    title.setText('No sessions yet');
    const hint = new QLabel();
    hint.setObjectName('emptyHint');
    hint.setText(`Press ${process.platform === 'darwin' ? '⌘T' : 'Ctrl+Shift+T'} to start an agent, or run  termio ~/project`);
    col.addWidget(title, 0, 0x0004 /* AlignHCenter */);
    col.addWidget(hint, 0, 0x0004);
    col.addStretch(1);
    this.emptyState.setLayout(col);
  }

  show(): void {
    this.window.show();
  }

  isVisible(): boolean {
    return this.window.isVisible();
  }

  raise(): void {
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
  }

  dispose(): void {
    this.window.close();
  }
}
