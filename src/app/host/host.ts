// The host: every stateful service of a running Termio that is not a widget, built and torn
// down together — settings, agent catalog, durable state + resume, hook server + status tracker,
// session registry, notifications and the control socket (the termio CLI). Headless: the UI
// (or a test) subscribes to its events and tells it which window and session the user is on.
import { homedir } from 'node:os';
import type { HookDetails } from '../../protocol/hookReport';
import { Session } from '../../terminal';
import { AgentCatalog, type CatalogEntry } from './catalog';
import { ControlServer, type ListenResult } from './controlServer';
import { agentHookStatus, ensureLauncher, installAgentHooks, uninstallAgentHooks, type AgentHookResult } from './hookInstaller';
import { HookServer } from './hookServer';
import type { Logger } from './log';
import { loginShellEnv } from './loginShellPath';
import { defaultNotificationIcon, NotificationPolicy, nodeNotifierSink, waitingFor, type NotificationRequest, type NotificationSink, type SessionContext } from './notifier';
import { termioPaths, type TermioPaths } from './paths';
import { ResumeService } from './resumeService';
import { SessionRegistry, type SessionRecord, type SpawnRequest, type SpawnFailure } from './sessionRegistry';
import { defaultSettings, SettingsStore } from './settings';
import { installSkill, uninstallSkill } from './skillInstaller';
import { folderLabels } from './sidebarModel';
import { StateStore, type StateProblem } from './stateStore';
import { mintSessionSecret, sameSecret, SESSION_SECRET_ENV } from './sessionSecret';
import { StatusTracker } from './statusTracker';
import { isProcessAlive } from './processes';
import { installRoot } from './install';
import { pinnedTranscript } from './transcript';

/** The bundled manifest for the plain login shell (agents/terminal.json). */
export const TERMINAL_AGENT_ID = 'terminal';

export interface HostOptions {
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called when `termio DIR` (or a second launch) asks to bring the app forward. */
  onActivate?: () => void;
  /** Where notifications go (tests pass a recorder). Default: node-notifier. */
  notificationSink?: NotificationSink;
  /** Told when a notification is clicked (the UI focuses the session). */
  onNotificationClick?: (sessionId: string | null) => void;
  /** PATH to resolve agent commands on (tests); default: the login shell's. Given a PATH,
   *  sessions keep this process's environment; otherwise they start from the login shell's. */
  path?: string;
}

export type HostStart =
  | { ok: true; host: Host }
  | { ok: false; alreadyRunning: true; pid?: number; message: string }
  | { ok: false; alreadyRunning: false; message: string };

/** A problem the app shows the user (a corrupt state file, a broken settings field, ...). */
export interface HostProblem {
  source: 'state' | 'settings' | 'catalog' | 'hooks';
  message: string;
}

export class Host {
  readonly paths: TermioPaths;
  readonly registry: SessionRegistry;
  readonly problems: HostProblem[] = [];
  control!: ControlServer;
  catalog!: AgentCatalog;
  settings!: SettingsStore;
  store!: StateStore;
  resume!: ResumeService;
  hooks!: HookServer;
  readonly tracker: StatusTracker;
  readonly notifications: NotificationPolicy;
  private sink!: NotificationSink;
  /** The window new sessions go to (the UI sets it as the user moves between windows). */
  activeWindowId = 'window-1';
  /** The session the user is looking at (selected in the focused window), or null. */
  private lookingAt: string | null = null;
  /** Sessions being relaunched (Resume): their durable record must survive the registry's remove. */
  private readonly relaunching = new Set<string>();
  private readonly userTitled = new Set<string>();
  private readonly details = new Map<string, string>();
  /** Transcript paths hooks reported, for agents whose manifest says `capturesTranscript`. */
  private readonly transcripts = new Map<string, string>();
  /** Each running session's TERMIO_SESSION_SECRET, minted per launch. */
  private readonly secrets = new Map<string, string>();
  private disposing = false;
  /** Resolves once every service is up; the control socket listens first (to find a running
   *  app), so a request that arrives in between (termio DIR starting the app) waits for this. */
  private readonly ready: Promise<void>;
  private markReady!: () => void;
  private flushTimer: NodeJS.Timeout | null = null;
  /** What sessions start from: the login shell's exported environment (undefined: this process's). */
  private sessionBaseEnv: Record<string, string> | undefined;
  /** Last notification handed to the OS, with its timing (benchmarks and tests read it). */
  lastNotification: { req: NotificationRequest; stateChangedAt: number; handedAt: number } | null = null;

