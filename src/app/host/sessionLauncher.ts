// Starts sessions' processes: a new session from a spawn request (persisted first), a saved one
// with its resume plan (app start, Resume), or one command as is (`termio sessions run`). Each
// launch gets its own secret, the hook socket, the login environment and the terminal settings,
// and is handed to the status tracker. With session holders available each program runs under
// one (it then outlives this host), and a session a previous host left running is adopted here.
import { basename, join } from 'node:path';
import { commandLineProgram, isCommandLine, loginShellArgv } from '../../protocol/commandLine';
import { Session, type AdoptOptions, type HolderSource, type LaunchError, type SpawnOptions } from '../../terminal/node';
import type { CheckpointRecord } from './holders/checkpointFile';
import type { Checkpointer } from './holders/holderCheckpoints';
import type { SessionEnvironment } from './hostServices';
import type { TrackerSnapshot } from './status/statusTracker';
import { closeFd, openHolderLog, type HolderAvailability } from './holders/holders';
import type { Logger } from '../services/log';
import type { AgentCatalog, CatalogEntry } from '../services/catalog';
import { identifyArgs, programName } from '../services/programIdentity';
import type { HookServer } from './status/hookServer';
import type { NotificationRouter } from './notify/notificationRouter';
import type { ResumeService } from './resume/resumeService';
import type { SessionCallers } from './sessions/sessionCallers';
import type { SessionNotes } from './sessions/sessionNotes';
import type { SessionRegistry, SpawnFailure, SpawnRequest } from './sessions/sessionRegistry';
import { SESSION_SECRET_ENV } from '../services/sessionSecret';
import type { SettingsStore } from '../services/settings';
import type { StateStore } from './state/stateStore';
import type { StatusTracker } from './status/statusTracker';
import { setupArgv, type SetupPlan } from './worktrees/setup';
import type { WorktreeService } from './worktrees/worktreeService';

import { TERMINAL_AGENT_ID } from '../services/agentIds';

export { TERMINAL_AGENT_ID };

/** How long a new session waits for its program's first answer to identify (later ones are kept):
 *  well inside the CLI's wait for a spawn's reply. Past it, the program starts as before. */
const IDENTITY_WAIT_MS = 5_000;

export interface SessionLauncherOptions {
  catalog: AgentCatalog;
  store: StateStore;
  resume: ResumeService;
  tracker: StatusTracker;
  registry: SessionRegistry;
  settings: SettingsStore;
  hooks: HookServer;
  callers: SessionCallers;
  notes: SessionNotes;
  notifications: NotificationRouter;
  worktrees: WorktreeService;
  /** What sessions start from: the login shell's exported environment, as current as a new tab's. */
  sessionEnv: SessionEnvironment;
  /** ...as it was when the host started (undefined: this process's). */
  sessionBaseEnv: Record<string, string> | undefined;
  /** A saved session that could not start again: the app shows it to the user. */
  reportProblem: (message: string) => void;
  holders: HolderAvailability;
  /** Checkpoints of held sessions (null without holders). */
  checkpointer: Checkpointer | null;
  logger: Logger;
}

export class SessionLauncher {
  /** The window new sessions go to (the UI sets it as the user moves between windows). */
  activeWindowId = 'window-1';
  /** Sessions being relaunched (Resume): their durable record must survive the registry's remove. */
  private readonly relaunching = new Set<string>();
  /** New worktree sessions whose repository set-up runs in their terminal before the program. */
  private readonly pendingSetup = new Map<string, SetupPlan>();

  /** What the next session starts from (refreshed by freshEnvironment before each launch). */
  private baseEnv: Record<string, string> | undefined;

  constructor(private readonly o: SessionLauncherOptions) {
    this.baseEnv = o.sessionBaseEnv;
  }

  /** Picks up what the user's shell start-up files export now (an API key or a PATH entry added
   *  since the host started), as a new terminal tab would; the agents' commands follow. */
  private async freshEnvironment(): Promise<void> {
    this.baseEnv = await this.o.sessionEnv.current();
  }

  isRelaunching(id: string): boolean {
    return this.relaunching.has(id);
  }

  agentName(id: string | null | undefined): string {
    return this.o.catalog.get(id ?? TERMINAL_AGENT_ID)?.manifest.name ?? id ?? 'Terminal';
  }

  /** Waits for the agent's program to say what it is, at most IDENTITY_WAIT_MS. */
  private async identified(agentId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((r) => (timer = setTimeout(r, IDENTITY_WAIT_MS)));
    await Promise.race([this.o.catalog.identified(agentId), late]);
    clearTimeout(timer);
  }

