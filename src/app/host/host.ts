// The host: every stateful service of a running Termio that is not a widget, built and torn
// down together — settings, agent catalog, durable state + resume, hook server + status tracker,
// session registry, notifications and the control socket (the termio CLI). Headless: the UI
// (or a test) subscribes to its events and tells it which window and session the user is on.
// Building the services is hostServices.ts's job, launching sessions sessionLauncher.ts's,
// notifications notificationRouter.ts's; the host wires them together and owns their lifetime.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookDetails } from '../../protocol/hookReport';
import { hooksReportAtStart, hooksReportOnPrompt } from '../../protocol/hooks';
import { AgentChoices } from '../services/agentChoices';
import type { AgentCatalog, CatalogEntry } from '../services/catalog';
import { hookSilenceFile } from '../services/hookSilence';
import { watchHookSilence } from './status/hookSilenceWatch';
import type { SessionInfo } from '../../protocol/sessionInfo';
import { heldMetaOf, type HeldSessionMeta } from './holders/checkpointFile';
import { bypassAgents, findBypassFlag } from '../services/bypassArgv';
import type { ControlServer } from './control/controlServer';
import { adoptHolders, type AdoptionResult } from './holders/holderAdoption';
import { Checkpointer } from './holders/holderCheckpoints';
import { ensureHolderDirs, holderAvailability, type HolderAvailability } from './holders/holders';
import type { HookServer } from './status/hookServer';
import { hostControlServer } from './control/hostControl';
import { createCore, Later, startServices, type HostCore, type HostOptions, type HostServices, type SessionEnvironment } from './hostServices';
import { installRoot } from '../services/install';
import { NotificationRouter } from './notify/notificationRouter';
import { defaultNotificationSink } from './notify/dbusNotifier';
import { defaultNotificationIcon, type NotificationPolicy } from '../services/notifier';
import type { TermioPaths } from '../services/paths';
import { endProcesses, QUIT_GRACE_MS } from '../services/processes';
import { expandHome } from '../../protocol/homePath';
import type { ResumeService } from './resume/resumeService';
import type { SessionCallers } from './sessions/sessionCallers';
import { SessionLauncher, TERMINAL_AGENT_ID } from './sessionLauncher';
import type { SessionNotes } from './sessions/sessionNotes';
import type { SessionFacts } from './sessions/sessionFacts';
import type { SessionRecord, SessionRegistry } from './sessions/sessionRegistry';
import type { SettingsStore } from '../services/settings';
import type { StateStore } from './state/stateStore';
import type { StatusTracker } from './status/statusTracker';
import type { StatusWhy } from '../../protocol/status/sessionState';
import { pinnedTranscript } from './resume/transcript';
import type { HostProblem } from '../../protocol/hostAppMessages';

import { Git, gitCommand } from './worktrees/git';
import { FanoutGroups } from './worktrees/fanoutGroups';
import { ReviewComments } from './worktrees/reviewComments';
import { WorktreeService } from './worktrees/worktreeService';
import { HistoryService } from './history/historyService';

export type { HostOptions, HostProblem };
import { QuestionBook } from './status/questionBook';
import { questionInfo } from './control/questionVerbs';
import { tuiOf } from '../../protocol/questions';

export { TERMINAL_AGENT_ID };

export type HostStart =
  { ok: true; host: Host } | { ok: false; alreadyRunning: true; pid?: number; message: string } | { ok: false; alreadyRunning: false; message: string };

