// The Termio app: starts the host services, owns the windows and the tray, keeps them in step
// with the session registry, and owns the quit path (Quit action, SIGTERM, SIGINT) that
// disposes every session and exits within a bounded time.
import { QApplication, WidgetEventTypes } from '@nodegui/nodegui';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { QtRuntime } from '../platform';
import { Host, TERMINAL_AGENT_ID } from '../host/host';
import { createLogger, type Logger } from '../host/log';
import { chooseNotificationBackend, TrayMessageSink } from '../host/notificationBackend';
import { termioPaths } from '../host/paths';
import type { SessionRecord } from '../host/sessionRegistry';
import { shellQuote } from '../host/shellQuote';
import { buildSidebar, folderLabels, stateLabel, type SessionSummary } from '../host/sidebarModel';
import { SettingsWindow } from './settingsWindow';
import { hooksChangedText, settingsAgent, type SettingsAgent } from './presenters/settingsText';
import { trayItems } from './presenters/trayText';
import { whyText } from './presenters/whyText';
import { WelcomeWindow } from './welcomeWindow';
import { MainWindow } from './mainWindow';
import type { PickerAgent } from './picker';
import type { ShortcutAction } from './shortcuts';
import { appearanceOverride, decideAppearance, systemAppearance, type Appearance } from './appearance';
import { chromeFor, type ChromeColors } from './chromeStyle';
import { createTerminalView, terminalTheme, type TerminalPage } from './sessionView';
import { Tray } from './tray';
import { installAppMenu, type AppMenu } from './appMenu';
import { appMenuItems } from './appMenuSpec';

/** If disposing sessions hangs (a pty that will not die), exit anyway after this long; the
 * issue allows 2 s from SIGTERM to exit, and we leave headroom for process teardown. */
const QUIT_DEADLINE_MS = 1_500;
/** TERMIO_TRACE_FRAMES=1 logs every painted frame at debug level (for benchmarks). */
const TRACE_FRAMES = process.env.TERMIO_TRACE_FRAMES === '1';

export class TermioApp {
  readonly log: Logger;
  readonly qApp = QApplication.instance();
  readonly windows = new Set<MainWindow>();
  readonly tray: Tray;
  private readonly sessionWindow = new Map<string, MainWindow>();
  private readonly views = new Map<string, TerminalPage>();
  /** Dark or light, for the chrome and the terminals (see appearance.ts). */
  private appearance: Appearance = 'dark';
  /** TERMIO_APPEARANCE, read once at start. */
  private appearanceEnv: Appearance | null = null;
  private settingsWindow: SettingsWindow | null = null;
  /** For bench/window.mjs: when a switch started, and when the oldest unshown state change came. */
  private switchStarted: { id: string; at: number } | null = null;
  private changePendingSince: number | null = null;
  private welcome: WelcomeWindow | null = null;
  private activeWindow: MainWindow | null = null;
  private quitting = false;
  private refreshQueued = false;
  /** macOS: the app menu whose Quit (and ⌘Q) runs quit() (held: NodeGUI objects die with their wrappers). */
  readonly appMenu: AppMenu | null;

