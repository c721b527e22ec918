// The session host as a running service: every Host service (sessions, status, hooks, resume,
// catalog, settings, state, the control socket) served to clients on the host socket, with the
// host's lifetime rules — one per TERMIO_HOME (a live socket means one runs), up while it holds
// sessions or clients, gone after a short idle spell, a clean stop that ends every session and
// keeps their tabs for exact resume, and a restart that leaves every held agent running for the
// next host to adopt. hostMain.ts runs it as the termio-host process; tests
// run it in-process.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { HOST_SOCKET_FILE } from '../../protocol/hostFraming';
import { startAppDetached } from '../services/appLaunch';
import { AppService } from './server/appService';
import { SocketServer } from './server/socketServer';
import type { ServerOptions } from './server/serverOptions';
import type { Companion } from './companion/companion';
import { pageRemote, startHostCompanion } from './companion/hostWiring';
import { pageHistory } from './companion/pageHistory';
import { pageLaunch } from './companion/pageLaunch';
import { Host, type HostOptions } from './host';
import { installPath, installRoot, packageVersion } from '../services/install';
import type { Logger } from '../services/log';
import { defaultNotificationSink } from './notify/dbusNotifier';
import { defaultNotificationIcon, type NotificationSink } from '../services/notifier';
import { ensureRunDir, termioPaths, type TermioPaths } from '../services/paths';
import { loadHostId } from '../services/hostId';
import { shortenHome } from '../../protocol/homePath';
import type { SessionInfo } from '../../protocol/sessionInfo';
import { hubRemoteSessions } from './machines/hubControl';
import { MachinesHub } from './machines/hub';
import { MachinesStore } from './machines/machinesStore';
import { AskpassBroker, writeAskpassScript } from './machines/askpass';
import type { Adopted, AdoptionResult } from './holders/holderAdoption';

/**
 * How long the host stays up with no session and no client: long enough for the command that
 * started it to connect and for `termio attach` to follow `termio host spawn`, short enough that
 * an unused host does not linger.
 */
export const HOST_IDLE_EXIT_MS = 10_000;

/** Present while a host runs; found at start, it means the previous host was lost (killed, or
 *  the machine went down) rather than stopped, so the sessions it relaunches are marked recovered. */
const RUNNING_MARKER = 'host.running';

export interface HostProcessOptions {
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Overrides HOST_IDLE_EXIT_MS (tests); 0 = never exit when idle. */
  idleExitMs?: number;
  /** PATH to resolve agent commands on (tests); default: the login shell's. */
  path?: string;
  /** Where notifications go when no app shows them (tests pass a recorder). Default: node-notifier. */
  notificationSink?: NotificationSink;
  /** Starts the app when a notification click or `termio DIR` needs one and none is attached.
   *  Default: the installed app, detached. */
  startApp?: (focusSession: string | null) => void;
}

export type HostProcessStart = { ok: true; host: HostProcess } | { ok: false; alreadyRunning: boolean; message: string };

/** The Host's options: notifications go through the app when it shows them itself (Termio.app's
 *  tray on macOS), else the host posts them; activation and clicks go to the app service. */
function hostOptions(opts: HostProcessOptions, app: () => AppService | null, hub: MachinesHub): HostOptions {
  const remote = hubRemoteSessions(hub, (id) => app()?.focus(id));
  const fallback = opts.notificationSink ?? defaultNotificationSink(opts.logger, defaultNotificationIcon(installRoot), opts.env);
  return {
    remoteSessions: () => remote,
    logger: opts.logger,
    env: opts.env || undefined,
    path: opts.path,
    notificationSink: {
      send: (req, sound, onClick, onAction) =>
        app()?.notify(req.title, req.message, req.sessionId) ? Promise.resolve() : fallback.send(req, sound, onClick, onAction),
    },
    onActivate: () => app()?.activate(),
    onNotificationClick: (id) => app()?.focus(id),
  };
}

/** The companion gets the host's own settings and catalog (names and icons of agents). */
function companionOptions(self: HostProcess, host: Host, logger: Logger, env: NodeJS.ProcessEnv | undefined): Parameters<typeof startHostCompanion>[0] {
  return {
    registry: host.registry,
    feedFor: (r) => self.server.feedFor(r),
    paths: self.paths,
    logger,
    env: env || undefined,
    settings: host.settings,
    questions: host.questions,
    launch: pageLaunch(host, env?.HOME || homedir()),
    history: host.control.history ? pageHistory(host.control.history) : undefined,
    remote: pageRemote(self.hub),
    lookingAt: () => host.lookingAt,
    agentInfo: (id) => {
      const e = host.catalog.get(id);
      return e ? { name: e.manifest.name, iconFile: e.iconFile || undefined } : { name: id };
    },
  };
}