export class Host {
  readonly paths: TermioPaths;
  readonly registry: SessionRegistry;
  readonly problems: HostProblem[];
  readonly control: ControlServer;
  readonly catalog: AgentCatalog;
  readonly settings: SettingsStore;
  private readonly sessionEnv: SessionEnvironment;
  readonly store: StateStore;
  readonly resume: ResumeService;
  readonly hooks: HookServer;
  readonly tracker: StatusTracker;
  readonly notifications: NotificationPolicy;
  /** The one SessionInfo mapper every socket answers with. */
  readonly facts: SessionFacts;
  /** Sessions' git worktrees: made at spawn, reviewed, merged, removed. */
  readonly worktrees: WorktreeService;
  /** Review comments waiting to be sent to worktree sessions' agents. */
  readonly reviewComments: ReviewComments;
  /** One prompt started in several worktrees, kept as groups (fan-out). */
  readonly fanoutGroups: FanoutGroups;
  /** Every agent's past conversations on this machine, indexed (or why the index could not be opened). */
  readonly history: HistoryService | string;
  /** The PATH sessions start with (the login shell's): where `gh` is looked for. */
  readonly sessionPath: string;
  private readonly notes: SessionNotes;
  private readonly callers: SessionCallers;
  private readonly router: NotificationRouter;
  private readonly launcher: SessionLauncher;
  private readonly reportProblem: HostCore['reportProblem'];
  /** The agents as the user chooses among them (picker order, enabled, live-status hooks). */
  readonly agents: AgentChoices;
  /** Whether sessions run on session holders (and outlive this host), and if not why. */
  readonly holders: HolderAvailability;
  private readonly checkpointer: Checkpointer | null;
  /** The question each session that needs you asks (the phone, notifications, the CLI read it). */
  readonly questions: QuestionBook;
  private disposing = false;
  /** Set while stopping for a restart: held sessions are let go, not ended. */
  private keepingAgents = false;

  /**
   * The control socket first: if another Termio owns it, this launch hands over and touches
   * nothing. Sessions asked for meanwhile (termio DIR starting the app) wait until every service is up.
   */
  static async start(opts: HostOptions): Promise<HostStart> {
    const up = new Later<Host>();
    const core = createCore(opts, async (req) => (await up.promise).launcher.spawn(req));
    const control = hostControlServer(core, opts, up);
    const listen = await control.listen();
    if (!listen.ok) {
      core.registry.dispose();
      if (listen.reason === 'alreadyRunning') return { ok: false, alreadyRunning: true, pid: listen.pid, message: listen.message };
      return { ok: false, alreadyRunning: false, message: listen.message };
    }
    opts.logger.info('control socket listening', { socket: listen.socket });
    const started = await startServices(core, opts);
    if (!started.ok) {
      await control.close();
      return { ok: false, alreadyRunning: false, message: started.message };
    }
    const host = new Host(opts, core, control, started.services);
    up.set(host);
    return { ok: true, host };
  }

  private constructor(
    readonly opts: HostOptions,
    core: HostCore,
    control: ControlServer,
    s: HostServices,
  ) {
    ({ paths: this.paths, registry: this.registry, problems: this.problems, tracker: this.tracker, notifications: this.notifications } = core);
    ({ notes: this.notes, callers: this.callers, reportProblem: this.reportProblem, facts: this.facts } = core);
    ({ catalog: this.catalog, settings: this.settings, store: this.store, resume: this.resume, hooks: this.hooks, sessionEnv: this.sessionEnv } = s);
    this.control = control;
    this.facts.windowOf = (id) => this.store.state.windows.find((w) => w.tabs.includes(id))?.id ?? null;
    this.sessionPath = s.sessionBaseEnv?.PATH ?? process.env.PATH ?? '';
    this.worktrees = new WorktreeService({
      recordsFile: join(this.paths.stateDir, 'worktrees.json'),
      root: () => expandHome(this.settings.settings.worktrees.root, (opts.env ?? process.env).HOME ?? homedir()),
      warn: (message, fields) => opts.logger.warn(message, fields),
      git: new Git(gitCommand(this.sessionPath)),
    });
    this.fanoutGroups = new FanoutGroups(join(this.paths.stateDir, 'fanouts.json'), (m) => opts.logger.warn(m));
    this.reviewComments = new ReviewComments({
      registry: this.registry,
      worktrees: this.worktrees,
      deliver: (id, prompt, within) => this.control.waits.deliverPrompt(id, prompt, within),
      log: (message, fields) => opts.logger.info(message, fields),
    });
    this.facts.worktreeOf = (id) => {
      const w = this.worktrees.ofSession(id);
      return w ? { path: w.path, branch: w.branch, base: w.base, repo: w.repo, changed: this.worktrees.count(id) } : undefined;
    };
    this.history = this.startHistory(opts);
    this.holders = holderAvailability(this.paths, opts.env ?? process.env);
    this.checkpointer = this.startCheckpoints(opts);
    this.agents = new AgentChoices(this.catalog, this.settings);
    this.questions = this.questionBook(core, opts);
    this.router = this.notificationRouter(core, opts);
    this.launcher = this.sessionLauncher(core, s, opts);
    this.wire();
    // Discovered-id agents: open their store watchers now, so a launch does not wait for the
    // first scan of a large store (it can take a second).
    this.resume
      .warm(
        this.catalog
          .list()
          .filter((e) => e.installed)
          .map((e) => e.manifest),
      )
      .catch((err: unknown) => opts.logger.warn('resume: could not watch an agent store', { error: String(err) }));
  }

