// The app's connection to the session host, and everything the windows, tray and Settings ask of
// it: the sessions (a RemoteRegistry kept current by the host's events), starting, resuming and
// renaming them, which one the user looks at. Settings and the agent catalog are read from their
// files here as in the host (both watch them); a change to settings.json or to an agent's hook
// config is asked of the host, the one process that writes them, and so is the login PATH.
// Quitting detaches: the sessions stay in the host; `endSessions` asks the host to end them.
import { homedir } from 'node:os';
import type { ControlArgs, ControlResult } from '../../protocol/control';
import type { AppSnapshot } from '../../protocol/hostAppMessages';
import { KEEPS_AGENTS_CAPABILITY } from '../../protocol/hostMessages';
import { AgentChoices } from '../services/agentChoices';
import { AgentCatalog, type CatalogEntry } from '../services/catalog';
import type { AgentHookResult } from '../services/hookResult';
import { HostClient, type HostConnectFailure } from './hostClient';
import { connectHost } from './hostLauncher';
import { packageVersion } from '../services/install';
import type { Logger } from '../services/log';
import { termioPaths, type TermioPaths } from '../services/paths';
import { isProcessAlive } from '../services/processes';
import { SettingsFile } from '../services/settingsFile';
import { Emitter } from '../../protocol/events';
import type { MachineInfo } from '../../protocol/machines';
import { RemoteRegistry, type AppSessionRecord } from './remoteRegistry';
import type { AppHost, FanoutVerb, HistoryVerb, LaunchResult, ReviewResult, ReviewVerb } from './appHost';

export type { AppSessionRecord };

/** A problem the app shows the user (a corrupt state file, a hook launcher it could not write). */
export type { HostProblem } from '../../protocol/hostAppMessages';
import type { HostProblem } from '../../protocol/hostAppMessages';

/** git's own limit (host/worktrees/git.ts) plus the round trip. */
const REVIEW_TIMEOUT_MS = 125_000;
/** A fan-out member's test run: the host's 15 minutes, and a margin. */
const FANOUT_TEST_TIMEOUT_MS = 16 * 60_000;

/** How long a host asked to stop may take to end its sessions and go: its own grace is 0.8 s. */
const HOST_STOP_WAIT_MS = 5_000;

export type RemoteHostStart =
  | { ok: true; host: RemoteHost }
  /** The host runs another version of Termio: the app offers to restart it. */
  | { ok: false; kind: 'versionSkew'; hostVersion: string; pid: number | null; keepsAgents: boolean; message: string }
  | { ok: false; kind: 'failed'; message: string };

export interface RemoteHostOptions {
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

export class RemoteHost implements AppHost {
  readonly paths: TermioPaths;
  readonly registry: RemoteRegistry;
  readonly settings: SettingsFile;
  readonly catalog: AgentCatalog;
  readonly problems: HostProblem[] = [];
  private readonly choices: AgentChoices;
  /** Each agent's hook entries as the host last checked them (hooks.apply status). */
  private hookStates = new Map<string, AgentHookResult>();
  private windowOrder: string[] = [];
  private looking: { session: string | null; windowId: string | null } = { session: null, windowId: null };
  private lost = false;
  private notifier: 'tray' | 'host' = 'host';
  /** The saved machines and their connections, as the host last said. */
  machines: MachineInfo[] = [];
  private readonly machinesChanged = new Emitter<MachineInfo[]>();
  readonly onMachinesChanged = this.machinesChanged.event;
  private readonly askpass = new Emitter<{ id: string; machine: string; prompt: string }>();
  private readonly askpassDone = new Emitter<string>();
  readonly onAskpass = this.askpass.event;
  readonly onAskpassDone = this.askpassDone.event;
  /** The host answered app events to this app (set by the UI). */
  onActivate: () => void = () => undefined;
  onNotify: (title: string, body: string, session: string | null) => void = () => undefined;
  onHostLost: (why: string) => void = () => undefined;

