// The Termio app: a client of the session host (remote/remoteHost.ts) that composes the parts of
// the UI — the windows and their sessions (sessionWindows.ts), what commands do
// (sessionActions.ts), the text kept in step with the sessions (viewSync.ts), Settings and welcome
// (settingsPanels.ts), dark or light (appearanceController.ts), the tray and the quit path
// (quitPath.ts) — and wires the host's events to them.
import { QApplication, WidgetEventTypes } from '@nodegui/nodegui';
import { join } from 'node:path';
import { IdleTrim, type QtRuntime } from '../platform';
import { GlobalKeys, type GlobalKeyAction } from '../platform/globalKeys';
import { nextSession } from '../../protocol/attentionQueue';
import { TERMINAL_AGENT_ID } from '../services/agentIds';
import { FOCUS_SESSION_ENV } from '../services/appLaunch';
import { createLogger, type Logger } from '../services/log';
import { chooseNotificationBackend } from '../services/notificationBackend';
import { termioPaths } from '../services/paths';
import { askToRestartHost } from './hostSkewDialog';
import type { AppHost } from '../client/appHost';
import { RemoteHost } from '../client/remoteHost';
import type { MainWindow } from './mainWindow';
import type { PickerAgent } from './picker';
import type { ChromeColors } from './chromeStyle';
import { Tray } from './tray';
import { installAppMenu, type AppMenu } from './appMenu';
import { appMenuItems } from './appMenuSpec';
import { AppearanceController } from './appearanceController';
import { catalogProblemText } from '../present/sessionPrompts';
import { QuitPath } from './quitPath';
import { SessionActions, type AppWindow } from './sessionActions';
import { SessionWindows } from './sessionWindows';
import { SettingsPanels } from './settingsPanels';
import { UsageWindow } from './usageWindow';
import { HistoryWindow } from './historyWindow';
import { ViewSync } from './viewSync';
import { AskpassPrompts } from './askpassPrompt';
import { unavailableNote } from '../services/programIdentity';

export class TermioApp {
  readonly log: Logger;
  readonly qApp = QApplication.instance();
  readonly tray: Tray;
  /** macOS: the app menu whose Quit (and ⌘Q) runs quit() (held: NodeGUI objects die with their wrappers). */
  readonly appMenu: AppMenu | null;
  private readonly sessionWindows: SessionWindows;
  private readonly actions: SessionActions;
  private readonly panels: SettingsPanels;
  private readonly appearance: AppearanceController;
  private readonly sync: ViewSync;
  private readonly quitPath: QuitPath;
  /** The Usage window and the History pane, made when first shown. */
  private usage: UsageWindow | null = null;
  private history: HistoryWindow | null = null;
  /** What ssh asks while the host connects a machine, each in a small non-modal window. */
  private askpass: AskpassPrompts | null = null;
  /** The session of the last notification shown through the tray (a click on it focuses the session). */
  private lastTraySession: string | null = null;
  /** How notifications reach the user: through the tray on macOS in the app bundle, else the host posts them. */
  notifier: 'tray' | 'host' = 'host';
  /** Freed heap back to the system after a quiet spell (painted frames are the activity). */
  private readonly idleTrim: IdleTrim;
  /** The system-wide keys (Settings → Shortcuts): next session that needs you, the agent picker. */
  readonly globalKeys: GlobalKeys;