  /** The conversation index; a database that cannot be opened at all is a problem shown, not a failed start. */
  private startHistory(opts: HostOptions): HistoryService | string {
    try {
      return new HistoryService({
        stateDir: this.paths.stateDir,
        catalog: this.catalog,
        home: (opts.env ?? process.env).HOME ?? homedir(),
        logger: opts.logger,
      });
    } catch (e) {
      const message = `the conversation index cannot be opened: ${(e as Error).message}`;
      this.reportProblem('state', message);
      return message;
    }
  }

  /** Where a session's notification goes (the sink, with the question it asks), told by status changes. */
  private notificationRouter(core: HostCore, opts: HostOptions): NotificationRouter {
    return new NotificationRouter({
      policy: core.notifications,
      sink: opts.notificationSink ?? defaultNotificationSink(opts.logger, defaultNotificationIcon(installRoot), opts.env),
      registry: core.registry,
      tracker: core.tracker,
      notes: core.notes,
      logger: opts.logger,
      agentName: (id) => this.agentName(id),
      sound: () => this.settings.settings.notifications.sound,
      onClick: opts.onNotificationClick,
      questions: this.questions,
    });
  }

  /** Launches sessions: what a spawn needs from the core, the services and the host. */
  private sessionLauncher(core: HostCore, s: HostServices, opts: HostOptions): SessionLauncher {
    return new SessionLauncher({
      ...s,
      tracker: core.tracker,
      registry: core.registry,
      callers: core.callers,
      notes: core.notes,
      notifications: this.router,
      worktrees: this.worktrees,
      reportProblem: (message) => this.reportProblem('state', message),
      holders: this.holders,
      checkpointer: this.checkpointer,
      logger: opts.logger,
    });
  }

  /** The checkpointer of held sessions, or null (with the reason logged) when there are no holders. */
  private startCheckpoints(opts: HostOptions): Checkpointer | null {
    const h = this.holders;
    if (!h.available) {
      opts.logger.info('sessions run without holders: they end when the host does', { why: h.reason });
      return null;
    }
    ensureHolderDirs(h);
    return new Checkpointer({
      dir: h.checkpointDir,
      scrollback: () => this.settings.settings.terminal.scrollback,
      meta: (id) => this.heldMeta(id),
      logger: opts.logger,
    });
  }

  /** What a checkpoint keeps of a session besides its screen. */
  private heldMeta(id: string): HeldSessionMeta | null {
    const r = this.registry.get(id);
    return r ? heldMetaOf(r, this.callers.secretOf(r.id) ?? null, this.tracker.snapshot(id)) : null;
  }