  constructor(
    private readonly runtime: QtRuntime,
    readonly host: Host,
    log: Logger,
    trayMessages?: TrayMessageSink,
  ) {
    this.log = log;
    this.qApp.setQuitOnLastWindowClosed(false);
    // A dock click (macOS) activates the app: with no window on screen, open one, as Terminal does.
    this.qApp.addEventListener(WidgetEventTypes.ApplicationActivate, () => {
      if (![...this.windows].some((w) => w.isVisible())) this.showWindow();
    });
    const env = appearanceOverride(process.env.TERMIO_APPEARANCE);
    if (env.error) this.log.warn(env.error);
    this.appearanceEnv = env.appearance;
    this.appearance = this.decideAppearance();
    this.log.info('appearance', { appearance: this.appearance, setting: host.settings.settings.terminal.theme });
    // The OS switched between light and dark (or the desktop's palette changed): Qt updates the
    // application palette and tells the application object.
    this.qApp.addEventListener(WidgetEventTypes.ApplicationPaletteChange, () => this.applyAppearance('system palette changed'));
    // And check again whenever the app comes to the front, in case that event was missed.
    this.qApp.addEventListener(WidgetEventTypes.ApplicationActivate, () => this.applyAppearance('app activated'));
    this.tray = new Tray({
      onShow: () => this.showWindow(),
      onQuit: () => void this.quit('menu'),
      onSelectSession: (id) => this.focusSession(id),
      onNewSession: (agentId) => void this.newSession(agentId, null),
      onSettings: () => this.showSettings(),
      onMessageClicked: () => trayMessages?.clicked(),
      log: this.log,
    });
    this.appMenu = installAppMenu(appMenuItems(process.platform), { quit: () => void this.quit('app menu') });
    const reg = host.registry;
    reg.onAdded((r) => this.handleAdded(r));
    reg.onRemoved((r) => this.handleRemoved(r));
    reg.onChanged(() => this.refresh());
    host.tracker.onProgress(() => this.refresh());
    reg.onStateChanged(() => {
      this.changePendingSince ??= performance.now();
      this.refresh();
    });
    reg.onFocusRequested((r) => this.focusSession(r.id));
    reg.onStallChanged(() => this.refresh());
    host.catalog.onChange(() => this.handleCatalogChange());
    host.settings.onChange(() => this.handleSettingsChange());
    this.log.info('app started', { pid: process.pid, runtime: runtime.kind });
  }

  /** Raises the most recent window, or opens one when none is visible (dock click / relaunch). */
  showWindow(): MainWindow {
    const visible = [...this.windows].filter((w) => w.isVisible());
    const win = this.activeWindow && this.activeWindow.isVisible() ? this.activeWindow : (visible.at(-1) ?? this.reopenWindow());
    win.raise();
    this.activeWindow = win;
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
    const win: MainWindow = new MainWindow({
      id: windowId,
      agents: () => this.pickerAgents(),
      folder: () => this.currentFolder(win),
      bypassDefault: (agentId) => (agentId ? (this.host.settings.settings.agents[agentId]?.bypass ?? false) : false),
      shortcuts: this.host.settings.settings.shortcuts,
      onStart: (agentId, cwd, bypass) => void this.newSession(agentId, cwd, bypass),
      onActiveChanged: (active) => {
        if (active) this.setActive(win);
        else this.updateLooking();
      },
      log: this.log,
      onClosed: () => this.log.info('window closed'),
      onSelect: (id) => this.focusSession(id),
      onAction: (action, id) => void this.handleAction(win, action, id),
      chrome: this.chrome,
    });
    this.windows.add(win);
    this.setActive(win);
    win.show();
    this.refresh();
    return win;
  }

  private setActive(win: MainWindow): void {
    this.activeWindow = win;
    this.host.activeWindowId = win.id;
    this.updateLooking();
  }

  /** Tells the host which session the user is looking at (for notifications and done → idle). */
  private updateLooking(): void {
    const win = this.activeWindow;
    this.host.setLookingAt(win && win.isVisible() && win.isActive() ? win.currentSession : null);
  }

  private currentFolder(win: MainWindow): string {
    const id = win.currentSession;
    return (id ? this.host.registry.get(id)?.cwd : undefined) ?? homedir();
  }

  pickerAgents(): PickerAgent[] {
    return this.host.enabledAgents().map((e) => ({
      id: e.id === TERMINAL_AGENT_ID ? null : e.id,
      name: e.manifest.name,
      ...(e.iconFile ? { iconFile: e.iconFile } : {}),
      ...(e.manifest.icon?.tint ? { iconTint: e.manifest.icon.tint } : {}),
      installed: e.installed,
      ...(e.manifest.install ? { installUrl: e.manifest.install } : {}),
      hasBypass: Boolean(e.manifest.permissionBypassFlag),
    }));
  }