  constructor(
    private readonly runtime: QtRuntime,
    readonly host: AppHost,
    log: Logger,
  ) {
    this.log = log;
    this.idleTrim = new IdleTrim(() => {
      const started = performance.now();
      const released = runtime.trimMemory();
      log.debug('heap trimmed after a quiet spell', {
        released,
        ms: Math.round((performance.now() - started) * 10) / 10,
        rssMb: Math.round(process.memoryUsage.rss() / 1e5) / 10,
      });
      return released;
    });
    // Start-up's own garbage goes too, once the first windows have settled.
    this.idleTrim.poke();
    this.qApp.setQuitOnLastWindowClosed(false);
    // A dock click (macOS) activates the app: with no window on screen, open one, as Terminal does.
    this.qApp.addEventListener(WidgetEventTypes.ApplicationActivate, () => {
      if (![...this.windows].some((w) => w.isVisible())) this.showWindow();
    });
    this.appearance = new AppearanceController(
      this.qApp,
      () => host.settings.settings.terminal.theme,
      log,
      (next) => {
        const chrome = this.chrome;
        this.sessionWindows.setAppearance(chrome, next);
        this.panels.setChrome(chrome);
        this.actions.setChrome(chrome);
        this.usage?.setChrome(chrome);
        this.history?.setChrome(chrome);
      },
    );
    this.sessionWindows = new SessionWindows({
      host,
      log,
      chrome: () => this.chrome,
      appearance: () => this.appearance.appearance,
      pickerAgents: () => this.pickerAgents(),
      refresh: () => this.refresh(),
      onStart: (agentId, cwd, bypass, worktree, machine) => void this.newSession(agentId, cwd, bypass, worktree, machine),
      onFanout: (agentIds, cwd, prompt) => void this.actions.fanout(agentIds, cwd, prompt),
      onAction: (win, action, id) => void this.actions.handle(win, action, id),
      onPainted: () => this.idleTrim.poke(),
    });
    this.globalKeys = GlobalKeys.forThisMachine(log);
    this.globalKeys.onPressed((action) => this.globalKey(action));
    this.panels = new SettingsPanels({ host, log, chrome: () => this.chrome, activeWindow: () => this.sessionWindows.active, globalKeys: this.globalKeys });
    this.actions = new SessionActions({ host, windows: this.sessionWindows, log, open: (w) => this.openAppWindow(w), chrome: () => this.chrome });
    this.tray = this.makeTray();
    this.quitPath = this.makeQuitPath();
    this.sync = new ViewSync({ host, windows: this.sessionWindows, tray: this.tray, log, stopped: () => this.quitPath.quitting });
    this.appMenu = installAppMenu(appMenuItems(process.platform), { quit: () => void this.quit('app menu'), quitEnd: () => void this.quit('app menu', 'end') });
    this.listen();
    this.globalKeys.apply(host.settings.settings.globalShortcuts);
    this.log.info('app started', { pid: process.pid, runtime: runtime.kind });
  }

  /** The tray: its menu's commands and what a click on a notification or an answer does. */
  private makeTray(): Tray {
    const host = this.host;
    return new Tray({
      onShow: () => this.showWindow(),
      onQuit: () => void this.quit('menu'),
      onQuitEnd: () => void this.quit('menu', 'end'),
      onSelectSession: (id) => this.focusSession(id),
      onAnswer: (id, question, choice) => {
        void host.answer(id, question, choice).then((r) => this.log.info('tray answer', { session: id, answered: r.answered, message: r.message }));
      },
      onNewSession: (agentId) => void this.newSession(agentId, null),
      onSettings: () => this.showSettings(),
      onUsage: () => this.showUsage(),
      onHistory: () => this.showHistory(),
      onMessageClicked: () => host.notificationClicked(this.lastTraySession),
      log: this.log,
    });
  }

  /** Quitting: the host let go (or its sessions ended), then the UI, then the Qt runtime. */
  private makeQuitPath(): QuitPath {
    const host = this.host;
    return new QuitPath(this.log, {
      disposeHost: async (mode) => {
        // Quitting detaches (the sessions keep running in the host) unless asked to end them.
        if ((mode ?? host.settings.settings.sessions.onQuit) === 'end') await host.endSessions();
        host.dispose();
      },
      disposeUi: () => {
        this.globalKeys.dispose();
        this.askpass?.dispose();
        this.idleTrim.dispose();
        this.sessionWindows.dispose();
        this.tray.dispose();
      },
      stopRuntime: () => this.runtime.stop(),
    });
  }

  /** Keeps the windows, panels and tray in step with the host's registry, catalog and settings. */
  private listen(): void {
    const host = this.host;
    this.askpass = new AskpassPrompts(host, (m, f) => this.log.info(m, f));
    host.onActivate = () => this.showWindow();
    host.onNotify = (title, body, session) => {
      this.lastTraySession = session;
      this.tray.showMessage(title, body);
    };
    host.onHostLost = (why) => this.hostLost(why);
    const reg = host.registry;
    reg.onAdded((r) => this.sessionWindows.handleAdded(r));
    reg.onRemoved((r) => this.sessionWindows.handleRemoved(r));
    reg.onUpdated(({ record, previous }) => (record.state !== previous.state ? this.sync.stateChanged() : this.refresh()));
    reg.onFocusRequested((r) => this.focusSession(r.id));
    host.catalog.onChange(() => this.handleCatalogChange());
    host.settings.onChange(() => this.handleSettingsChange());
  }

  get windows(): Set<MainWindow> {
    return this.sessionWindows.windows;
  }

  get chrome(): ChromeColors {
    return this.appearance.chrome;
  }

  /** Raises the most recent window, or opens one when none is visible (dock click / relaunch). */
  showWindow(): MainWindow {
    return this.sessionWindows.showWindow();
  }

  openWindow(windowId?: string): MainWindow {
    return this.sessionWindows.openWindow(windowId);
  }