  /** Carries on the sessions a previous host left running in their holders (call once, at start). */
  async adoptHolders(): Promise<AdoptionResult> {
    if (!this.holders.available) return { adopted: [], problems: [] };
    const adopting = adoptHolders(
      this.holders,
      (source, cp) => this.launcher.adopt(source, cp),
      (cp) => this.launcher.restoreFinished(cp),
      this.opts.logger,
    );
    this.control.answerAfter(adopting);
    const result = await adopting;
    for (const p of result.problems) this.reportProblem('state', p);
    return result;
  }

  /** Held sessions right now (`termio host status`). */
  get heldCount(): number {
    return this.registry.list().filter((r) => r.session.holder && !r.session.exited).length;
  }

  /** What each service hears from the others. */
  private questionBook(core: HostCore, opts: HostOptions): QuestionBook {
    return new QuestionBook({
      registry: core.registry,
      onHookReport: (listener) => core.tracker.onHookDetails((d) => listener({ sessionId: d.sessionId, report: d.report })),
      tuiOf: (agentId) => tuiOf(this.agent(agentId)?.manifest.hooks?.dialect ?? agentId),
      logger: opts.logger,
    });
  }

  private wire(): void {
    this.facts.questionOf = (id) => {
      const q = this.questions.get(id);
      return q ? questionInfo(q) : null;
    };
    this.hooks.onReport((r) => this.tracker.handleReport(r));
    const agentOf = (id: string) => {
      const e = this.agent(this.registry.get(id)?.agentId);
      return e ? { agentId: e.id, name: e.manifest.name, program: e.resolvedCommand } : null;
    };
    watchHookSilence({
      tracker: this.tracker,
      agentOf,
      programs: this.catalog,
      file: hookSilenceFile(this.paths),
      logger: this.opts.logger,
    });
    this.tracker.onStateChange((c) => this.handleStatus(c.sessionId, c.status.state, c.status.why));
    // An answered question takes its session off the attention queue; a new one puts it back.
    this.questions.onQuestion(({ sessionId, question }) =>
      question?.answered ? this.registry.handled(sessionId) : question && this.registry.waitAgain(sessionId),
    );
    this.tracker.onConversation((c) => this.resume.rebind(c.sessionId, c.conversationId));
    this.tracker.onHookDetails((d) => this.handleDetails(d.sessionId, d.details));
    this.tracker.onStall((c) => this.registry.setStalled(c.sessionId, c.since));
    this.registry.onRemoved((r) => this.handleRemoved(r));
    this.registry.onAdded((r) => this.worktrees.watch(r.id));
    for (const r of this.registry.list()) this.worktrees.watch(r.id);
    // The live title (a spinner, for many agents) is saved lazily, and only when it changed.
    this.registry.onChanged((r) => {
      const saved = this.store.getSession(r.id);
      if (saved && saved.title !== r.title) this.store.updateSession(r.id, { title: r.title }, { lazy: true });
    });
    if (this.checkpointer) {
      const cp = this.checkpointer;
      for (const ev of [this.registry.onChanged, this.registry.onStallChanged]) ev((r) => cp.metaChanged(r.id));
      this.registry.onStateChanged((c) => cp.metaChanged(c.record.id));
      this.registry.onRemoved((r) => cp.forget(r.id, { remove: !this.keepingAgents }));
    }
  }

  /** The window new sessions go to (the UI sets it as the user moves between windows). */
  get activeWindowId(): string {
    return this.launcher.activeWindowId;
  }

  set activeWindowId(id: string) {
    this.launcher.activeWindowId = id;
  }

  /** The session the user is looking at (selected in the focused window), or null. */
  get lookingAt(): string | null {
    return this.router.lookingAt;
  }

  /** Last notification handed to the OS, with its timing (benchmarks and tests read it). */
  get lastNotification(): NotificationRouter['last'] {
    return this.router.last;
  }

  /** The entry to launch for a request: its agent, or the plain Terminal. */
  agent(id: string | null | undefined): CatalogEntry | undefined {
    return this.agents.get(id);
  }