  focusSession(id: string): void {
    const win = this.sessionWindow.get(id);
    if (!win) return;
    this.log.info('session focused', { id });
    this.switchStarted = { id, at: performance.now() };
    this.setActive(win);
    win.raise();
    win.select(id);
    this.updateLooking();
    this.refresh();
  }

  async newSession(agentId: string | null, cwd: string | null, bypass = false): Promise<void> {
    const win = this.activeWindow ?? this.showWindow();
    const folder = cwd ?? this.currentFolder(win);
    const r = await this.host.registry.spawn({ ...(agentId ? { agent: agentId } : {}), cwd: folder, bypass });
    if (!r.ok) {
      this.log.warn('spawn failed', { agentId, cwd: folder, message: r.message });
      win.showMessage(r.message);
    } else this.host.registry.requestFocus(r.record.id);
  }

  private async handleAction(win: MainWindow, action: ShortcutAction | 'resume' | 'new' | 'close', id: string | null): Promise<void> {
    this.activeWindow = win;
    const ids = this.windowSessionIds(win);
    const at = id ? ids.indexOf(id) : -1;
    switch (action) {
      case 'newSession':
        win.openPicker();
        break;
      case 'new':
        await this.newSession(id ? (this.host.registry.get(id)?.agentId ?? null) : null, id ? (this.host.registry.get(id)?.cwd ?? null) : null);
        break;
      case 'resume':
        if (id) await this.host.relaunch(id);
        break;
      case 'closeSession':
      case 'close':
        if (id) this.closeSession(win, id);
        break;
      case 'nextSession':
      case 'previousSession': {
        if (ids.length === 0) break;
        const step = action === 'nextSession' ? 1 : -1;
        const next = ids[(at + step + ids.length) % ids.length];
        if (next) this.focusSession(next);
        break;
      }
      case 'newWindow':
        this.openWindow();
        break;
      case 'jumpToSession':
        this.jumpToSession(win);
        break;
      case 'renameSession':
        if (id) {
          const r = this.host.registry.get(id);
          win.quick.openText('RENAME SESSION', r?.title || this.agentName(r?.agentId ?? null), (title) => this.host.rename(id, title));
        }
        break;
      case 'settings':
        this.showSettings();
        break;
      default:
        this.log.info('action not available yet', { action });
    }
  }

  /** Closes a session; one that started others asks first whether they go too (Esc keeps all). */
  private closeSession(win: MainWindow, id: string): void {
    const reg = this.host.registry;
    const descendants = (of: string): SessionRecord[] => reg.children(of).flatMap((c) => [c, ...descendants(c.id)]);
    const started = descendants(id);
    if (started.length === 0) {
      reg.close(id);
      return;
    }
    const n = started.length;
    const them = n === 1 ? 'the session it started' : `the ${n} sessions it started`;
    this.log.info('close asks about started sessions', { id, started: started.map((c) => c.id) });
    win.quick.openList(
      `CLOSE · IT STARTED ${n} SESSION${n === 1 ? '' : 'S'}`,
      [
        { id: 'all', label: `Close it and ${them}`, detail: started.map((c) => c.title.trim() || this.agentName(c.agentId)).join(', ') },
        { id: 'one', label: 'Close only this one', detail: `${them} ${n === 1 ? 'stays' : 'stay'} open` },
      ],
      (choice) => {
        for (const c of choice === 'all' ? started : []) reg.close(c.id);
        reg.close(id);
      },
      'Enter closes, Esc keeps everything open',
    );
  }

  private windowSessionIds(win: MainWindow): string[] {
    return this.host.registry.list().filter((r) => this.sessionWindow.get(r.id) === win).map((r) => r.id);
  }

