// Builds the host's services in the order a launch needs them: first what the control socket
// answers with (registry, tracker), then, once this launch owns the socket, settings, the agent
// catalog, the state file with resume, and the hook server. Each problem found on the way is kept
// for the app to show; only a hook server that cannot listen stops the launch. HostOptions, how a
// Host is built, lives here too: the host and the pieces it wires (hostControl.ts) share it.
import { homedir } from 'node:os';
import { AgentCatalog } from '../services/catalog';
import { ensureLauncher } from '../services/hookInstaller';
import { HookServer } from './status/hookServer';
import type { HostProblem } from '../../protocol/hostAppMessages';
import type { Logger } from '../services/log';
import type { RemoteSessions } from './machines/hubControl';
import { loginShellEnv, type LoginShellEnv } from '../services/loginShellPath';
import { NotificationPolicy, type NotificationSink } from '../services/notifier';
import { termioPaths, type TermioPaths } from '../services/paths';
import { ResumeService } from './resume/resumeService';
import { SessionCallers } from './sessions/sessionCallers';
import { SessionNotes } from './sessions/sessionNotes';
import { SessionRegistry, type Spawner } from './sessions/sessionRegistry';
import { defaultSettings, SettingsStore } from '../services/settings';
import { StateStore, type StateProblem } from './state/stateStore';
import { StatusTracker } from './status/statusTracker';
import { SessionFacts } from './sessions/sessionFacts';

/** How a Host is built: its logger, environment and the seams tests and the process entry fill in. */
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
  /** The other machines' sessions (the hub, which the host process starts after the Host). */
  remoteSessions?: () => RemoteSessions | null;
}

/** A value that exists once start-up finishes: async readers wait for it, sync readers see null until then. */
export class Later<T> {
  value: T | null = null;
  readonly promise: Promise<T>;
  private resolve: (v: T) => void = () => undefined;

  constructor() {
    this.promise = new Promise<T>((r) => (this.resolve = r));
  }

  set(v: T): void {
    this.value = v;
    this.resolve(v);
  }
}

/** What exists before the control socket listens: enough to answer it, nothing that touches files. */
export interface HostCore {
  paths: TermioPaths;
  registry: SessionRegistry;
  tracker: StatusTracker;
  notifications: NotificationPolicy;
  notes: SessionNotes;
  callers: SessionCallers;
  /** The one SessionInfo mapper every socket answers with. */
  facts: SessionFacts;
  problems: HostProblem[];
  reportProblem: (source: HostProblem['source'], message: string) => void;
}

/** The core; `spawner` launches sessions once the rest is up (the registry's spawns wait for it). */
export function createCore(opts: HostOptions, spawner: Spawner): HostCore {
  const problems: HostProblem[] = [];
  const registry = new SessionRegistry({ spawner, defaultCwd: homedir() });
  const tracker = new StatusTracker({ logger: opts.logger });
  const notes = new SessionNotes();
  return {
    paths: termioPaths(opts.env),
    registry,
    tracker,
    notifications: new NotificationPolicy(defaultSettings().notifications),
    notes,
    facts: new SessionFacts(tracker, notes),
    callers: new SessionCallers(registry),
    problems,
    reportProblem: (source, message) => {
      problems.push({ source, message });
      opts.logger.warn(`${source} problem`, { message });
    },
  };
}

/** What the rest of start-up builds. */
export interface HostServices {
  settings: SettingsStore;
  catalog: AgentCatalog;
  store: StateStore;
  resume: ResumeService;
  hooks: HookServer;
  /** What sessions started from when the host did: the login shell's exported environment (undefined: this process's). */
  sessionBaseEnv: Record<string, string> | undefined;
  /** What a session starting now starts from. */
  sessionEnv: SessionEnvironment;
}

/** The environment sessions start from, kept as current as a new terminal tab's. */
export interface SessionEnvironment {
  /** The login shell's exports now, asked again when a start-up file of the user's shell changed
   *  since (a new PATH then re-resolves the agents' commands); undefined: this process's. */
  current(): Promise<Record<string, string> | undefined>;
}

