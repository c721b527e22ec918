// The session host as a running service: a session registry served on the client socket, with
// the host's lifetime rules — one per TERMIO_HOME (a live socket means one runs), up while it
// holds sessions or clients, gone after a short idle spell, and a clean stop that ends every
// session. hostMain.ts runs it as the termio-host process; tests run it in-process.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_SOCKET_FILE } from '../../protocol/hostFraming';
import { Session } from '../../terminal';
import { ClientServer, type SpawnOutcome } from './clientServer';
import type { Companion } from './companion/companion';
import { startHostCompanion } from './companion/hostWiring';
import { packageVersion } from './install';
import type { Logger } from './log';
import { ensureRunDir, termioPaths, type TermioPaths } from './paths';
import { isProcessAlive } from './processes';
import { SessionRegistry } from './sessionRegistry';

/**
 * How long the host stays up with no session and no client: long enough for the command that
 * started it to connect and for `termio attach` to follow `termio host spawn`, short enough that
 * an unused host does not linger.
 */
export const HOST_IDLE_EXIT_MS = 10_000;
/** How long a stop waits for sessions' processes to leave after the hang-up before killing them:
 *  what quitting the app allows too. */
export const HOST_STOP_GRACE_MS = 800;
/** Polling interval while a stop waits for processes to exit: a few checks per frame, at no cost. */
const STOP_POLL_MS = 20;

export interface HostProcessOptions {
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Overrides HOST_IDLE_EXIT_MS (tests); 0 = never exit when idle. */
  idleExitMs?: number;
}

export type HostProcessStart =
  | { ok: true; host: HostProcess }
  | { ok: false; alreadyRunning: boolean; message: string };

export class HostProcess {
  readonly registry: SessionRegistry;
  readonly startedAt = new Date();
  private idleTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private resolveStopped!: () => void;
  /** Resolves once the host has stopped (asked to, or idle). */
  readonly stopped = new Promise<void>((r) => (this.resolveStopped = r));
  server!: ClientServer;
  companion: Companion | null = null;

  private constructor(readonly paths: TermioPaths, readonly socketPath: string, private readonly opts: HostProcessOptions) {
    this.registry = new SessionRegistry({ defaultCwd: paths.home });
  }

  static async start(opts: HostProcessOptions): Promise<HostProcessStart> {
    const paths = termioPaths(opts.env);
    ensureRunDir(paths);
    const socketPath = join(paths.runDir, HOST_SOCKET_FILE);
    const host = new HostProcess(paths, socketPath, opts);
    const log = opts.logger;
    const listen = await ClientServer.listen({
      socketPath,
      registry: host.registry,
      logger: log,
      hostVersion: packageVersion(),
      describe: () => ({
        pid: process.pid,
        version: packageVersion(),
        startedAt: host.startedAt.toISOString(),
        log: join(paths.logsDir, 'host.log'),
        rssBytes: process.memoryUsage.rss(),
      }),
      spawn: (p) => host.spawn(p),
      onStop: () => void host.stop('asked by a client'),
      companion: () => host.companion,
    });
    if (!listen.ok) {
      host.registry.dispose();
      return { ok: false, alreadyRunning: listen.reason === 'alreadyRunning', message: listen.reason === 'alreadyRunning' ? `a Termio host is already running on ${socketPath}` : listen.message };
    }
    host.server = listen.server;
    host.server.onClientsChanged(() => host.checkIdle());
    host.registry.onAdded(() => host.checkIdle());
    host.registry.onRemoved(() => host.checkIdle());
    log.info('host listening', { socket: socketPath, pid: process.pid, version: packageVersion() });
    host.companion = await startHostCompanion({ registry: host.registry, feedFor: (r) => host.server.feedFor(r), paths, logger: log, env: opts.env });
    host.checkIdle();
    return { ok: true, host };
  }

  private async spawn(p: { cwd: string; argv?: string[]; cols?: number; rows?: number; title?: string }): Promise<SpawnOutcome> {
    if (!statSync(p.cwd, { throwIfNoEntry: false })?.isDirectory()) {
      return { ok: false, code: 'badDirectory', message: `'${p.cwd}' is not an existing folder` };
    }
    const session = Session.spawn({ cwd: p.cwd, ...(p.argv ? { argv: p.argv } : {}), ...(p.cols ? { cols: p.cols } : {}), ...(p.rows ? { rows: p.rows } : {}) });
    if ('kind' in session) {
      this.opts.logger.warn('spawn failed', { cwd: p.cwd, message: session.message });
      return { ok: false, code: 'spawnFailed', message: session.message };
    }
    const record = this.registry.add(session, p.title ? { title: p.title } : {});
    this.opts.logger.info('session started', { id: record.id, pid: session.pid, argv: session.argv, cwd: session.cwd });
    session.onExit((e) => this.opts.logger.info('session ended', { id: record.id, ...e }));
    return { ok: true, record };
  }

  /** Idle = no session and no client: exit after the idle spell unless one comes back. */
  private checkIdle(): void {
    if (this.stopping) return;
    const idle = this.registry.size === 0 && this.server.clientCount === 0;
    const ms = this.opts.idleExitMs ?? HOST_IDLE_EXIT_MS;
    if (!idle || ms === 0) {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = null;
      return;
    }
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => void this.stop(`idle for ${ms} ms`), ms);
  }

  /** Ends every session (hang-up, then kill after a grace), closes the socket. */
  stop(why: string): Promise<void> {
    this.stopping ??= (async () => {
      this.opts.logger.info('host stopping', { why, sessions: this.registry.size });
      if (this.idleTimer) clearTimeout(this.idleTimer);
      await this.companion?.dispose();
      await this.server.close();
      const pids = this.registry.list().filter((r) => !r.session.exited).map((r) => r.session.pid);
      this.registry.dispose();
      const deadline = Date.now() + HOST_STOP_GRACE_MS;
      let left = pids.filter(isProcessAlive);
      while (left.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, STOP_POLL_MS));
        left = left.filter(isProcessAlive);
      }
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone on its own.
        }
      }
      this.opts.logger.info('host stopped', { why });
      this.resolveStopped();
    })();
    return this.stopping;
  }
}