  /** Why the agent cannot be started now (no such manifest, another program of its name, not
   *  installed), or null. The spawn asks this first; a fan-out asks it of every agent before
   *  starting any. */
  async refusal(agentId: string): Promise<SpawnFailure | null> {
    // Before the installed check: an agent installed on a PATH the profile got since counts.
    await this.freshEnvironment();
    // A program asked what it is answers first: another program of the same name is not started.
    // One slower than a few seconds (its first answer, on a busy machine) starts as before.
    await this.identified(agentId);
    const entry = this.o.catalog.get(agentId);
    if (!entry) return { kind: 'unknownAgent', message: `no agent with id '${agentId}' (see termio agents list)` };
    if (entry.identity.state === 'other') {
      return {
        kind: 'otherProgram',
        message: `${entry.manifest.name} is not started: ${entry.resolvedCommand} is another program named ${programName(entry.manifest)} (it answered ${JSON.stringify(entry.identity.answer)} to ${identifyArgs(entry.manifest.identify!).join(' ')})${entry.manifest.install ? `; ${entry.manifest.name} installs from ${entry.manifest.install}` : ''}`,
      };
    }
    if (!entry.installed) {
      const cmd = (entry.manifest.command !== undefined ? commandLineProgram(entry.manifest.command) : undefined) ?? entry.manifest.command ?? agentId;
      return {
        kind: 'notInstalled',
        message: `${entry.manifest.name} is not installed: '${cmd}' is not on your login shell's PATH${entry.manifest.install ? ` (install: ${entry.manifest.install})` : ''}`,
      };
    }
    return null;
  }

  /** Builds, persists and launches a new session (the registry's spawner). */
  async spawn(req: SpawnRequest): Promise<Session | SpawnFailure> {
    if (req.argv) {
      await this.freshEnvironment();
      return this.inWorktree(req, basename(req.argv[0]!), (cwd) => this.launchCommand(req.id, cwd, req.argv!));
    }
    const agentId = req.agent ?? TERMINAL_AGENT_ID;
    const refused = await this.refusal(agentId);
    if (refused) return refused;
    const bypass = req.bypass || (this.o.settings.settings.agents[agentId]?.bypass ?? false);
    return this.inWorktree(req, agentId, async (cwd) => {
      // Written at once, not with the next batch: a host killed a moment later must still know the
      // session exists to resume it.
      this.o.store.addSession({ id: req.id, agentId, cwd, title: req.title ?? '', bypass }, { windowId: this.activeWindowId }, { immediate: true });
      if (req.conversation) this.o.store.bindConversation(req.id, req.conversation.id, req.conversation.family);
      if (req.title) this.o.notes.titledByUser(req.id);
      const session = await this.launch(req.id);
      if ('kind' in session) this.o.store.removeSession(req.id);
      return session;
    });
  }

  /** Runs start in the requested worktree (made first, removed again if the start fails), else in req.cwd. */
  private async inWorktree(
    req: SpawnRequest,
    agent: string,
    start: (cwd: string) => Session | SpawnFailure | Promise<Session | SpawnFailure>,
  ): Promise<Session | SpawnFailure> {
    if (!req.worktree) return start(req.cwd);
    const { branch, base, prompt } = req.worktree;
    const made = await this.o.worktrees.prepare({
      dir: req.cwd,
      agent,
      prompt,
      branch,
      base,
    });
    if (!made.ok) return { kind: 'worktreeRefused', message: made.message };
    if (made.setup) this.pendingSetup.set(req.id, made.setup);
    this.o.worktrees.adopt(req.id, made.worktree, { agentId: req.agent ?? null, prompt: prompt ?? null });
    const session = await start(made.worktree.path);
    this.pendingSetup.delete(req.id);
    if ('kind' in session) await this.o.worktrees.discard(made.worktree, made.created);
    return session;
  }

  /** Relaunches every saved session of one window, in tab order (app start). */
  async restoreWindow(windowId: string): Promise<void> {
    const win = this.o.store.state.windows.find((w) => w.id === windowId);
    if (!win) return;
    this.activeWindowId = windowId;
    await this.freshEnvironment();
    for (const id of win.tabs) {
      const record = this.o.store.getSession(id);
      if (!record || this.o.registry.get(id)) continue;
      const session = await this.launch(id);
      if ('kind' in session) {
        this.o.reportProblem(`Could not relaunch ${this.agentName(record.agentId)} in ${record.cwd}: ${session.message}`);
        continue;
      }
      this.o.registry.add(session, {
        agentId: record.agentId === TERMINAL_AGENT_ID ? null : record.agentId,
        title: record.title || undefined,
        bypass: record.bypass,
      });
      if (record.title) this.o.notes.titledByUser(id);
    }
  }