export async function startServices(core: HostCore, opts: HostOptions): Promise<{ ok: true; services: HostServices } | { ok: false; message: string }> {
  const log = opts.logger;
  const home = (opts.env ?? process.env).HOME ?? homedir();
  try {
    // Installed hooks run the launcher: point it at this build's reporter before any agent starts.
    ensureLauncher(core.paths);
  } catch (e) {
    core.reportProblem('hooks', `cannot write the hook launcher: ${(e as Error).message}`);
  }
  const settings = startSettings(core, opts, home);
  const catalog = await AgentCatalog.create({ env: opts.env || undefined, logger: log, path: opts.path });
  const sessionEnv = sessionEnvironment(opts, catalog);
  // The same answer the catalog resolved commands with: one login shell per launch.
  const sessionBaseEnv = await sessionEnv.current();
  for (const p of catalog.problems()) core.problems.push({ source: 'catalog', message: `${p.label}: ${p.errors.join('; ')}` });

  const opened = StateStore.open({ file: core.paths.sessionsFile, logger: log });
  const store = opened.store;
  if (opened.problem) core.reportProblem('state', problemText(opened.problem));
  for (const w of opened.warnings) core.reportProblem('state', w);

  const resume = new ResumeService({
    store,
    manifestOf: (id) => catalog.get(id)?.manifest ?? null,
    home,
    logger: log,
    processOf: (id) => core.tracker.agentPid(id),
  });
  const hooks = await HookServer.start({
    paths: core.paths,
    secretOf: (id) => (core.tracker.isTracked(id) ? core.callers.secretOf(id) : undefined),
    logger: log,
  });
  if ('kind' in hooks) return { ok: false, message: hooks.message };
  return { ok: true, services: { settings, catalog, store, resume, hooks, sessionBaseEnv, sessionEnv } };
}

/** Loads settings.json, watches it, and applies it now and on every change. */
function startSettings(core: HostCore, opts: HostOptions, home: string): SettingsStore {
  const settings = new SettingsStore(core.paths.settingsFile, home);
  settings.watch();
  const apply = (): void => {
    const s = settings.settings;
    core.notifications.setPrefs(s.notifications);
    core.tracker.setStallMs(s.sessions.stallSeconds * 1000);
    for (const r of core.registry.list()) r.session.setCursorDefaults(s.terminal.cursorStyle, s.terminal.cursorBlink);
    for (const e of settings.errors) opts.logger.warn('settings problem', { message: e });
  };
  apply();
  settings.onChange(apply);
  return settings;
}

/**
 * The login shell's environment (cached until a start-up file changes: loginShellEnv), or, when
 * the shell cannot be asked or the host was given a PATH (tests), the environment the host was
 * given (a test's HOME and SHELL), never whatever this process happens to run with.
 */
function sessionEnvironment(opts: HostOptions, catalog: AgentCatalog): SessionEnvironment {
  const given = opts.env ? Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined)) : undefined;
  // Each call looks at the PATH folders again too: an agent installed since counts for this launch.
  if (opts.path !== undefined)
    return {
      current: () => {
        catalog.refreshAvailability();
        return Promise.resolve(given);
      },
    };
  const env = opts.env ?? process.env;
  let path: string | null = null;
  // The last answer the shell gave: a start-up file broken since (the shell exits, or hangs)
  // must not take away what sessions had, such as the PATH an npm-installed agent needs.
  let good: LoginShellEnv | null = null;
  return {
    current: async () => {
      const asked = await loginShellEnv(env);
      if (asked.source === 'login-shell') good = asked;
      else if (good) opts.logger.warn('login shell: asked again and failed; sessions keep what it exported before', { problem: asked.problem });
      const login = good ?? asked;
      if (path !== null && login.path !== path) opts.logger.info("the login shell's PATH changed", { path: login.path });
      path = login.path;
      catalog.refreshAvailability(login.path);
      return login.source === 'login-shell' ? login.vars : given;
    },
  };
}

function problemText(p: StateProblem): string {
  return p.movedTo ? `${p.message} It was moved to ${p.movedTo}; Termio started with no saved sessions.` : p.message;
}