  private handleAdded(r: SessionRecord): void {
    const win = this.activeWindow ?? this.showWindow();
    this.sessionWindow.set(r.id, win);
    const view = createTerminalView(
      r.session,
      this.host.settings.settings,
      { onDropPaths: (paths) => r.session.paste(paths.map(shellQuote).join(' ')) },
      this.appearance,
    );
    this.views.set(r.id, view);
    view.terminal.onFramePainted((f) => {
      // Benchmarks time what a user sees against their own clock: the wall time each frame ends.
      if (TRACE_FRAMES) this.log.debug('frame painted', { id: r.id, at: +(performance.timeOrigin + f.start + f.paintMs).toFixed(2), ms: +f.paintMs.toFixed(2), rows: f.rows });
      if (this.switchStarted?.id !== r.id) return;
      const end = performance.now();
      this.log.debug('switch painted', { id: r.id, ms: +(end - this.switchStarted.at).toFixed(2), at: +(performance.timeOrigin + end).toFixed(2) });
      this.switchStarted = null;
    });
    win.addSession(r.id, view);
    r.session.onExit((exit) => {
      win.setExited(r.id, exit, true);
      this.refresh();
    });
    if (win.currentSession === null) win.select(r.id);
    this.refresh();
  }

  private handleRemoved(r: SessionRecord): void {
    this.views.delete(r.id);
    const win = this.sessionWindow.get(r.id);
    this.sessionWindow.delete(r.id);
    if (!win) return;
    const wasCurrent = win.currentSession === r.id;
    const before = this.windowSessionIds(win);
    win.removeSession(r.id);
    if (wasCurrent) win.select(before.at(-1) ?? null);
    this.refresh();
  }

  private summaries(records: SessionRecord[]): SessionSummary[] {
    return records.map((r) => {
      const agent = this.host.agent(r.agentId);
      return {
        id: r.id,
        agentId: r.agentId,
        cwd: r.cwd,
        title: r.title,
        state: r.state,
        stateSince: r.stateSince,
        createdAt: r.createdAt,
        exited: r.session.exited,
        parentId: r.parentId,
        stalled: r.stalledSince !== null,
        ...(agent?.iconFile ? { iconFile: agent.iconFile } : {}),
        ...(agent?.manifest.icon?.tint ? { iconTint: agent.manifest.icon.tint } : {}),
        ...(this.host.tracker.progressOf(r.id) !== null ? { progress: this.host.tracker.progressOf(r.id)! } : {}),
      };
    });
  }

  /** "Working — hook PreToolUse, 3s ago" (+ health notes) for the selected session. */
  whyText(id: string): string {
    const r = this.host.registry.get(id);
    if (!r) return '';
    return whyText({ state: r.state, stateWhy: r.stateWhy, status: this.host.tracker.status(id), tool: this.host.toolOf(id), now: Date.now() });
  }

  agentName(id: string | null): string {
    return this.host.agentName(id);
  }

  /** Brings sidebars and tray up to date, once per burst of registry events. */
  refresh(): void {
    if (this.refreshQueued) return;
    this.refreshQueued = true;
    queueMicrotask(() => {
      this.refreshQueued = false;
      if (this.quitting) return;
      const all = this.host.registry.list();
      for (const win of this.windows) {
        const mine = all.filter((r) => this.sessionWindow.get(r.id) === win);
        win.setSessions(buildSidebar(this.summaries(mine), (id) => this.agentName(id), homedir()));
        const why = win.currentSession ? this.whyText(win.currentSession) : '';
        if (win.setWhy(why)) this.log.debug('why shown', { text: why });
      }
      if (this.changePendingSince !== null) {
        this.log.debug('sidebar updated', { ms: +(performance.now() - this.changePendingSince).toFixed(2) });
        this.changePendingSince = null;
      }
      this.tray.update(
        trayItems(all, (id) => this.agentName(id), (id) => this.host.agent(id)?.iconFile, homedir()),
        this.host.enabledAgents().filter((e) => e.id !== TERMINAL_AGENT_ID).map((e) => ({ id: e.id, name: e.manifest.name, installed: e.installed, ...(e.iconFile ? { icon: e.iconFile } : {}) })),
      );
    });
  }

