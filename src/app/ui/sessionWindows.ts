// The app's main windows and which session lives in which: opening and reopening windows, the
// active window (whose session the user is looking at), focusing a session, and adding or
// removing a session's terminal page as the registry reports it.
import { homedir } from 'node:os';
import type { AppHost } from '../client/appHost';
import type { Logger } from '../services/log';
import type { AppSessionRecord } from '../client/remoteRegistry';
import { shellQuote } from '../services/shellQuote';
import type { Settings } from '../services/settingsFile';
import type { Appearance } from './appearance';
import type { ChromeColors } from './chromeStyle';
import { MainWindow } from './mainWindow';
import type { PickerAgent } from './picker';
import type { ShortcutAction } from './shortcuts';
import { createSessionPage, terminalTheme, type TerminalSessionPage } from './sessionPage';
import { SwitchTrace } from './switchTrace';
import { machineChoices } from '../present/pickerMachines';

export type WindowAction = ShortcutAction | 'resume' | 'new' | 'close';

export interface SessionWindowsOptions {
  host: AppHost;
  log: Logger;
  chrome(): ChromeColors;
  appearance(): Appearance;
  pickerAgents(): PickerAgent[];
  /** The sidebars, why strips or tray may need to change. */
  refresh(): void;
  onStart(agentId: string | null, cwd: string, bypass: boolean, worktree: boolean, machine: string | null): void;
  /** The picker's fan-out: one prompt to each of these agents, each in a new worktree of cwd's repository. */
  onFanout(agentIds: string[], cwd: string, prompt: string): void;
  onAction(win: MainWindow, action: WindowAction, id: string | null): void;
  /** A session's view painted new output (not the app's own repaints: a cursor blink, focus). */
  onPainted?(): void;
}

export class SessionWindows {
  readonly windows = new Set<MainWindow>();
  private readonly sessionWindow = new Map<string, MainWindow>();
  private readonly views = new Map<string, TerminalSessionPage>();
  private readonly trace: SwitchTrace;
  /** The window the user last worked in; new sessions open there. */
  active: MainWindow | null = null;

  constructor(private readonly opts: SessionWindowsOptions) {
    this.trace = new SwitchTrace(opts.log);
  }

  /** Raises the most recent window, or opens one when none is visible (dock click / relaunch). */
  showWindow(): MainWindow {
    const visible = [...this.windows].filter((w) => w.isVisible());
    const win = this.active && this.active.isVisible() ? this.active : (visible.at(-1) ?? this.reopenWindow());
    win.raise();
    this.active = win;
    return win;
  }

  /** A hidden window that still has sessions comes back; otherwise a new one opens. */
  private reopenWindow(): MainWindow {
    const withSessions = [...this.windows].find((w) => [...this.sessionWindow.values()].includes(w));
    if (withSessions) {
      withSessions.show();
      return withSessions;
    }
    return this.openWindow();
  }

  openWindow(windowId = `window-${Date.now().toString(36)}`): MainWindow {
    const o = this.opts;
    const win: MainWindow = new MainWindow({
      id: windowId,
      agents: () => o.pickerAgents(),
      folder: () => this.currentFolder(win),
      bypassDefault: (agentId) => (agentId ? (o.host.settings.settings.agents[agentId]?.bypass ?? false) : false),
      shortcuts: o.host.settings.settings.shortcuts,
      onStart: (agentId, cwd, bypass, worktree, machine) => o.onStart(agentId, cwd, bypass, worktree, machine),
      onFanout: (agentIds, cwd, prompt) => o.onFanout(agentIds, cwd, prompt),
      // An agent installed since the app started, or on a PATH the profile exports since, shows as
      // installed while the picker is open (the catalog tells the picker only of a change).
      pickerOpened: () => void o.host.refreshAgents(),
      machines: () => machineChoices(o.host.machines),
      rememberedMachines: () => o.host.settings.settings.picker.machines,
      folderMachine: () => (win.currentSession ? (o.host.registry.get(win.currentSession)?.machine ?? null) : null),
      rememberMachine: (folder, value) => {
        const kept = o.host.settings.settings.picker.machines;
        if ((Object.hasOwn(kept, folder) ? kept[folder] : undefined) !== value) void o.host.setSetting(['picker', 'machines', folder], value);
      },
      worktreeDefault: (folder) => o.host.settings.settings.worktrees.repositories[folder] ?? false,
      onWorktreeToggled: (folder, on) => void o.host.setSetting(['worktrees', 'repositories', folder], on),
      onActiveChanged: (active) => {
        if (active) this.setActive(win);
        else this.updateLooking();
      },
      onViewChanged: () => this.updateLooking(),
      log: o.log,
      onClosed: () => o.log.info('window closed'),
      onSelect: (id) => this.focusSession(id),
      onAction: (action, id) => o.onAction(win, action, id),
      chrome: o.chrome(),
    });
    this.windows.add(win);
    this.setActive(win);
    win.show();
    o.refresh();
    return win;
  }