  /** Connects to the host (starting one if none runs) and reads the settings and agents. */
  static async start(opts: RemoteHostOptions): Promise<RemoteHostStart> {
    const env = opts.env ?? process.env;
    const c = await connectHost(env, { client: 'termio-app', start: true, asUser: true });
    if (!(c instanceof HostClient)) return skewOrFailure(c);
    if (c.hello.hostVersion !== packageVersion()) {
      const hostVersion = c.hello.hostVersion;
      const pid = c.hello.pid;
      const keepsAgents = c.hello.capabilities.includes(KEEPS_AGENTS_CAPABILITY);
      c.close();
      return {
        ok: false,
        kind: 'versionSkew',
        hostVersion,
        pid,
        keepsAgents,
        message: `the session host runs Termio ${hostVersion}; this app is ${packageVersion()}`,
      };
    }
    const paths = termioPaths(env);
    const settings = new SettingsFile(paths.settingsFile, env.HOME ?? homedir());
    settings.watch();
    const catalog = await AgentCatalog.create({ env: opts.env || undefined, logger: opts.logger });
    return { ok: true, host: new RemoteHost(opts, c, paths, settings, catalog) };
  }

  /** Stops a host of any version by signal and waits for it to exit: SIGUSR2 to one that keeps
   *  its agents running through a restart (session holders), else SIGTERM (it ends its sessions,
   *  keeping their tabs for resume). */
  static async stopHost(pid: number, keepsAgents = false): Promise<boolean> {
    try {
      process.kill(pid, keepsAgents ? 'SIGUSR2' : 'SIGTERM');
    } catch {
      // Already gone.
    }
    const deadline = Date.now() + HOST_STOP_WAIT_MS;
    while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return !isProcessAlive(pid);
  }

  private constructor(
    private readonly opts: RemoteHostOptions,
    private connection: HostClient,
    paths: TermioPaths,
    settings: SettingsFile,
    catalog: AgentCatalog,
  ) {
    this.paths = paths;
    this.settings = settings;
    this.catalog = catalog;
    this.registry = new RemoteRegistry(connection, (msg, data) => opts.logger.warn(msg, data));
    this.choices = new AgentChoices(catalog, settings);
    this.wire(connection);
  }

  get client(): HostClient {
    return this.connection;
  }

  /** App events to the registry and the UI; a lost connection told once. */
  private wire(client: HostClient): void {
    client.onEvent((e) => {
      switch (e.event) {
        case 'session':
          this.registry.apply(e.session);
          return;
        case 'sessionRemoved':
          this.registry.remove(e.id);
          return;
        case 'focus':
          this.registry.requestFocus(e.id);
          return;
        case 'activate':
          this.onActivate();
          return;
        case 'bell':
          this.registry.bell(e.id);
          return;
        case 'notify':
          this.onNotify(e.title, e.body, e.session);
          return;
        case 'machines':
          this.machines = e.machines;
          this.machinesChanged.fire(e.machines);
          return;
        case 'askpass':
          this.askpass.fire({ id: e.id, machine: e.machine, prompt: e.prompt });
          return;
        case 'askpassDone':
          this.askpassDone.fire(e.id);
          return;
        case 'detached':
        case 'input':
          return;
      }
    });
    client.onClose((why) => {
      if (this.lost || client !== this.connection) return;
      this.lost = true;
      this.opts.logger.warn('lost the session host', { why });
      this.onHostLost(why);
    });
  }

  /**
   * After the host went away: starts a new one (which relaunches every session through exact
   * resume) and subscribes again. False when no host of this version could be reached.
   */
  async reconnect(): Promise<boolean> {
    const c = await connectHost(this.opts.env ?? process.env, { client: 'termio-app', start: true, asUser: true });
    if (!(c instanceof HostClient)) {
      this.opts.logger.warn('cannot reach a new session host', { message: c.message });
      return false;
    }
    if (c.hello.hostVersion !== packageVersion()) {
      c.close();
      return false;
    }
    this.registry.replaceClient(c);
    this.connection = c;
    this.lost = false;
    this.wire(c);
    this.opts.logger.info('reconnected to a new session host', { pid: c.hello.pid });
    const snap = await this.subscribe(true, this.notifier);
    return !('error' in snap);
  }

  /** Starts the event stream; `restore` relaunches the saved sessions the host does not run. */
  async subscribe(restore: boolean, notifier: 'tray' | 'host'): Promise<AppSnapshot | { error: string }> {
    this.notifier = notifier;
    const r = await this.client.request('app.subscribe', { restore, notifier }, 120_000);
    if (!r.ok) return { error: r.error.message };
    this.windowOrder = r.result.windows;
    for (const p of r.result.problems) this.problems.push(p);
    if (!r.result.otherApp) for (const s of r.result.sessions) this.registry.apply(s);
    if (r.result.machines) {
      this.machines = r.result.machines;
      this.machinesChanged.fire(this.machines);
    }
    return r.result;
  }