  focusSession(id: string): void {
    this.sessionWindows.focusSession(id);
  }

  newSession(agentId: string | null, cwd: string | null, bypass = false, worktree = false, machine: string | null = null): Promise<void> {
    return this.actions.newSession(agentId, cwd, bypass, worktree, machine);
  }

  jumpToSession(win: MainWindow): void {
    this.actions.jumpToSession(win);
  }

  showSettings(): void {
    this.panels.showSettings();
  }

  /** One of the app's own windows, asked for by a shortcut. */
  private openAppWindow(w: AppWindow): void {
    if (w === 'settings') this.showSettings();
    else if (w === 'usage') this.showUsage();
    else this.showHistory();
  }

  /** The History pane (one; a second ask brings it forward with its words selected). */
  showHistory(): void {
    this.history ??= new HistoryWindow({ host: this.host, chrome: this.chrome, focus: (id) => this.focusResumed(id), log: (m, f) => this.log.info(m, f) });
    this.history.open();
  }

  /** Shows a session the History pane resumed, now or as soon as the host's event adds it. */
  private focusResumed(id: string): void {
    const reg = this.host.registry;
    if (reg.requestFocus(id)) return;
    const added = reg.onAdded((r) => {
      if (r.id !== id) return;
      added.dispose();
      reg.requestFocus(id);
    });
  }

  /** The Usage window (one; a second ask brings it forward and reads the figures again). */
  showUsage(): void {
    this.usage ??= new UsageWindow({ host: this.host, chrome: this.chrome, log: (m, f) => this.log.info(m, f) });
    void this.usage.open();
  }

  /** Brings sidebars and tray up to date, once per burst of registry events. */
  refresh(): void {
    this.sync.refresh();
  }

  /** "Working — hook PreToolUse, 3s ago" (+ health notes) for the selected session. */
  whyText(id: string): string {
    return this.sync.whyText(id);
  }

  agentName(id: string | null): string {
    return this.host.agentName(id);
  }

  pickerAgents(): PickerAgent[] {
    return this.host.enabledAgents().map((e) => ({
      id: e.id === TERMINAL_AGENT_ID ? null : e.id,
      name: e.manifest.name,
      iconFile: e.iconFile || undefined,
      iconTint: e.manifest.icon?.tint || undefined,
      unavailable: unavailableNote(e),
      unverified: e.verified === null ? true : undefined,
      installUrl: e.manifest.install || undefined,
      hasBypass: Boolean(e.manifest.permissionBypassFlag),
    }));
  }

  /** A global key was pressed, whichever application had the focus. "Next" walks the attention
   *  queue from the session in front (src/protocol/attentionQueue.ts), else goes to the session
   *  done last; "picker" opens the agent picker in the front window. */
  private globalKey(action: GlobalKeyAction): void {
    if (action === 'picker') {
      this.log.info('global key pressed', { action });
      (this.sessionWindows.active ?? this.showWindow()).openPicker();
    } else {
      const next = nextSession(this.host.registry.list(), this.sessionWindows.lookingAt());
      this.log.info('global key pressed', { action, session: next?.session.id ?? null, reason: next?.reason ?? 'none' });
      if (next) this.focusSession(next.session.id);
    }
    const front = this.sessionWindows.active;
    if (front) this.globalKeys.activate(front.window.winId());
  }

  private handleSettingsChange(): void {
    const s = this.host.settings.settings;
    this.globalKeys.apply(s.globalShortcuts);
    this.appearance.update('settings changed');
    this.sessionWindows.applySettings(s);
    this.panels.settingsChanged();
    if (this.host.settings.errors.length) this.sessionWindows.active?.showMessage(this.host.settings.errors.join('\n'));
    this.refresh();
  }

  private handleCatalogChange(): void {
    this.panels.catalogChanged();
    const problems = this.host.catalog.problems();
    for (const win of this.windows) {
      win.picker.agentsChanged();
      if (win.picker.isOpen) this.log.info('picker agents', { names: win.picker.visibleNames(), notes: win.picker.visibleNotes() });
    }
    this.log.info('catalog changed', {
      agents: this.host.catalog.list().map((e) => e.id),
      problems: problems.map((p) => `${p.label}: ${p.errors.join('; ')}`),
    });
    for (const p of problems) this.sessionWindows.active?.showMessage(catalogProblemText(p));
    this.refresh();
  }