  private constructor(readonly opts: HostOptions) {
    this.paths = termioPaths(opts.env);
    this.tracker = new StatusTracker({ logger: opts.logger });
    this.notifications = new NotificationPolicy(defaultSettings().notifications);
    this.registry = new SessionRegistry({ spawner: (req) => this.spawnAgent(req), defaultCwd: homedir() });
    this.ready = new Promise((r) => (this.markReady = r));
  }

  static async start(opts: HostOptions): Promise<HostStart> {
    const host = new Host(opts);
    const log = opts.logger;
    // The control socket first: if another Termio owns it, this launch hands over and touches nothing.
    host.control = new ControlServer({
      paths: host.paths,
      registry: host.registry,
      logger: log,
      onActivate: () => host.opts.onActivate?.(),
      describeStatus: (id) => {
        const s = host.tracker.status(id);
        if (!s) return undefined;
        return {
          id,
          state: s.state,
          since: new Date(s.since).toISOString(),
          channel: s.why.channel,
          ...(s.why.rule !== undefined ? { rule: s.why.rule } : {}),
          ...(s.why.event !== undefined ? { event: s.why.event } : {}),
          at: new Date(s.why.at).toISOString(),
          health: [...s.health.map((h) => h.message), ...ignoredNote(host.tracker.lastIgnored(id))],
          ...(host.details.has(id) ? { tool: host.details.get(id)! } : {}),
          ...(host.transcripts.has(id) ? { transcript: host.transcripts.get(id)! } : {}),
        };
      },
      transcriptOf: (id) => host.transcriptFor(id),
      callerOf: (secret) => host.callerOf(secret),
      describeResume: async (id) => {
        if (!host.resume || !host.store.getSession(id)) return undefined;
        const d = await host.resume.describe(id);
        return { family: d.family, boundId: d.boundId, boundFamily: d.boundFamily, argv: d.plan?.argv ?? null, mode: d.plan?.mode ?? null, why: d.why };
      },
      readyEvidence: (id) => host.readyEvidence(id),
      onNotify: (n) => host.notifyFromSession(n.sessionId, n.title, n.text),
      onOpenDir: async (dir) => {
        const r = await host.registry.spawn({ cwd: dir });
        if (!r.ok) return { ok: false, code: r.code === 'badDirectory' ? 'badDirectory' : 'spawnFailed', message: r.message };
        host.registry.requestFocus(r.record.id);
        return { ok: true, id: r.record.id };
      },
    });
    const listen: ListenResult = await host.control.listen();
    if (!listen.ok) {
      host.registry.dispose();
      if (listen.reason === 'alreadyRunning') return { ok: false, alreadyRunning: true, ...(listen.pid !== undefined ? { pid: listen.pid } : {}), message: listen.message };
      return { ok: false, alreadyRunning: false, message: listen.message };
    }
    log.info('control socket listening', { socket: listen.socket });

    try {
      // Installed hooks run the launcher: point it at this build's reporter before any agent starts.
      ensureLauncher(host.paths);
    } catch (e) {
      host.reportProblem('hooks', `cannot write the hook launcher: ${(e as Error).message}`);
    }

    host.settings = new SettingsStore(host.paths.settingsFile, (opts.env ?? process.env).HOME ?? homedir());
    host.settings.watch();
    host.applySettings();
    host.settings.onChange(() => host.applySettings());

    if (opts.path === undefined) {
      // The same cached answer the catalog resolves commands with: one login shell per launch.
      const login = await loginShellEnv(opts.env ?? process.env);
      if (login.source === 'login-shell') host.sessionBaseEnv = login.vars;
    }
    // Otherwise sessions start from the environment the host was given (a test's HOME and SHELL),
    // never from whatever this process happens to run with.
    if (!host.sessionBaseEnv && opts.env) {
      host.sessionBaseEnv = Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined));
    }
    host.catalog = await AgentCatalog.create({ ...(opts.env ? { env: opts.env } : {}), logger: log, ...(opts.path !== undefined ? { path: opts.path } : {}) });
    for (const p of host.catalog.problems()) host.problems.push({ source: 'catalog', message: `${p.label}: ${p.errors.join('; ')}` });

    const opened = StateStore.open({ file: host.paths.sessionsFile, logger: log });
    host.store = opened.store;
    if (opened.problem) host.reportProblem('state', problemText(opened.problem));
    for (const w of opened.warnings) host.reportProblem('state', w);

    host.resume = new ResumeService({
      store: host.store,
      manifestOf: (id) => host.catalog.get(id)?.manifest ?? null,
      home: (opts.env ?? process.env).HOME ?? homedir(),
      logger: log,
      processOf: (id) => host.tracker.agentPid(id),
    });

    const hooks = await HookServer.start({ paths: host.paths, secretOf: (id) => (host.tracker.isTracked(id) ? host.secrets.get(id) : undefined), logger: log });
    if ('kind' in hooks) {
      await host.control.close();
      return { ok: false, alreadyRunning: false, message: hooks.message };
    }
    host.hooks = hooks;
    hooks.onReport((r) => host.tracker.handleReport(r));
    host.tracker.onStateChange((c) => host.handleStatus(c.sessionId, c.status.state, `${c.status.why.channel}: ${c.status.why.rule ?? c.status.why.event ?? ''}`.trim()));
    host.tracker.onConversation((c) => host.resume.rebind(c.sessionId, c.conversationId));
    host.tracker.onHookDetails((d) => host.handleDetails(d.sessionId, d.details));
    host.tracker.onStall((c) => host.registry.setStalled(c.sessionId, c.since));

    host.registry.onRemoved((r) => host.handleRemoved(r));
    host.registry.onChanged((r) => host.store.getSession(r.id) && host.store.updateSession(r.id, { title: r.title }));
    host.sink = opts.notificationSink ?? nodeNotifierSink(log, defaultNotificationIcon(installRoot));
    // Discovered-id agents: open their store watchers now, so a launch does not wait for the
    // first scan of a large store (it can take a second).
    host.resume.warm(host.catalog.list().filter((e) => e.installed).map((e) => e.manifest)).catch((err: unknown) => log.warn('resume: could not watch an agent store', { error: String(err) }));
    host.markReady();
    return { ok: true, host };
  }

  private reportProblem(source: HostProblem['source'], message: string): void {
    this.problems.push({ source, message });
    this.opts.logger.warn(`${source} problem`, { message });
  }

  private applySettings(): void {
    const s = this.settings.settings;
    this.notifications.setPrefs(s.notifications);
    this.tracker.setStallMs(s.sessions.stallSeconds * 1000);
    for (const r of this.registry.list()) r.session.setCursorDefaults(s.terminal.cursorStyle, s.terminal.cursorBlink);
    for (const e of this.settings.errors) this.opts.logger.warn('settings problem', { message: e });
  }

  private hookOptions() {
    return { paths: this.paths, home: (this.opts.env ?? process.env).HOME ?? homedir(), reporter: ensureLauncher(this.paths) };
  }

  /** Whether our hook entries are in an agent's config now (null: it declares no hooks). */
  hookStatus(agentId: string): AgentHookResult | null {
    const m = this.catalog.get(agentId)?.manifest;
    return m?.hooks ? agentHookStatus({ agentId, hooks: m.hooks }, this.hookOptions()) : null;
  }

  /** Installs or removes our hook entries for one agent (Settings → Live status, the welcome). */
  setHooks(agentId: string, on: boolean): AgentHookResult | null {
    const m = this.catalog.get(agentId)?.manifest;
    if (!m?.hooks) return null;
    const r = (on ? installAgentHooks : uninstallAgentHooks)({ agentId, hooks: m.hooks }, this.hookOptions());
    this.opts.logger.info('hooks changed', { agentId, on, state: r.state, action: r.action, file: r.file, ...(r.error ? { error: r.error } : {}) });
    if (r.error) this.reportProblem('hooks', r.error);
    // The Termio skill goes in with live status and out with it.
    if (m.skills && !(on && r.error)) {
      const skill = (on ? installSkill : uninstallSkill)(agentId, m.skills, { home: this.hookOptions().home });
      this.opts.logger.info('skill changed', { agentId, on, state: skill.state, action: skill.action, file: skill.file });
      if (skill.error) this.reportProblem('hooks', skill.error);
    }
    return r;
  }

  /** Every agent in picker order: the user's order from Settings first, then the manifests'. */
  orderedAgents(): CatalogEntry[] {
    const prefs = this.settings.settings.agents;
    // Agents the user never placed keep the catalog's order, after the placed ones.
    const UNPLACED = 1e6;
    return this.catalog
      .list()
      .map((e, i) => ({ e, key: prefs[e.id]?.order ?? UNPLACED + i }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.e);
  }

  /** Agents the user has not disabled in Settings, in picker order. */
  enabledAgents(): CatalogEntry[] {
    const prefs = this.settings.settings.agents;
    return this.orderedAgents().filter((e) => prefs[e.id]?.enabled !== false);
  }

  /** Moves an agent up (-1) or down (+1) in the picker, saving the whole order in one write. */
  moveAgent(id: string, delta: -1 | 1): void {
    const ids = this.orderedAgents().map((e) => e.id);
    const from = ids.indexOf(id);
    const to = from + delta;
    if (from < 0 || to < 0 || to >= ids.length) return;
    [ids[from], ids[to]] = [ids[to]!, ids[from]!];
    const agents = { ...this.settings.settings.agents };
    ids.forEach((agentId, order) => (agents[agentId] = { ...agents[agentId], order }));
    this.settings.set(['agents'], agents);
  }

  /** The entry to launch for a request: its agent, or the plain Terminal. */
  agent(id: string | null | undefined): CatalogEntry | undefined {
    return this.catalog.get(id ?? TERMINAL_AGENT_ID);
  }

  agentName(id: string | null | undefined): string {
    return this.agent(id)?.manifest.name ?? id ?? 'Terminal';
  }

  /** Builds, persists and launches a new session (the registry's spawner). */
  private async spawnAgent(req: SpawnRequest): Promise<Session | SpawnFailure> {
    await this.ready;
    if (req.argv) return this.launchCommand(req.id, req.cwd, req.argv);
    const agentId = req.agent ?? TERMINAL_AGENT_ID;
    const entry = this.catalog.get(agentId);
    if (!entry) return { kind: 'unknownAgent', message: `no agent with id '${agentId}' (see termio agents list)` };
    if (!entry.installed) {
      const cmd = entry.manifest.command ?? agentId;
      return { kind: 'notInstalled', message: `${entry.manifest.name} is not installed: '${cmd}' is not on your login shell's PATH${entry.manifest.install ? ` (install: ${entry.manifest.install})` : ''}` };
    }
    const bypass = req.bypass || (this.settings.settings.agents[agentId]?.bypass ?? false);
    this.store.addSession({ id: req.id, agentId, cwd: req.cwd, title: req.title ?? '', bypass }, { windowId: this.activeWindowId });
    if (req.title) this.userTitled.add(req.id);
    const session = await this.launch(req.id);
    if ('kind' in session) this.store.removeSession(req.id);
    return session;
  }

  /** What every session starts with: the hook socket and its own secret, the login environment, the terminal settings. */
  private spawnDefaults(secret: string) {
    const t = this.settings.settings.terminal;
    return {
      env: { ...this.hooks.sessionEnv(), [SESSION_SECRET_ENV]: secret },
      ...(this.sessionBaseEnv ? { baseEnv: this.sessionBaseEnv } : {}),
      scrollback: t.scrollback,
      cursorShape: t.cursorStyle,
      cursorBlink: t.cursorBlink,
    };
  }

  /** Starts the process for a persisted session with its resume plan. */
  private async launch(id: string): Promise<Session | SpawnFailure> {
    const record = this.store.getSession(id);
    if (!record) return { kind: 'noRecord', message: `no saved session ${id}` };
    const entry = this.catalog.get(record.agentId);
    if (!entry) return { kind: 'unknownAgent', message: `the agent '${record.agentId}' of this session is not loaded` };
    const plan = await this.resume.prepareLaunch(id);
    if ('kind' in plan) return { kind: plan.kind, message: plan.message };
    const argv = plan.argv.length ? [entry.resolvedCommand ?? plan.argv[0]!, ...plan.argv.slice(1)] : undefined;
    const secret = mintSessionSecret();
    const session = Session.spawn({ id, cwd: record.cwd, ...(argv ? { argv } : {}), ...this.spawnDefaults(secret) });
    if ('kind' in session) {
      this.resume.sessionEnded(id);
      return session;
    }
    this.secrets.set(id, secret);
    const m = entry.manifest;
    this.tracker.track(
      session,
      {
        agentId: m.id,
        ...(m.hooks ? { hooks: m.hooks } : {}),
        ...(m.titleStatus ? { titleStatus: m.titleStatus } : {}),
        ...(m.status ? { status: m.status } : {}),
        ...(m.progressStatus ? { progressStatus: true } : {}),
      },
      record.conversationId ? { conversationId: record.conversationId } : {},
    );
    session.onExit(() => this.resume.sessionEnded(id));
    session.onNotification((n) => this.notifyTerminal(id, n.title, n.body));
    return session;
  }

  /**
   * `termio sessions run`: one command as is (no shell), in a tab that stays after it exits with
   * its exit code. Not saved with the windows: running a command again on the next launch would
   * surprise whoever started it.
   */
  private launchCommand(id: string, cwd: string, argv: string[]): Session | SpawnFailure {
    // Its own secret: a termio command inside it speaks as this session, not as the user.
    const secret = mintSessionSecret();
    const session = Session.spawn({ id, cwd, argv, ...this.spawnDefaults(secret) });
    if ('kind' in session) return session;
    this.secrets.set(id, secret);
    // No status channel: the tracker still turns the exit into done, with "exit N" as the reason.
    this.tracker.track(session, null);
    session.onNotification((n) => this.notifyTerminal(id, n.title, n.body));
    return session;
  }

  /**
   * Whether a session's own status channel (hook, title or screen rule) has said it waits for
   * input; undefined when its agent declares none (its readiness is then judged by its output).
   */
  readyEvidence(id: string): boolean | undefined {
    const r = this.registry.get(id);
    const m = r ? this.agent(r.agentId)?.manifest : undefined;
    if (!r || !m || (!m.hooks && !m.titleStatus && !m.status)) return undefined;
    const st = this.tracker.status(id);
    return st !== undefined && st.why.channel !== 'start' && (st.state === 'idle' || st.state === 'done');
  }

  /** `termio notify` from inside a session: always shown (the program asked for it), and a click focuses the session. */
  async notifyFromSession(sessionId: string | null, title: string | undefined, text: string): Promise<void> {
    const r = sessionId ? this.registry.get(sessionId) : undefined;
    const ctx = sessionId ? this.context(sessionId) : null;
    const req: NotificationRequest = {
      sessionId,
      kind: 'terminal',
      title: title || (r && ctx ? `${this.agentName(r.agentId)} · ${ctx.folderLabel}` : 'Termio'),
      message: text,
    };
    await this.send(req, Date.now());
  }

  /** Relaunches every saved session of one window, in tab order (app start). */
  async restoreWindow(windowId: string): Promise<void> {
    const win = this.store.state.windows.find((w) => w.id === windowId);
    if (!win) return;
    this.activeWindowId = windowId;
    for (const id of win.tabs) {
      const record = this.store.getSession(id);
      if (!record || this.registry.get(id)) continue;
      const session = await this.launch(id);
      if ('kind' in session) {
        this.reportProblem('state', `Could not relaunch ${this.agentName(record.agentId)} in ${record.cwd}: ${session.message}`);
        continue;
      }
      this.registry.add(session, { agentId: record.agentId === TERMINAL_AGENT_ID ? null : record.agentId, ...(record.title ? { title: record.title } : {}), bypass: record.bypass });
      if (record.title) this.userTitled.add(id);
    }
  }

  /** Saved windows in order, for the UI to reopen before restoring their sessions. */
  savedWindows(): string[] {
    return this.store.state.windows.map((w) => w.id);
  }

  /** Resume after the program exited: the same plan, in the same tab. */
  async relaunch(id: string): Promise<boolean> {
    const old = this.registry.get(id);
    if (!old) return false;
    this.relaunching.add(id);
    this.registry.close(id);
    const session = await this.launch(id);
    this.relaunching.delete(id);
    if ('kind' in session) {
      this.reportProblem('state', `Could not resume: ${session.message}`);
      this.store.removeSession(id);
      return false;
    }
    const record = this.store.getSession(id);
    this.registry.add(session, { agentId: old.agentId, ...(record?.title ? { title: record.title } : {}), bypass: old.bypass });
    return true;
  }

  /** The user renamed a session: their name wins over prompt titles from now on. */
  rename(id: string, title: string): void {
    this.userTitled.add(id);
    this.registry.rename(id, title);
  }

  /** Which session the user is looking at (selected in the focused window), for notifications and done → idle. */
  setLookingAt(id: string | null): void {
    if (this.lookingAt === id) return;
    if (this.lookingAt) this.tracker.setFocus(this.lookingAt, false);
    this.lookingAt = id;
    if (id) this.tracker.setFocus(id, true);
    this.opts.logger.debug('looking at', { id });
  }

  private context(id: string): SessionContext {
    const r = this.registry.get(id);
    const labels = folderLabels(r ? [r.cwd] : [], homedir());
    return {
      agentName: this.agentName(r?.agentId),
      folderLabel: r ? (labels.get(r.cwd) ?? r.cwd) : '',
      ...(this.details.has(id) ? { detail: waitingFor(this.details.get(id)!) } : {}),
      userLooking: this.lookingAt === id,
    };
  }

  private handleStatus(id: string, state: SessionRecord['state'], why: string): void {
    const before = this.registry.get(id)?.state;
    if (before === undefined) return;
    const at = Date.now();
    if (!this.registry.setState(id, state, why)) return;
    this.opts.logger.debug('state', { id, from: before, to: state, why });
    // The tracker hands over the details of the report that changed the state (the tool the
    // agent asks to run) just after this, in the same tick: decide once they are in.
    queueMicrotask(() => {
      if (!this.registry.get(id)) return;
      const req = this.notifications.stateChanged(id, before, state, at, this.context(id));
      if (req) void this.send(req, at);
      this.scheduleFlush();
    });
  }

  private handleDetails(id: string, d: HookDetails): void {
    // Only the latest report's tool counts: an older one is not what the agent waits for now.
    if (d.tool) this.details.set(id, d.tool);
    else this.details.delete(id);
    if (d.promptTitle && !this.userTitled.has(id)) this.registry.rename(id, d.promptTitle);
    if (d.transcriptPath && this.agent(this.registry.get(id)?.agentId)?.manifest.hooks?.capturesTranscript) this.transcripts.set(id, d.transcriptPath);
  }

  /** The tool the session's latest hook report named ("Bash"), if any: the why strip shows it. */
  toolOf(id: string): string | undefined {
    return this.details.get(id);
  }

  /** Where the session's transcript is: reported by its hooks (`capturesTranscript`), else its pinned record. */
  async transcriptFor(id: string): Promise<string | undefined> {
    const reported = this.transcripts.get(id);
    if (reported) return reported;
    const record = this.store?.getSession(id);
    if (!record) return undefined;
    return pinnedTranscript(this.catalog.get(record.agentId)?.manifest.resume, record.conversationId, (this.opts.env ?? process.env).HOME ?? homedir());
  }

  private notifyTerminal(id: string, title: string, body: string): void {
    const at = Date.now();
    const req = this.notifications.terminalNotification(id, title, body, at, this.context(id));
    if (req) void this.send(req, at);
  }

  private scheduleFlush(): void {
    const due = this.notifications.nextFlushAt();
    if (due === null || this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      const req = this.notifications.flush(Date.now());
      if (req) void this.send(req, Date.now());
      this.scheduleFlush();
    }, Math.max(0, due - Date.now()));
  }

  private async send(req: NotificationRequest, stateChangedAt: number): Promise<void> {
    await this.sink.send(req, this.settings.settings.notifications.sound, () => this.opts.onNotificationClick?.(req.sessionId));
    this.lastNotification = { req, stateChangedAt, handedAt: Date.now() };
    this.opts.logger.info('notification', { kind: req.kind, session: req.sessionId, title: req.title, message: req.message, ms: this.lastNotification.handedAt - stateChangedAt });
  }

  /** The running session a control request's secret belongs to, with its bypass flag; null: none. */
  callerOf(secret: string): { sessionId: string; bypass: boolean } | null {
    for (const [sessionId, own] of this.secrets) {
      if (!sameSecret(secret, own)) continue;
      const record = this.registry.get(sessionId);
      return record ? { sessionId, bypass: record.bypass } : null;
    }
    return null;
  }

  private handleRemoved(r: SessionRecord): void {
    // A relaunch mints a new secret; the old one dies with its processes.
    this.secrets.delete(r.id);
    this.tracker.untrack(r.id);
    this.notifications.forget(r.id);
    this.details.delete(r.id);
    this.transcripts.delete(r.id);
    if (this.lookingAt === r.id) this.lookingAt = null;
    // Quitting keeps every tab for the next launch; a relaunch keeps its own; a user's close removes it.
    if (this.disposing || this.relaunching.has(r.id)) return;
    this.resume.sessionEnded(r.id);
    this.store.removeSession(r.id);
    this.userTitled.delete(r.id);
  }

  /** Closes the sockets, kills every session's process and writes the state file. */
  async dispose(): Promise<void> {
    this.disposing = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    await this.control.close();
    // Sessions get SIGHUP (the terminal hangs up); agents may take a moment to save and leave.
    // Wait for them, within the quit budget, and end the ones still there, so quitting leaves
    // no process behind.
    const pids = this.registry.list().filter((r) => !r.session.exited).map((r) => r.session.pid);
    this.registry.dispose();
    await endProcesses(pids, QUIT_GRACE_MS);
    this.tracker.dispose();
    this.resume?.dispose();
    await this.hooks?.close();
    this.store?.flush();
    this.store?.dispose();
    this.settings?.dispose();
    await this.catalog?.dispose();
  }
}

function ignoredNote(ignored: { event: string; why: string; at: number } | null): string[] {
  return ignored ? [`not applied: ${ignored.event || 'a'} report ${ignored.why} at ${new Date(ignored.at).toISOString()}`] : [];
}

/** How long quitting waits for agents to exit after the hangup before it kills them: well within
 *  the 2 s an app quit may take, and long enough for an agent to flush its transcript. */
export const QUIT_GRACE_MS = 800;

/** Waits until every pid is gone or the grace has passed, then SIGKILLs what is left. */
async function endProcesses(pids: number[], graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  let left = pids.filter(isProcessAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    left = left.filter(isProcessAlive);
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It went away on its own.
    }
  }
}

function problemText(p: StateProblem): string {
  return p.movedTo ? `${p.message} It was moved to ${p.movedTo}; Termio started with no saved sessions.` : p.message;
}