  /** The login shell's PATH sessions start with, asked again when a start-up file changed: the
   *  app's picker asks this (agents.loginPath), so it shows the agents the launcher can start. */
  async loginPath(): Promise<{ path: string | null; source: string }> {
    const env = await this.sessionEnv.current();
    return env?.PATH !== undefined ? { path: env.PATH, source: 'login-shell' } : { path: null, source: 'environment' };
  }

  /** Why the agent cannot be started now (unknown, another program, not installed), or null. */
  async cannotStart(agentId: string): Promise<string | null> {
    return (await this.launcher.refusal(agentId))?.message ?? null;
  }

  agentName(id: string | null | undefined): string {
    return this.launcher.agentName(id);
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
    if (st === undefined) return false;
    // An agent whose hooks report its start can say "ready" (title, start hook) before its input
    // loop runs: Gemini CLI does, and drops a Return typed then. Its screen going still says more.
    if (m.hooks && hooksReportAtStart(m.hooks)) return false;
    return st.why.channel !== 'start' && (st.state === 'idle' || st.state === 'done');
  }

  /**
   * Whether the session's agent reports each prompt through a hook and its hooks are reporting:
   * its turns are then known from the hook, not from a title spinner that may be the agent still
   * starting up with the prompt queued (Codex connecting to its app-server).
   */
  promptHook(id: string): boolean {
    const r = this.registry.get(id);
    const hooks = r ? this.agent(r.agentId)?.manifest.hooks : undefined;
    if (!hooks || !hooksReportOnPrompt(hooks)) return false;
    return !(this.tracker.status(id)?.health ?? []).some((h) => h.code === 'hooksNotReporting');
  }

  /** `termio notify` from inside a session: always shown (the program asked for it), and a click focuses the session. */
  notifyFromSession(sessionId: string | null, title: string | undefined, text: string): Promise<void> {
    return this.router.fromSession(sessionId, title, text);
  }

  /** A session of another machine changed state: notified here, naming its machine. */
  remoteStateChanged(s: SessionInfo, before: SessionRecord['state']): void {
    this.router.remoteStateChanged(s, before);
  }

  /** Relaunches every saved session of one window, in tab order (app start). */
  restoreWindow(windowId: string): Promise<void> {
    return this.launcher.restoreWindow(windowId);
  }

  /** Saved windows in order, for the UI to reopen before restoring their sessions. */
  savedWindows(): string[] {
    return this.store.state.windows.map((w) => w.id);
  }

  /** Resume after the program exited: the same plan, in the same tab. */
  relaunch(id: string): Promise<boolean> {
    return this.launcher.relaunch(id);
  }

  /** The user renamed a session: their name wins over prompt titles from now on. */
  rename(id: string, title: string): void {
    this.notes.titledByUser(id);
    this.registry.rename(id, title);
  }

  /** Which session the user is looking at (selected in the focused window), for notifications and done → idle. */
  setLookingAt(id: string | null): void {
    this.router.setLookingAt(id);
  }

  /** The tool the session's latest hook report named ("Bash"), if any: the why strip shows it. */
  toolOf(id: string): string | undefined {
    return this.notes.toolOf(id);
  }

  /** Where the session's transcript is: reported by its hooks (`capturesTranscript`), else its pinned record. */
  async transcriptFor(id: string): Promise<string | undefined> {
    const reported = this.notes.transcriptOf(id);
    if (reported) return reported;
    const record = this.store.getSession(id);
    if (!record) return undefined;
    return pinnedTranscript(this.catalog.get(record.agentId)?.manifest.resume, record.conversationId, (this.opts.env ?? process.env).HOME ?? homedir());
  }

  /** Which agent's bypass flag a command line carries, judged against every loaded manifest. */
  bypassFlagIn(argv: readonly string[]): { agent: string; flag: string } | null {
    return findBypassFlag(argv, bypassAgents(this.catalog.list()), (c) => this.catalog.resolveCommand(c));
  }

