// Builds the host's services in the order a launch needs them: first what the control socket
// answers with (registry, tracker), then, once this launch owns the socket, settings, the agent
// catalog, the state file with resume, and the hook server. Each problem found on the way is kept
// for the app to show; only a hook server that cannot listen stops the launch.
import { homedir } from 'node:os';
import { AgentCatalog } from '../services/catalog';
import { ensureLauncher } from '../services/hookInstaller';
import { HookServer } from './hookServer';
import type { HostProblem } from '../../protocol/hostAppMessages';
import type { HostOptions } from './hostOptions';
import { loginShellEnv } from '../services/loginShellPath';
import { NotificationPolicy } from '../services/notifier';
import { termioPaths, type TermioPaths } from '../services/paths';
import { ResumeService } from './resumeService';
import { SessionCallers } from './sessionCallers';
import { SessionNotes } from './sessionNotes';
import { SessionRegistry, type Spawner } from './sessionRegistry';
import { defaultSettings, SettingsStore } from '../services/settings';
import { StateStore, type StateProblem } from './stateStore';
import { StatusTracker } from './statusTracker';
import { SessionFacts } from './sessionFacts';

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
  /** What sessions start from: the login shell's exported environment (undefined: this process's). */
  sessionBaseEnv: Record<string, string> | undefined;
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
  const sessionBaseEnv = await baseEnvironment(opts);
  const catalog = await AgentCatalog.create({ ...(opts.env ? { env: opts.env } : {}), logger: log, ...(opts.path !== undefined ? { path: opts.path } : {}) });
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
  return { ok: true, services: { settings, catalog, store, resume, hooks, sessionBaseEnv } };
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

/** The environment sessions start from (undefined: this process's). */
async function baseEnvironment(opts: HostOptions): Promise<Record<string, string> | undefined> {
  if (opts.path === undefined) {
    // The same cached answer the catalog resolves commands with: one login shell per launch.
    const login = await loginShellEnv(opts.env ?? process.env);
    if (login.source === 'login-shell') return login.vars;
  }
  // Otherwise sessions start from the environment the host was given (a test's HOME and SHELL),
  // never from whatever this process happens to run with.
  if (opts.env) return Object.fromEntries(Object.entries(opts.env).filter((e): e is [string, string] => e[1] !== undefined));
  return undefined;
}

function problemText(p: StateProblem): string {
  return p.movedTo ? `${p.message} It was moved to ${p.movedTo}; Termio started with no saved sessions.` : p.message;
}