  /** The open window with this id, opened if need be (a saved window, or one a session belongs to). */
  windowFor(windowId: string): MainWindow {
    return [...this.windows].find((w) => w.id === windowId) ?? this.openWindow(windowId);
  }

  private setActive(win: MainWindow): void {
    this.active = win;
    this.opts.host.activeWindowId = win.id;
    this.updateLooking();
  }

  /**
   * Tells the host which session the user is looking at (for notifications and done → idle): the
   * one shown in the focused window, else none. Called on every change of what a window shows
   * or whether it has the focus, so a needs-you is skipped only while its session is in front.
   */
  private updateLooking(): void {
    this.opts.host.setLookingAt(this.lookingAt());
  }

  /** The session shown in the focused window, else null. */
  lookingAt(): string | null {
    const win = this.active;
    return win?.inFront() ? win.currentSession : null;
  }

  /** Where a new session in this window starts: the folder of the one shown, else home. */
  currentFolder(win: MainWindow): string {
    const id = win.currentSession;
    return (id ? this.opts.host.registry.get(id)?.cwd : undefined) ?? homedir();
  }

  focusSession(id: string): void {
    const win = this.sessionWindow.get(id);
    if (!win) return;
    this.opts.log.info('session focused', { id });
    this.trace.started(id);
    this.setActive(win);
    win.raise();
    win.select(id);
    this.updateLooking();
    this.opts.refresh();
  }

  /** The sessions shown in this window, in registry order. */
  sessionIds(win: MainWindow): string[] {
    return this.opts.host.registry
      .list()
      .filter((r) => this.sessionWindow.get(r.id) === win)
      .map((r) => r.id);
  }

  /** The registry sessions shown in this window. */
  sessionsOf(win: MainWindow, all: AppSessionRecord[]): AppSessionRecord[] {
    return all.filter((r) => this.sessionWindow.get(r.id) === win);
  }

  /** A session the host runs: its terminal page goes into its own window, else the active one. */
  handleAdded(r: AppSessionRecord): void {
    if (this.views.has(r.id)) return;
    const win = r.windowId ? this.windowFor(r.windowId) : (this.active ?? this.showWindow());
    this.sessionWindow.set(r.id, win);
    const view = createSessionPage(
      r.session,
      this.opts.host.settings.settings,
      { onDropPaths: (paths) => r.session.paste(paths.map(shellQuote).join(' ')) },
      this.opts.appearance(),
    );
    this.views.set(r.id, view);
    view.terminal.onFramePainted((f) => {
      this.trace.painted(r.id, f);
      // A blinking cursor repaints twice a second and allocates next to nothing: were it activity,
      // the app would never be idle long enough to give memory back.
      if (f.changed > 0) this.opts.onPainted?.();
    });
    this.trace.attached(r.id, r.session);
    win.addSession(r.id, view);
    r.session.onExit((exit) => {
      this.opts.log.info('session shown as ended', { id: r.id, ...exit });
      win.setExited(r.id, exit, true);
      this.opts.refresh();
    });
    if (win.currentSession === null) win.select(r.id);
    this.opts.refresh();
  }

  /** A closed session: its page goes; the window shows the last session left, if it showed this one. */
  handleRemoved(r: AppSessionRecord): void {
    this.views.delete(r.id);
    const win = this.sessionWindow.get(r.id);
    this.sessionWindow.delete(r.id);
    if (!win) return;
    const wasCurrent = win.currentSession === r.id;
    const before = this.sessionIds(win);
    win.removeSession(r.id);
    if (wasCurrent) win.select(before.at(-1) ?? null);
    this.opts.refresh();
  }

  /** Restyles every window and terminal. */
  setAppearance(chrome: ChromeColors, appearance: Appearance): void {
    const theme = terminalTheme(appearance);
    for (const w of this.windows) w.setChrome(chrome);
    for (const v of this.views.values()) v.setTheme(theme);
  }

  /** Applies the font and shortcut settings to every terminal and window. */
  applySettings(s: Settings): void {
    for (const v of this.views.values()) v.terminal.setFont(s.terminal.fontFamily, s.terminal.fontSize);
    for (const w of this.windows) w.applyShortcuts(s.shortcuts);
  }

  dispose(): void {
    for (const w of this.windows) w.dispose();
    this.windows.clear();
  }
}