  /** Resume after the program exited: the same plan, in the same tab. */
  async relaunch(id: string): Promise<boolean> {
    const old = this.o.registry.get(id);
    if (!old) return false;
    await this.freshEnvironment();
    this.relaunching.add(id);
    this.o.registry.close(id);
    const session = await this.launch(id);
    this.relaunching.delete(id);
    if ('kind' in session) {
      this.o.reportProblem(`Could not resume: ${session.message}`);
      this.o.store.removeSession(id);
      return false;
    }
    const record = this.o.store.getSession(id);
    this.o.registry.add(session, { agentId: old.agentId, title: record?.title || undefined, bypass: old.bypass });
    return true;
  }

  /** Starts the process for a persisted session with its resume plan. */
  private async launch(id: string): Promise<Session | SpawnFailure> {
    const record = this.o.store.getSession(id);
    if (!record) return { kind: 'noRecord', message: `no saved session ${id}` };
    const entry = this.o.catalog.get(record.agentId);
    if (!entry) return { kind: 'unknownAgent', message: `the agent '${record.agentId}' of session ${id} is not loaded` };
    const plan = await this.o.resume.prepareLaunch(id);
    if ('kind' in plan) return { kind: plan.kind, message: plan.message };
    const argv = this.withSetup(id, this.launchArgv(entry.manifest.command, entry.resolvedCommand, plan.argv));
    const secret = this.o.callers.mint();
    const session = await this.start({ id, cwd: record.cwd, argv: argv || undefined, ...this.spawnDefaults(secret) });
    if ('kind' in session) {
      this.o.resume.sessionEnded(id);
      return session;
    }
    this.o.callers.remember(id, secret);
    this.wireAgent(session, entry.manifest, record.conversationId);
    return session;
  }

  /** The status channels, resume and notifications of an agent's (or a terminal's) session. */
  private wireAgent(session: Session, m: CatalogEntry['manifest'], conversationId: string | null, more: { restored?: TrackerSnapshot } = {}): void {
    const id = session.id;
    this.o.tracker.track(
      session,
      {
        agentId: m.id,
        hooks: m.hooks || undefined,
        titleStatus: m.titleStatus || undefined,
        status: m.status || undefined,
        failureScreen: m.failureScreen || undefined,
        progressStatus: m.progressStatus ? true : undefined,
        // A login shell's screen is the user's own: a (y/n) there is not an agent waiting.
        ...(m.loginShell ? { loginShell: true } : { questions: true }),
      },
      { conversationId: conversationId || undefined, ...more },
    );
    session.onExit(() => this.o.resume.sessionEnded(id));
    session.onNotification((n) => this.o.notifications.fromTerminal(id, n.title, n.body));
  }

  /** Under a holder when there are holders (falling back to a pty of this process if the holder
   *  cannot start), then checkpointed. */
  private async start(opts: SpawnOptions & { id: string }): Promise<Session | LaunchError> {
    const h = this.o.holders;
    if (!h.available) return Session.spawn(opts);
    const logFd = openHolderLog(h.logFile);
    const held = await Session.spawnHeld(opts, {
      binary: h.binary,
      socketPath: join(h.socketDir, `${opts.id}.sock`),
      logFd,
      tap: h.tapDir ? join(h.tapDir, `${opts.id}.bin`) : undefined,
    });
    closeFd(logFd);
    if (!('kind' in held)) {
      this.o.checkpointer?.watch(held);
      return held;
    }
    const local = Session.spawn(opts);
    if (!('kind' in local)) this.o.logger.warn('session runs without a holder', { id: opts.id, why: held.message });
    return local;
  }

  /** Carries on a session a previous host left running in its holder. */
  adopt(source: HolderSource, cp: CheckpointRecord | null): Session {
    const id = basename(source.socketPath, '.sock');
    const session = Session.adopt(source, { ...this.carriedOptions(id, cp), ...(cp ? { checkpoint: cp } : {}) });
    this.carryOn(session, cp);
    this.o.checkpointer?.watch(session, cp && session.streamOffset >= cp.offset ? cp : undefined);
    return session;
  }

  /** A finished program's tab a previous host kept: its last screen and exit status, as it was. */
  restoreFinished(cp: CheckpointRecord & { exited: NonNullable<CheckpointRecord['exited']> }): Session {
    const { pid, ...exited } = cp.exited;
    const session = Session.finished({ ...this.carriedOptions(cp.id, cp), checkpoint: cp, pid, exited });
    this.carryOn(session, cp);
    return session;
  }

