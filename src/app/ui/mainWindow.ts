// A Termio window: the session sidebar on the left, the selected session's terminal on the
// right (with an exit bar offering Resume / New / Close once its program ends), and an empty
// state that says how to start when there is no session yet.
import {
  Direction,
  QBoxLayout,
  QKeyEvent,
  QKeySequence,
  QLabel,
  QMainWindow,
  QMouseEvent,
  QPushButton,
  QShortcut,
  QStackedWidget,
  QWidget,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import type { Logger } from '../services/log';
import type { SidebarGroup } from '../present/sidebarModel';
import { chromeStyleSheet, darkChrome, type ChromeColors } from './chromeStyle';
import { openExternal } from './openExternal';
import { Picker, type PickerAgent } from './picker';
import type { MachineChoice } from '../present/pickerMachines';
import { QuickOpen } from './quickOpen';
import { Sidebar } from './sidebar';
import { sidebarPaintTrace } from './switchTrace';
import { defaultShortcuts, sessionNumberShortcut, shortcutLabel, type ShortcutAction } from './shortcuts';
import { boxWidget } from './boxWidget';

/** What a window stacks for each session: its page (today, a terminal with a margin around it). */
export interface SessionPage {
  readonly widget: QWidget;
  focus(): void;
  dispose(): void;
  /**
   * Sizes the session for a page of this many pixels before the page is first shown. A hidden
   * page gets its real size only when shown: without this, a session started in the background
   * ran at a default size and was resized (emulator reflow, the program's SIGWINCH redraw) at
   * the moment you first looked at it.
   */
  fitTo?(width: number, height: number): void;
}

export interface ExitInfo {
  exitCode: number;
  signal?: number;
}

export interface MainWindowOptions {
  /** Identifies the window in the state file (tabs are saved per window). */
  id: string;
  log: Logger;
  agents(): PickerAgent[];
  folder(): string;
  bypassDefault(agentId: string | null): boolean;
  /** Whether the picker starts sessions in this repository in a new worktree (remembered per repository). */
  worktreeDefault(repo: string): boolean;
  onWorktreeToggled(repo: string, on: boolean): void;
  onStart(agentId: string | null, cwd: string, bypass: boolean, worktree: boolean, machine: string | null): void;
  /** The picker's fan-out: one prompt to each of these agents, each in a new worktree of cwd's repository. */
  onFanout(agentIds: string[], cwd: string, prompt: string): void;
  /** The agent picker opened: which agents are installed may be looked at again meanwhile. */
  pickerOpened?(): void;
  /** Where the picker may start a session, and the machine it remembers per folder. */
  machines(): MachineChoice[];
  rememberedMachines(): Readonly<Record<string, string>>;
  folderMachine(): string | null;
  rememberMachine(folder: string, value: string | undefined): void;
  onActiveChanged(active: boolean): void;
  /** What the user can see of this window may have changed: shown, hidden (closed into the
   *  tray), minimised or restored, or another session selected. */
  onViewChanged(): void;
  /** Overrides from Settings, by action. */
  shortcuts: Partial<Record<string, string>>;
  onClosed(): void;
  onSelect(id: string): void;
  onAction(action: ShortcutAction | 'resume' | 'new' | 'close', sessionId: string | null): void;
  /** The chrome's colours now (setChrome changes them later); dark when absent. */
  chrome?: ChromeColors;
}

const SIDEBAR_WIDTH_PX = 250; // fits a folder name, an agent name and a status time at 13 px

interface ExitBar {
  widget: QWidget;
  label: QLabel;
  buttons: QPushButton[];
}

interface PageSlot {
  container: QWidget;
  col: QBoxLayout;
  view: SessionPage;
  /** Built the first time the session exits. */
  exitBar: ExitBar | null;
}

export class MainWindow {
  readonly window = new QMainWindow();
  readonly sidebar: Sidebar;
  readonly stack = new QStackedWidget();
  private readonly emptyState = new QWidget();
  private readonly emptyHint = new QLabel();
  private readonly shortcuts: QShortcut[] = [];
  private readonly pages = new Map<string, PageSlot>();
  private current: string | null = null;
  private order: string[] = [];
  private readonly ticker = new QWidget();
  private readonly banner = new QLabel();
  private readonly bannerTimer = new QWidget();
  private bannerTimerId: number | null = null;
  readonly picker: Picker;
  readonly quick: QuickOpen;
  readonly id: string;
  private readonly why = new QLabel();
  private readonly actionShortcuts = new Map<ShortcutAction, QShortcut>();

  constructor(private readonly opts: MainWindowOptions) {
    this.id = opts.id;
    const w = this.window;
    w.setWindowTitle('Termio');
    w.setObjectName('mainWindow');
    w.resize(1100, 700);
    w.setMinimumSize(640, 400);
    const chrome = opts.chrome ?? darkChrome;
    w.setStyleSheet(chromeStyleSheet(chrome));

    const { widget: central, layout: row } = boxWidget('row', { name: 'central' });
    const onPainted = sidebarPaintTrace(opts.log);
    this.sidebar = new Sidebar({
      onSelect: (id) => opts.onSelect(id),
      onReview: (id) => opts.onAction('reviewChanges', id),
      chrome,
      onPainted: onPainted || undefined,
    });
    row.addWidget(this.buildSidebarColumn());
    row.addWidget(this.buildMainArea(), 1);
    w.setCentralWidget(central);
    this.picker = this.buildPicker(central, chrome);
    this.quick = new QuickOpen(central, chrome);
    this.listenToWindow();
    this.bindShortcuts();
    // Time-in-state labels move on once a second.
    this.ticker.addEventListener(WidgetEventTypes.Timer, () => this.sidebar.tick());
    this.ticker.startTimer(1000);
    // TERMIO_TRACE_INPUT=1 logs input that reaches the window (a diagnostic for tests and bug
    // reports; never on by default, since it would log keystrokes).
    if (process.env.TERMIO_TRACE_INPUT === '1') this.traceInput();
  }

  /** The left column: a heading, the session list and the why strip under it. */
  private buildSidebarColumn(): QWidget {
    const side = new QWidget();
    side.setObjectName('sidebar');
    side.setFixedWidth(SIDEBAR_WIDTH_PX);
    const sideLayout = new QBoxLayout(Direction.TopToBottom);
    sideLayout.setContentsMargins(10, 12, 10, 10);
    sideLayout.setSpacing(4);
    side.setLayout(sideLayout);
    const heading = new QLabel();
    heading.setObjectName('sidebarHeading');
    heading.setText('SESSIONS');
    sideLayout.addWidget(heading);
    sideLayout.addWidget(this.sidebar.widget, 1);
    // Why the selected session is in its state: channel, rule or event, and how long ago.
    this.why.setObjectName('whyStrip');
    this.why.setWordWrap(true);
    sideLayout.addWidget(this.why);
    return side;
  }

  /** The right side: a message banner (hidden until needed) above the session pages. */
  private buildMainArea(): QWidget {
    this.buildEmptyState();
    this.stack.setObjectName('stack');
    this.stack.addWidget(this.emptyState);
    const { widget: main, layout: mainCol } = boxWidget('column', { name: 'mainArea' });
    this.banner.setObjectName('banner');
    this.banner.setWordWrap(true);
    this.banner.hide();
    this.banner.addEventListener(WidgetEventTypes.MouseButtonPress, () => this.banner.hide());
    mainCol.addWidget(this.banner);
    mainCol.addWidget(this.stack, 1);
    this.bannerTimer.addEventListener(WidgetEventTypes.Timer, () => {
      this.banner.hide();
      if (this.bannerTimerId !== null) this.bannerTimer.killTimer(this.bannerTimerId);
      this.bannerTimerId = null;
    });
    return main;
  }

  private buildPicker(central: QWidget, chrome: ChromeColors): Picker {
    const opts = this.opts;
    return new Picker(central, {
      agents: () => opts.agents(),
      folder: () => opts.folder(),
      bypassDefault: (id) => opts.bypassDefault(id),
      onStart: (agentId, cwd, bypass, worktree, machine) => opts.onStart(agentId, cwd, bypass, worktree, machine),
      onFanout: (agentIds, cwd, prompt) => opts.onFanout(agentIds, cwd, prompt),
      machines: () => opts.machines(),
      rememberedMachines: () => opts.rememberedMachines(),
      folderMachine: () => opts.folderMachine(),
      rememberMachine: (folder, value) => opts.rememberMachine(folder, value),
      worktreeDefault: (folder) => opts.worktreeDefault(folder),
      onWorktreeToggled: (folder, on) => opts.onWorktreeToggled(folder, on),
      onInstallLink: (url) => {
        if (!openExternal(url)) this.showMessage(`Install it from ${url}`);
      },
      chrome,
    });
  }

  private listenToWindow(): void {
    const w = this.window;
    w.addEventListener(WidgetEventTypes.WindowActivate, () => this.opts.onActiveChanged(true));
    w.addEventListener(WidgetEventTypes.WindowDeactivate, () => this.opts.onActiveChanged(false));
    for (const t of [WidgetEventTypes.Show, WidgetEventTypes.Hide, WidgetEventTypes.WindowStateChange]) w.addEventListener(t, () => this.opts.onViewChanged());
    w.addEventListener(WidgetEventTypes.Close, () => this.opts.onClosed());
  }

  /** The window's shortcuts (with Settings' overrides) and Ctrl/Cmd+1…9 for the sessions. */
  private bindShortcuts(): void {
    const opts = this.opts;
    const keys = { ...defaultShortcuts(), ...opts.shortcuts };
    for (const action of Object.keys(keys) as ShortcutAction[]) {
      if (action === 'copy' || action === 'paste' || action === 'find') continue; // the terminal view owns these
      this.actionShortcuts.set(
        action,
        this.addShortcut(keys[action], () => (action === 'closeWindow' ? this.window.close() : opts.onAction(action, this.current))),
      );
    }
    for (let n = 1; n <= 9; n++) {
      this.addShortcut(sessionNumberShortcut(n), () => {
        const id = this.order[n === 9 ? this.order.length - 1 : n - 1];
        if (id) opts.onSelect(id);
      });
    }
    this.showNewSessionKey(keys.newSession ?? defaultShortcuts().newSession);
  }

  /** The empty window names the picker's shortcut as Settings has it. */
  private showNewSessionKey(keys: string): void {
    this.emptyHint.setText(`Press ${shortcutLabel(keys)} to start an agent, or run  termio ~/project`);
  }

  /** Applies shortcut overrides from Settings (unknown actions are ignored). */
  applyShortcuts(overrides: Partial<Record<string, string>>): void {
    const keys = { ...defaultShortcuts(), ...overrides };
    for (const [action, sc] of this.actionShortcuts) sc.setKey(new QKeySequence(keys[action] ?? defaultShortcuts()[action]));
    this.showNewSessionKey(keys.newSession ?? defaultShortcuts().newSession);
  }

  /** Where the session pages are, in screen coordinates: the window right of the sidebar. Dialogs
   *  that belong to the window (the welcome) centre themselves on this, not on the whole window. */
  contentGeometry(): { left: number; top: number; width: number; height: number } {
    const g = this.window.geometry();
    return { left: g.left() + SIDEBAR_WIDTH_PX, top: g.top(), width: Math.max(0, g.width() - SIDEBAR_WIDTH_PX), height: g.height() };
  }

  /** Restyles the window, its sidebar and overlays (the terminal pages restyle themselves). */
  setChrome(c: ChromeColors): void {
    this.window.setStyleSheet(chromeStyleSheet(c));
    this.sidebar.setChrome(c);
    this.picker.setChrome(c);
    this.quick.setChrome(c);
  }

  /** Shows why the current session is in its state; false when that text is already shown. */
  setWhy(text: string): boolean {
    // Only on a change: a new text re-lays out the sidebar column.
    if (text === this.whyShown) return false;
    this.whyShown = text;
    this.why.setText(text);
    if (text) this.why.show();
    else this.why.hide();
    return true;
  }
  private whyShown: string | null = null;

  openPicker(): void {
    this.raise();
    this.picker.open();
    this.opts.pickerOpened?.();
    this.opts.log.info('picker opened', { agents: this.picker.visibleNames().length });
  }

  /** A message at the top of the window (an error the user should see); click or wait to dismiss. */
  showMessage(text: string, ms = 12_000): void {
    this.banner.setText(text);
    this.banner.show();
    if (this.bannerTimerId !== null) this.bannerTimer.killTimer(this.bannerTimerId);
    this.bannerTimerId = this.bannerTimer.startTimer(ms);
  }

  get currentSession(): string | null {
    return this.current;
  }

  /** Redraws the sidebar from the host's sessions. */
  setSessions(groups: SidebarGroup[]): void {
    this.order = groups.flatMap((g) => g.rows.map((r) => r.id));
    this.sidebar.update(groups, this.current);
  }

  addSession(id: string, view: SessionPage): void {
    const { widget: container, layout: col } = boxWidget('column', { name: 'sessionPage' });
    col.addWidget(view.widget, 1);
    this.stack.addWidget(container);
    this.pages.set(id, { container, col, view, exitBar: null });
    // Only a laid-out window knows its page size (a never-shown one reports Qt's placeholder
    // sizes); otherwise the session keeps its default size until it is shown.
    if (this.window.isVisible() && this.stack.width() >= 100 && this.stack.height() >= 50) view.fitTo?.(this.stack.width(), this.stack.height());
  }

  /** The bar under a session whose program ended, built the first time one does: every widget
   *  on a page costs time when the page is first shown, and most sessions never need it. */
  private exitBarOf(id: string, page: PageSlot): ExitBar {
    if (page.exitBar) return page.exitBar;
    const widget = new QWidget();
    widget.setObjectName('exitBar');
    const bar = new QBoxLayout(Direction.LeftToRight);
    bar.setContentsMargins(14, 8, 14, 8);
    widget.setLayout(bar);
    const label = new QLabel();
    label.setObjectName('exitLabel');
    bar.addWidget(label, 1);
    const buttons: QPushButton[] = [];
    for (const [text, action] of [
      ['Resume', 'resume'],
      ['New', 'new'],
      ['Close', 'close'],
    ] as const) {
      const b = new QPushButton();
      b.setText(text);
      b.setObjectName(`exit${text}`);
      b.addEventListener('clicked', () => this.opts.onAction(action, id));
      bar.addWidget(b);
      buttons.push(b);
    }
    page.col.addWidget(widget);
    page.exitBar = { widget, label, buttons };
    return page.exitBar;
  }

  /** Shows the exit bar under a session whose program ended (null hides it after a resume). */
  setExited(id: string, exit: ExitInfo | null, canResume: boolean): void {
    const page = this.pages.get(id);
    if (!page) return;
    if (!exit) {
      page.exitBar?.widget.hide();
      return;
    }
    const bar = this.exitBarOf(id, page);
    bar.label.setText(exit.signal ? `The program was ended by signal ${exit.signal}.` : `The program exited with code ${exit.exitCode}.`);
    bar.buttons[0]?.setEnabled(canResume);
    bar.widget.show();
  }

  select(id: string | null): void {
    this.current = id;
    const page = id ? this.pages.get(id) : undefined;
    if (page) {
      this.stack.setCurrentWidget(page.container);
      page.view.focus();
    } else {
      this.stack.setCurrentWidget(this.emptyState);
    }
    this.opts.onViewChanged();
  }

  removeSession(id: string): void {
    const page = this.pages.get(id);
    if (!page) return;
    this.pages.delete(id);
    page.view.dispose();
    this.stack.removeWidget(page.container);
    page.container.close();
    if (this.current === id) this.current = null;
  }

  addShortcut(keys: string, handler: () => void): QShortcut {
    const sc = new QShortcut(this.window);
    sc.setKey(new QKeySequence(keys));
    sc.setEnabled(true);
    sc.addEventListener('activated', handler);
    this.shortcuts.push(sc);
    return sc;
  }

  private traceInput(): void {
    const w = this.window;
    w.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      this.opts.log.debug('input key', { key: e.key(), text: e.text(), modifiers: e.modifiers() });
    });
    w.addEventListener(WidgetEventTypes.MouseButtonPress, (native) => {
      const e = new QMouseEvent(native as never);
      this.opts.log.debug('input mouse', { x: e.x(), y: e.y(), button: e.button() });
    });
  }

  private buildEmptyState(): void {
    this.emptyState.setObjectName('emptyState');
    const col = new QBoxLayout(Direction.TopToBottom);
    col.addStretch(1);
    const title = new QLabel();
    title.setObjectName('emptyTitle');
    title.setText('No sessions yet');
    const hint = this.emptyHint;
    hint.setObjectName('emptyHint');
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

  /** Whether the user sees this window's session now: shown, not minimised (Qt counts a
   *  minimised window as visible), and the window with the keyboard focus. */
  inFront(): boolean {
    return this.window.isVisible() && !this.window.isMinimized() && this.window.isActiveWindow();
  }

  raise(): void {
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
  }

  dispose(): void {
    for (const id of [...this.pages.keys()]) this.removeSession(id);
    this.window.close();
  }
}