  /** Asks the app already attached to come forward (a second launch). */
  async activateOther(): Promise<void> {
    await this.client.request('app.activate', {});
  }

  savedWindows(): string[] {
    return this.windowOrder;
  }

  // ---- agents -------------------------------------------------------------------------------

  /** Changes one setting: the host writes it; the answer is its refusal, or null once written
   *  (this app's copy is read again then, so what it shows next is the new value). */
  async setSetting(path: string[], value: unknown): Promise<string | null> {
    const r = await this.client.request('settings.set', { path, value });
    if (!r.ok) {
      this.opts.logger.warn('setting not changed', { path: path.join('.'), message: r.error.message });
      return r.error.message;
    }
    if (r.result.notice) this.problems.push({ source: 'settings', message: r.result.notice });
    this.settings.reload();
    return null;
  }

  hookStatus(agentId: string): AgentHookResult | null {
    return this.hookStates.get(agentId) ?? null;
  }

  /** Asks the host to check (and repair) every agent's hook entries; hookStatus answers from that. */
  async refreshHooks(): Promise<void> {
    await this.applyHooks({ op: 'status' });
  }

  async setHooks(agentId: string, on: boolean): Promise<AgentHookResult | null> {
    await this.applyHooks({ op: on ? 'install' : 'uninstall', agent: agentId });
    const r = this.hookStates.get(agentId) ?? null;
    // The app's log says what the user's click did, as the host's log says what it wrote.
    this.opts.logger.info('hooks changed', { agentId, on, state: r?.state, action: r?.action, file: r?.file, error: r?.error });
    return r;
  }

  private async applyHooks(args: ControlArgs<'hooks.apply'>): Promise<void> {
    const r = await this.client.request('hooks.apply', args, REVIEW_TIMEOUT_MS);
    if (!r.ok) {
      this.problems.push({ source: 'hooks', message: r.error.message });
      return;
    }
    for (const a of r.result.agents) this.hookStates.set(a.agentId, a);
    for (const x of [...r.result.agents, ...r.result.skills, ...r.result.mcp]) if (x.error) this.problems.push({ source: 'hooks', message: x.error });
  }

  orderedAgents(): CatalogEntry[] {
    return this.choices.ordered();
  }

  enabledAgents(): CatalogEntry[] {
    return this.choices.enabled();
  }

  /** The agents the host can start: their commands looked up on the host's login PATH (the
   *  launcher's), so the picker and the launcher agree. */
  async refreshAgents(): Promise<void> {
    const r = await this.client.request('agents.loginPath', {});
    // A shell that fails now (a start-up file broken since) leaves the PATH it gave before.
    this.catalog.refreshAvailability(r.ok && r.result.path !== null ? r.result.path : undefined);
  }

  async moveAgent(id: string, delta: -1 | 1): Promise<void> {
    const agents = this.choices.moved(id, delta);
    if (agents) await this.setSetting(['agents'], agents);
  }

  agent(id: string | null | undefined): CatalogEntry | undefined {
    return this.choices.get(id);
  }

  agentName(id: string | null | undefined): string {
    return this.choices.name(id);
  }

  // ---- sessions -----------------------------------------------------------------------------

  /** The window new sessions go to (the UI sets it as the user moves between windows). */
  set activeWindowId(id: string) {
    if (this.looking.windowId === id) return;
    this.looking = { ...this.looking, windowId: id };
    this.sendLooking();
  }

  /** Which session the user is looking at (selected in the focused window), for notifications and done → idle. */
  setLookingAt(id: string | null): void {
    if (this.looking.session === id) return;
    this.looking = { ...this.looking, session: id };
    this.sendLooking();
  }

  private sendLooking(): void {
    if (!this.client.closed) void this.client.request('app.looking', this.looking);
  }

  /** Starts a session in a window; its record arrives as an event (and in the answer). */
  async addMachine(m: { name: string; target: string; port?: number; identity?: string }): Promise<string | null> {
    const r = await this.client.request('machines.add', m);
    return r.ok ? null : r.error.message;
  }