  private carriedOptions(id: string, cp: CheckpointRecord | null): AdoptOptions {
    const t = this.o.settings.settings.terminal;
    return {
      id,
      cwd: cp?.session.cwd ?? this.o.store.getSession(id)?.cwd ?? '/',
      argv: cp?.session.argv ?? [],
      scrollback: t.scrollback,
      cursorShape: t.cursorStyle,
      cursorBlink: t.cursorBlink,
    };
  }

  /** Registers a session a previous host ran, with what it knew of it (agent, name, status...). */
  private carryOn(session: Session, cp: CheckpointRecord | null): void {
    const id = session.id;
    const saved = this.o.store.getSession(id);
    const meta = cp?.session;
    if (meta?.secret) this.o.callers.remember(id, meta.secret);
    const entry = saved ? this.o.catalog.get(saved.agentId) : undefined;
    // The status as the previous host's tracker left it: a session asking the user stays asking.
    const restored = meta?.status ? { restored: meta.status } : {};
    if (saved && entry) this.wireAgent(session, entry.manifest, saved.conversationId, restored);
    else {
      this.o.tracker.track(session, null, restored);
      session.onNotification((n) => this.o.notifications.fromTerminal(id, n.title, n.body));
    }
    const agentId = saved ? (saved.agentId === TERMINAL_AGENT_ID ? null : saved.agentId) : (meta?.agentId ?? null);
    this.o.registry.add(session, {
      agentId,
      ...(meta?.name ? { title: meta.name } : saved?.title ? { title: saved.title } : {}),
      bypass: saved?.bypass ?? meta?.bypass ?? false,
      parentId: meta?.parentId ?? null,
      ...(meta
        ? {
            createdAt: meta.createdAt,
            // The failure it stopped on, as the previous host's tracker knew it.
            state: {
              state: meta.state,
              why: meta.stateWhy,
              since: meta.stateSince,
              failure: meta.status?.engine.current.why.failure,
              waitingSince: meta.waitingSince,
            },
          }
        : {}),
    });
    if (saved?.title) this.o.notes.titledByUser(id);
  }

  /**
   * `termio sessions run`: one command as is (no shell), in a tab that stays after it exits with
   * its exit code. Not saved with the windows: running a command again on the next launch would
   * surprise whoever started it.
   */
  private async launchCommand(id: string, cwd: string, argv: string[]): Promise<Session | SpawnFailure> {
    // Its own secret: a termio command inside it speaks as its session, not as the user.
    const secret = this.o.callers.mint();
    const session = await this.start({ id, cwd, argv: this.withSetup(id, argv)!, ...this.spawnDefaults(secret) });
    if ('kind' in session) return session;
    this.o.callers.remember(id, secret);
    // No status channel: the tracker still turns the exit into done, with "exit N" as the reason.
    this.o.tracker.track(session, null);
    session.onNotification((n) => this.o.notifications.fromTerminal(id, n.title, n.body));
    return session;
  }

  /** A new worktree's first launch runs the repository's set-up in the terminal, then becomes the program. */
  private withSetup(id: string, argv: string[] | undefined): string[] | undefined {
    const plan = this.pendingSetup.get(id);
    if (!plan) return argv;
    return setupArgv(plan, argv ?? [this.baseEnv?.SHELL || process.env.SHELL || '/bin/sh', '-l']);
  }

  /** The plan's argv as it runs: a command line through the login shell with `exec`, a lone
   *  program by its resolved path; undefined is the login shell itself. */
  private launchArgv(command: string | undefined, resolved: string | undefined, planned: string[]): string[] | undefined {
    if (!planned.length) return undefined;
    if (command !== undefined && isCommandLine(command)) {
      const shell = this.baseEnv?.SHELL || process.env.SHELL || '/bin/sh';
      return loginShellArgv(shell, command, planned.slice(1));
    }
    return [resolved ?? planned[0]!, ...planned.slice(1)];
  }

  /** What every session starts with: the hook socket and its own secret, the login environment, the terminal settings. */
  private spawnDefaults(secret: string) {
    const t = this.o.settings.settings.terminal;
    return {
      env: { ...this.o.hooks.sessionEnv(), [SESSION_SECRET_ENV]: secret },
      baseEnv: this.baseEnv || undefined,
      scrollback: t.scrollback,
      cursorShape: t.cursorStyle,
      cursorBlink: t.cursorBlink,
    };
  }
}