  /** Every session in every window, filtered by name, folder or agent; Enter focuses it. */
  jumpToSession(win: MainWindow): void {
    const labels = folderLabels(this.host.registry.list().map((r) => r.cwd), homedir());
    win.quick.openList(
      'JUMP TO SESSION',
      this.host.registry.list().map((r) => ({
        id: r.id,
        label: r.title.trim() || this.agentName(r.agentId),
        detail: `${labels.get(r.cwd) ?? r.cwd} · ${this.agentName(r.agentId)} · ${stateLabel[r.state]}`,
      })),
      (id) => this.focusSession(id),
    );
  }

  showSettings(): void {
    if (!this.settingsWindow) {
      const host = this.host;
      this.settingsWindow = new SettingsWindow({
        settings: () => host.settings.settings,
        errors: () => host.settings.errors,
        settingsFile: () => host.paths.settingsFile,
        set: (path, value) => host.settings.set(path, value),
        moveAgent: (id, delta) => host.moveAgent(id, delta),
        agents: () => this.settingsAgents(),
        setHooks: (id, on) => hooksChangedText(this.agentName(id), on, host.setHooks(id, on), homedir()),
      }, this.chrome);
    }
    this.settingsWindow.show(undefined, this.activeWindow?.window);
  }

  private settingsAgents(): SettingsAgent[] {
    return this.host.orderedAgents().map((e) => settingsAgent(e, e.manifest.hooks ? this.host.hookStatus(e.id) : null, homedir()));
  }

  /** First launch: offer live status for the agents on the PATH (skippable, asked once). */
  private maybeWelcome(): void {
    const s = this.host.settings.settings;
    if (s.welcomeShown) return;
    const agents = this.settingsAgents().filter((a) => a.installed && a.hooks);
    const done = () => this.host.settings.set(['welcomeShown'], true);
    this.welcome = new WelcomeWindow({
      agents,
      onInstall: (ids) => {
        for (const id of ids) this.host.setHooks(id, true);
        done();
      },
      onSkip: done,
      chrome: this.chrome,
    });
    this.welcome.show(this.activeWindow?.contentGeometry());
    this.log.info('welcome shown', { agents: agents.map((a) => a.id) });
  }

  private handleSettingsChange(): void {
    const s = this.host.settings.settings;
    this.applyAppearance('settings changed');
    for (const v of this.views.values()) v.terminal.setFont(s.terminal.fontFamily, s.terminal.fontSize);
    for (const w of this.windows) w.applyShortcuts(s.shortcuts);
    this.settingsWindow?.refreshProblems();
    if (this.host.settings.errors.length) this.activeWindow?.showMessage(this.host.settings.errors.join('\n'));
    this.refresh();
  }

  get chrome(): ChromeColors {
    return chromeFor(this.appearance);
  }

  /** The theme setting, else TERMIO_APPEARANCE, else the OS palette, else dark. */
  private decideAppearance(): Appearance {
    return decideAppearance(this.host.settings.settings.terminal.theme, this.appearanceEnv, systemAppearance(this.qApp));
  }

  /** Restyles every window and terminal when the appearance changed. */
  private applyAppearance(why: string): void {
    const next = this.decideAppearance();
    if (next === this.appearance) return;
    this.appearance = next;
    this.log.info('appearance', { appearance: next, why });
    const chrome = this.chrome;
    const theme = terminalTheme(next);
    for (const w of this.windows) w.setChrome(chrome);
    for (const v of this.views.values()) v.setTheme(theme);
    this.settingsWindow?.setChrome(chrome);
    this.welcome?.setChrome(chrome);
  }