  /** Whether a spawn of this agent runs with bypass although not asked to (the user's setting). */
  bypassByDefault(agent: string | undefined): boolean {
    return agent !== undefined && (this.settings.settings.agents[agent]?.bypass ?? false);
  }

  /** The running session a control request's secret belongs to, with its bypass flag; null: none. */
  callerOf(secret: string): { sessionId: string; bypass: boolean } | null {
    return this.callers.callerOf(secret);
  }

  private handleStatus(id: string, state: SessionRecord['state'], w: StatusWhy): void {
    const before = this.registry.get(id)?.state;
    if (before === undefined) return;
    const at = Date.now();
    // When the change happened (wall clock, sub-ms): benchmarks time the window's paint of it from here.
    const changedAt = performance.timeOrigin + performance.now();
    // "hooks: StopFailure (API error 401: log in again)": the one-line reason says the failure too.
    const why = `${`${w.channel}: ${w.rule ?? w.event ?? ''}`.trim()}${w.failure ? ` (${w.failure.reason})` : ''}`;
    if (!this.registry.setState(id, state, why, w.failure ?? null)) return;
    this.opts.logger.debug('state', { id, from: before, to: state, why, at: +changedAt.toFixed(2) });
    this.router.stateChanged(id, before, state, at);
  }

  private handleDetails(id: string, d: HookDetails): void {
    this.notes.take(id, d, this.agent(this.registry.get(id)?.agentId)?.manifest.hooks?.capturesTranscript === true);
    if (d.promptTitle && !this.notes.isTitledByUser(id)) this.registry.rename(id, d.promptTitle);
  }

  private handleRemoved(r: SessionRecord): void {
    // A relaunch mints a new secret; the old one dies with its processes.
    this.callers.forget(r.id);
    this.tracker.untrack(r.id);
    this.worktrees.unwatch(r.id);
    this.router.forget(r.id);
    this.notes.forgetReports(r.id);
    // Quitting keeps every tab for the next launch; a relaunch keeps its own; a user's close removes it.
    if (this.disposing || this.launcher.isRelaunching(r.id)) return;
    this.resume.sessionEnded(r.id);
    this.store.removeSession(r.id);
    this.notes.forgetTitle(r.id);
  }

  /** Before a restart's dispose(): a last checkpoint of every held session, which then keeps
   *  running in its holder instead of being ended. */
  async keepAgentsRunning(): Promise<void> {
    if (!this.checkpointer) return;
    this.keepingAgents = true;
    await this.checkpointer.flushAll();
    for (const r of this.registry.list()) r.session.keepRunningOnDispose();
  }

  /** Closes the sockets, kills every session's process (but those keepAgentsRunning() let go)
   *  and writes the state file. */
  async dispose(): Promise<void> {
    this.disposing = true;
    this.router.dispose();
    this.questions.dispose();
    // Ending its sessions, not keeping them for the next host: the waits on them end here.
    if (!this.keepingAgents) await this.control.endWaits();
    await this.control.close();
    // Sessions get SIGHUP (the terminal hangs up); agents may take a moment to save and leave.
    // Wait for them, within the quit budget, and end the ones still there, so quitting leaves
    // no process behind.
    const kept = (r: SessionRecord): boolean => this.keepingAgents && r.session.holder !== null && !r.session.exited;
    const pids = this.registry
      .list()
      .filter((r) => !r.session.exited && !kept(r))
      .map((r) => r.session.pid);
    this.registry.dispose();
    await endProcesses(pids, QUIT_GRACE_MS);
    this.checkpointer?.dispose();
    this.tracker.dispose();
    this.worktrees.dispose();
    if (typeof this.history !== 'string') await this.history.dispose();
    this.resume.dispose();
    await this.hooks.close();
    this.store.flush();
    this.store.dispose();
    this.settings.dispose();
    await this.catalog.dispose();
  }
}