/** The saved machines and their connections (started once the host listens). */
function machinesHub(paths: TermioPaths, env: NodeJS.ProcessEnv, logger: Logger, hostId: string): MachinesHub {
  const file = join(paths.configDir, 'machines.json');
  return new MachinesHub(new MachinesStore(file, shortenHome(file, env.HOME ?? '')), {
    logger,
    version: packageVersion(),
    env,
    hostId,
    // The host has no terminal: what ssh asks goes to the app through SSH_ASKPASS (never BatchMode here).
    batch: () => false,
    askpass: {
      script: writeAskpassScript(paths.runDir, process.execPath, installPath('bin', 'termio-askpass')),
      socket: join(paths.runDir, HOST_SOCKET_FILE),
      broker: new AskpassBroker(),
    },
  });
}

/** Other machines' sessions that change state are notified here, under this host's policy. */
function notifyRemoteStates(hub: MachinesHub, host: Host): void {
  const lastState = new Map<string, SessionInfo['state']>();
  hub.onSessionChanged((s) => {
    const before = lastState.get(s.id);
    lastState.set(s.id, s.state);
    // The first sight of a session (or of it after a drop) is no change of state.
    if (before !== undefined && before !== s.state && s.reachable !== false) host.remoteStateChanged(s, before);
  });
  hub.onSessionRemoved((id) => lastState.delete(id));
}

/** The host socket's server: the registry, the verb table and the services a client reaches. */
function socketServerOptions(self: HostProcess, socketPath: string, app: AppService, logger: Logger): ServerOptions {
  const host = self.host;
  const hub = self.hub;
  return {
    socketPath,
    registry: host.registry,
    sessionInfo: (r) => host.facts.info(r),
    logger,
    hostVersion: packageVersion(),
    hostId: hub.hostId,
    keepsAgents: host.holders.available,
    describe: () => statusFields(self),
    verbs: host.control.sessionVerbs,
    onStop: () => void self.stop('asked by a client'),
    app,
    keepsEnded: (r) => host.store.getSession(r.id) !== undefined,
    companion: () => self.companion,
    hub,
  };
}

/** Adopts the sessions a previous host left running on holders; when that host did not stop
 *  cleanly (`lost`), the saved sessions not adopted are marked recovered. */
async function adoptPrevious(host: Host, lost: boolean): Promise<{ adoption: AdoptionResult; adopted: Set<string>; recovered: Set<string> }> {
  const adoption = await host.adoptHolders();
  const adopted = new Set(adoption.adopted.map((a) => a.session.id));
  const recovered = new Set<string>();
  if (lost) for (const s of host.store.state.sessions) if (!adopted.has(s.id)) recovered.add(s.id);
  host.facts.recovered = recovered;
  return { adoption, adopted, recovered };
}

/** host.status: what only the host process knows (start time, log file, pid, memory, holders). */
function statusFields(self: HostProcess): ReturnType<ServerOptions['describe']> {
  const h = self.host.holders;
  return {
    pid: process.pid,
    version: packageVersion(),
    startedAt: self.startedAt.toISOString(),
    log: join(self.paths.logsDir, 'host.log'),
    rssBytes: process.memoryUsage.rss(),
    holders: h.available ? { available: true, held: self.host.heldCount } : { available: false, held: 0, reason: h.reason },
  };
}

export class HostProcess {
  readonly startedAt = new Date();
  private idleTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private resolveStopped!: () => void;
  /** Resolves once the host has stopped (asked to, or idle). */
  readonly stopped = new Promise<void>((r) => (this.resolveStopped = r));
  server!: SocketServer;
  /** The web companion (off unless enabled in settings; it follows them live). */
  companion: Companion | null = null;
  /** The sessions this host adopted from holders at start (each says when its screen is back). */
  adopted: Adopted[] = [];

  private constructor(
    readonly paths: TermioPaths,
    readonly socketPath: string,
    readonly host: Host,
    readonly app: AppService,
    readonly hub: MachinesHub,
    private readonly opts: HostProcessOptions,
  ) {}