  /**
   * Shows what the host runs, then asks it to relaunch the saved sessions it does not run: the
   * windows open at once with the live sessions' screens, and relaunched ones join as they start.
   */
  async restore(first: { windows: string[] }): Promise<void> {
    const saved = first.windows.length > 0 ? first.windows : ['window-1'];
    for (const id of saved) this.sessionWindows.windowFor(id);
    for (const r of this.host.registry.list()) this.sessionWindows.handleAdded(r);
    this.log.info('window shown', { msSinceStart: Math.round(performance.now()), attached: this.host.registry.size });
    await this.host.subscribe(true, this.notifier);
    const recovered = this.host.registry.list().filter((r) => r.recovered);
    this.log.info('sessions restored', { sessions: this.host.registry.size, recovered: recovered.length, msSinceStart: Math.round(performance.now()) });
    if (recovered.length > 0) this.sessionWindows.active?.showMessage(recoveredText(recovered.length));
    for (const p of this.host.problems) this.sessionWindows.active?.showMessage(p.message);
    const focus = process.env[FOCUS_SESSION_ENV];
    if (focus && this.host.registry.get(focus)) this.focusSession(focus);
    this.panels.maybeWelcome();
  }

  /** The host went away under the app (killed, or stopped by another client): a new one is
   *  started, which relaunches every session through exact resume. */
  private hostLost(why: string): void {
    if (this.quitPath.quitting) return;
    this.log.warn('session host lost', { why });
    this.sessionWindows.active?.showMessage('The session host stopped. Starting it again…');
    void this.host.reconnect().then((ok) => {
      if (this.quitPath.quitting) return;
      if (!ok) {
        this.sessionWindows.active?.showMessage('The session host stopped and could not be started again. Quit and start Termio to try again.');
        return;
      }
      const recovered = this.host.registry.list().filter((r) => r.recovered).length;
      this.log.info('sessions restored', { sessions: this.host.registry.size, recovered, after: 'host lost' });
      // None relaunched: the new host adopted every session from its holder, or there were none.
      this.sessionWindows.active?.showMessage(
        recovered > 0 ? recoveredText(recovered) : 'The session host stopped and was started again; every session kept running.',
      );
    });
  }

  /** `mode`: 'end' ends every session; default: the "when Termio quits" setting (keep, by default). */
  quit(reason: string, mode?: 'keep' | 'end'): Promise<void> {
    return this.quitPath.quit(reason, mode);
  }
}

export type RunResult = { kind: 'running'; app: TermioApp } | { kind: 'alreadyRunning'; pid?: number } | { kind: 'failed'; message: string };

export async function runTermio(runtime: QtRuntime): Promise<RunResult> {
  const paths = termioPaths();
  const log = createLogger(join(paths.logsDir, 'termio.log'), { stderr: process.env.TERMIO_LOG_STDERR === '1' });
  const backend = chooseNotificationBackend({ platform: process.platform, execPath: process.execPath, override: process.env.TERMIO_NOTIFIER });
  log.info('notifications', { backend });
  let started = await RemoteHost.start({ logger: log });
  if (!started.ok && started.kind === 'versionSkew') {
    log.warn('session host of another version', { hostVersion: started.hostVersion, pid: started.pid });
    if (!askToRestartHost(started.hostVersion, started.keepsAgents)) return { kind: 'failed', message: started.message };
    if (started.pid !== null) await RemoteHost.stopHost(started.pid, started.keepsAgents);
    log.info('session host restarted for this version');
    started = await RemoteHost.start({ logger: log });
  }
  if (!started.ok) {
    log.error('cannot start', { message: started.message });
    return { kind: 'failed', message: started.message };
  }
  const host = started.host;
  const notifier = backend === 'tray' ? 'tray' : 'host';
  const first = await host.subscribe(false, notifier);
  if ('error' in first) {
    host.dispose();
    return { kind: 'failed', message: first.error };
  }
  if (first.otherApp) {
    log.info('Termio is already running; handing over to it');
    await host.activateOther();
    host.dispose();
    return { kind: 'alreadyRunning' };
  }
  const app = new TermioApp(runtime, host, log);
  app.notifier = notifier;
  // Strong reference for the app's lifetime: NodeGUI objects die with their JS wrappers.
  (globalThis as { termio?: TermioApp }).termio = app;
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void app.quit(sig));
  // A failed background promise (a request refused after quit began, a watcher that could not
  // start) is a bug to log, not a reason to take the window down.
  process.on('unhandledRejection', (err) => log.error('unhandled rejection', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
  await app.restore(first);
  return { kind: 'running', app };
}

function recoveredText(n: number): string {
  return `Termio's session host had stopped unexpectedly. ${n === 1 ? 'Your session was' : `Your ${n} sessions were`} started again and resumed where ${n === 1 ? 'it' : 'they'} could be.`;
}