  async removeMachine(name: string): Promise<string | null> {
    const r = await this.client.request('machines.remove', { name });
    return r.ok ? null : r.error.message;
  }

  async launch(agentId: string | null, cwd: string, bypass: boolean, windowId: string, worktree = false, machine: string | null = null): Promise<LaunchResult> {
    // A worktree's set-up is the repository's (a checkout of a large tree takes a while): same minute.
    const r = await this.client.request(
      'app.launch',
      { agentId, cwd, bypass, windowId, worktree: worktree ? true : undefined, machine: machine || undefined },
      60_000,
    );
    if (!r.ok) return { ok: false, message: r.error.message };
    this.registry.apply(r.result.session);
    return { ok: true, record: this.registry.get(r.result.session.id)! };
  }

  /** The review view's worktree verbs (the same as `termio sessions diff|commit|merge|rebase|close`). */
  async review<V extends ReviewVerb>(verb: V, args: ControlArgs<V>): Promise<ReviewResult<V>> {
    // A merge or rebase of a big branch takes seconds; git's own limit is two minutes.
    return this.control(verb, args, REVIEW_TIMEOUT_MS);
  }

  async fanout<V extends FanoutVerb>(verb: V, args: ControlArgs<V>): Promise<ReviewResult<V>> {
    // Starting members (a minute each at most) and a test run (the host ends one after 15 minutes) take long.
    const timeout = verb === 'sessions.fanout.test' ? FANOUT_TEST_TIMEOUT_MS : verb === 'sessions.fanout' ? 8 * 60_000 : REVIEW_TIMEOUT_MS;
    return this.control(verb, args, timeout);
  }

  async history<V extends HistoryVerb>(verb: V, args: ControlArgs<V>): Promise<ReviewResult<V>> {
    // Searching a large index, or asking saved machines too, takes seconds.
    return this.control(verb, args, REVIEW_TIMEOUT_MS);
  }

  /** A control verb the app sends as the CLI does, its answer or refusal as the views want it. */
  private async control<V extends ReviewVerb | FanoutVerb | HistoryVerb>(verb: V, args: ControlArgs<V>, timeout: number): Promise<ReviewResult<V>> {
    const r = (await this.client.request(verb as FanoutVerb, args as never, timeout)) as
      { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };
    return r.ok ? { ok: true, result: r.result as ControlResult<V> } : { ok: false, code: r.error.code, message: r.error.message };
  }

  async answerAsk(id: string, answer: string | null): Promise<boolean> {
    const r = await this.client.request('machines.answerAsk', { id, answer });
    return r.ok && r.result.answered;
  }

  async relaunch(id: string): Promise<boolean> {
    const r = await this.client.request('app.relaunch', { session: id }, 60_000);
    return r.ok && r.result.relaunched;
  }

  rename(id: string, title: string): void {
    void this.client.request('app.rename', { session: id, title });
  }

  /** A notification the app showed was clicked. */
  /** A choice of a waiting question picked in the tray; resolves with what the host did. */
  async answer(session: string, question: string, choice: number): Promise<{ answered: boolean; message: string }> {
    const r = await this.client.request('app.answer', { session, question, choice });
    return r.ok ? r.result : { answered: false, message: r.error.message };
  }

  notificationClicked(session: string | null): void {
    void this.client.request('app.notificationClicked', { session });
  }

  /** Ends every session (their tabs stay saved for exact resume) and stops the host. */
  async endSessions(): Promise<void> {
    if (this.client.closed) return;
    const pid = this.client.hello.pid;
    await this.client.request('host.stop', {});
    const deadline = Date.now() + HOST_STOP_WAIT_MS;
    while (isProcessAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  /** Detaches: the sessions keep running in the host. */
  dispose(): void {
    this.lost = true;
    this.registry.dispose();
    this.client.close();
    this.settings.dispose();
    void this.catalog.dispose();
    this.opts.logger.info('detached from the session host');
  }
}

function skewOrFailure(c: HostConnectFailure): RemoteHostStart {
  if (c.kind === 'versionMismatch') {
    return {
      ok: false,
      kind: 'versionSkew',
      hostVersion: c.hostVersion ?? 'unknown',
      pid: c.pid ?? null,
      keepsAgents: c.keepsAgents === true,
      message: c.message,
    };
  }
  return { ok: false, kind: 'failed', message: c.message };
}