  private handleCatalogChange(): void {
    this.settingsWindow?.refresh();
    const problems = this.host.catalog.problems();
    for (const win of this.windows) {
      win.picker.agentsChanged();
      if (win.picker.isOpen) this.log.info('picker agents', { names: win.picker.visibleNames() });
    }
    this.log.info('catalog changed', { agents: this.host.catalog.list().map((e) => e.id), problems: problems.map((p) => `${p.label}: ${p.errors.join('; ')}`) });
    for (const p of problems) {
      const kept = p.keptLastGood ? ' (the last good version stays loaded)' : '';
      // Each error already names its file.
      this.activeWindow?.showMessage(`${p.errors.join('\n')}${kept}`);
    }
    this.refresh();
  }

  /** Reopens the saved windows with their sessions (or one empty window on first launch). */
  async restore(): Promise<void> {
    const saved = this.host.savedWindows();
    if (saved.length === 0) {
      this.openWindow('window-1');
      this.log.info('window shown', { msSinceStart: Math.round(performance.now()) });
      for (const p of this.host.problems) this.activeWindow?.showMessage(p.message);
      this.maybeWelcome();
      return;
    }
    for (const id of saved) {
      this.openWindow(id);
      if (id === saved[0]) this.log.info('window shown', { msSinceStart: Math.round(performance.now()) });
      await this.host.restoreWindow(id);
    }
    this.log.info('sessions restored', { sessions: this.host.registry.size, msSinceStart: Math.round(performance.now()) });
    for (const p of this.host.problems) this.activeWindow?.showMessage(p.message);
    this.maybeWelcome();
  }

  async quit(reason: string): Promise<void> {
    if (this.quitting) return;
    this.quitting = true;
    this.log.info('quitting', { reason });
    const deadline = setTimeout(() => {
      this.log.warn('quit deadline passed; exiting anyway');
      process.exit(0);
    }, QUIT_DEADLINE_MS);
    try {
      await this.host.dispose();
      for (const w of this.windows) w.dispose();
      this.windows.clear();
      this.tray.dispose();
    } catch (err) {
      this.log.error('error while quitting', { error: String(err) });
    } finally {
      clearTimeout(deadline);
      this.runtime.stop();
      process.exit(0);
    }
  }
}

export type RunResult = { kind: 'running'; app: TermioApp } | { kind: 'alreadyRunning'; pid?: number } | { kind: 'failed'; message: string };

export async function runTermio(runtime: QtRuntime): Promise<RunResult> {
  const paths = termioPaths();
  const log = createLogger(join(paths.logsDir, 'termio.log'), { stderr: process.env.TERMIO_LOG_STDERR === '1' });
  let app: TermioApp | null = null;
  const backend = chooseNotificationBackend({ platform: process.platform, execPath: process.execPath, override: process.env.TERMIO_NOTIFIER });
  // The tray exists only once the app does; notifications come after start-up anyway.
  const trayMessages = backend === 'tray' ? new TrayMessageSink((title, message) => app?.tray.showMessage(title, message)) : undefined;
  log.info('notifications', { backend });
  const started = await Host.start({
    logger: log,
    ...(trayMessages ? { notificationSink: trayMessages } : {}),
    onActivate: () => app?.showWindow(),
    onNotificationClick: (id) => (id ? app?.focusSession(id) : app?.showWindow()),
  });
  if (!started.ok) {
    if (started.alreadyRunning) {
      log.info('Termio is already running; handing over to it', started.pid !== undefined ? { pid: started.pid } : {});
      return { kind: 'alreadyRunning', ...(started.pid !== undefined ? { pid: started.pid } : {}) };
    }
    log.error('cannot start', { message: started.message });
    return { kind: 'failed', message: started.message };
  }
  app = new TermioApp(runtime, started.host, log, trayMessages);
  // Strong reference for the app's lifetime: NodeGUI objects die with their JS wrappers.
  (globalThis as { termio?: TermioApp }).termio = app;
  const running = app;
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void running.quit(sig));
  // A failed background promise (a spawn refused after quit began, a watcher that could not
  // start) is a bug to log, not a reason to take every session down with the app.
  process.on('unhandledRejection', (err) => log.error('unhandled rejection', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  await app.restore();
  return { kind: 'running', app };
}