  get registry(): Host['registry'] {
    return this.host.registry;
  }

  static async start(opts: HostProcessOptions): Promise<HostProcessStart> {
    const paths = termioPaths(opts.env);
    ensureRunDir(paths);
    const socketPath = join(paths.runDir, HOST_SOCKET_FILE);
    const log = opts.logger;
    const marker = join(paths.runDir, RUNNING_MARKER);
    const lost = existsSync(marker);
    let app: AppService | null = null;
    const env = opts.env ?? process.env;
    const startApp = opts.startApp ?? ((focus: string | null) => startAppDetached(env, paths.logsDir, focus));
    const hub = machinesHub(paths, env, log, loadHostId(paths.home));
    const hostOpts = hostOptions(opts, () => app, hub);
    const started = await Host.start(hostOpts);
    if (!started.ok)
      return {
        ok: false,
        alreadyRunning: started.alreadyRunning,
        message: started.alreadyRunning ? `a Termio host is already running on ${socketPath}` : started.message,
      };
    const host = started.host;
    // Before any client can ask for a restore: the sessions a previous host left running.
    const { adoption, adopted, recovered } = await adoptPrevious(host, lost);
    app = new AppService(host, { startApp, machines: hub });
    const self = new HostProcess(paths, socketPath, host, app, hub, opts);
    const listen = await SocketServer.listen(socketServerOptions(self, socketPath, app, log));
    if (!listen.ok) {
      hub.dispose();
      app.dispose();
      await host.dispose();
      return {
        ok: false,
        alreadyRunning: listen.reason === 'alreadyRunning',
        message: listen.reason === 'alreadyRunning' ? `a Termio host is already running on ${socketPath}` : listen.message,
      };
    }
    writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 });
    self.server = listen.server;
    host.facts.viewsOf = (id) => listen.server.viewsOf(id);
    self.server.onClientsChanged(() => self.checkIdle());
    host.registry.onAdded(() => self.checkIdle());
    host.registry.onRemoved(() => self.checkIdle());
    self.adopted = adoption.adopted;
    log.info('host listening', {
      socket: socketPath,
      pid: process.pid,
      version: packageVersion(),
      adopted: adopted.size,
      recovering: lost ? recovered.size : undefined,
    });
    self.companion = await startHostCompanion(companionOptions(self, host, log, opts.env));
    hub.start((id) => host.registry.get(id) !== undefined);
    hub.onMachinesChanged(() => self.checkIdle());
    notifyRemoteStates(hub, host);
    self.checkIdle();
    return { ok: true, host: self };
  }

  /** Idle = no session and no client: exit after the idle spell unless one comes back. */
  private checkIdle(): void {
    if (this.stopping) return;
    // Saved machines keep their connections up with no window open: the host stays for them.
    const idle = this.host.registry.size === 0 && this.server.clientCount === 0 && this.hub.size === 0;
    const ms = this.opts.idleExitMs ?? HOST_IDLE_EXIT_MS;
    if (!idle || ms === 0) {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = null;
      return;
    }
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => void this.stop(`idle for ${ms} ms`), ms);
  }

  /** Ends every session (hang-up, then kill after a grace), keeping their tabs for the next start,
   *  closes the sockets and writes the state. With `keepAgents` (a restart: SIGUSR2, `termio host
   *  restart`, an update) held sessions get a last checkpoint and keep running for the next host. */
  stop(why: string, opts: { keepAgents?: boolean } = {}): Promise<void> {
    this.stopping ??= (async () => {
      const keepAgents = opts.keepAgents === true && this.host.holders.available;
      this.opts.logger.info(keepAgents ? 'host restarting: held agents keep running' : 'host stopping', { why, sessions: this.host.registry.size });
      if (this.idleTimer) clearTimeout(this.idleTimer);
      await this.companion?.dispose();
      // Checkpoints before the clients go: an app that reconnects at once starts the next host,
      // which adopts from them.
      if (keepAgents) await this.host.keepAgentsRunning();
      // The machines' hosts keep their sessions: only the connections to them end.
      this.hub.dispose();
      await this.server.close();
      this.app.dispose();
      await this.host.dispose();
      rmSync(join(this.paths.runDir, RUNNING_MARKER), { force: true });
      this.opts.logger.info('host stopped', { why });
      this.resolveStopped();
    })();
    return this.stopping;
  }
}
