// The control socket ($TERMIO_HOME/run/control.sock): serves the control protocol
// (src/protocol/control.ts) to the `termio` CLI, scripts and tests, on top of the SessionRegistry.
// Hostile input is bounded everywhere (frame size, idle time, connections, queued requests, unread
// output) and always answered with an error reply or a closed connection, never a crash or a stall.
// This module owns the socket's lifetime (claim, control.json, close); controlConnections.ts frames
// and bounds each connection, controlVerbs.ts answers each verb, bypassPolicy.ts guards bypass spawns.
//
// Who may connect: Node exposes no SO_PEERCRED (Linux) or getpeereid (macOS), so the peer's uid
// cannot be checked per connection. The OS guard is the file system: connect(2) on a Unix socket
// needs search permission on its folder and write permission on the socket, so the run folder is
// 0700 and owned by us (checked at listen; refused otherwise) and the socket is 0600. Only our uid
// (and root) can reach it, on Linux and macOS alike.
//
// Inside that wall: the agents in Termio's tabs run as the same user, and driving other agents
// through this socket is a feature (read a screen, type, spawn, close). What they must not gain is
// more than the user gave them. A request from inside a session carries that session's secret
// (TERMIO_SESSION_SECRET, which the CLI sends from its environment), so the host knows which
// session asks; spawning with the permission-bypass flag is refused unless the asking session
// itself runs with bypass, and each such decision is logged. A request without a secret is taken
// as the user's own (a terminal outside Termio, a script). A same-user process that strips its
// environment can pose as the user: the secret stops an agent escalating through the documented
// CLI, not code set on attacking the user's account, which the file system wall is for.
import type { Server } from 'node:net';
import { lstatSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_INFO_FILE, CONTROL_PROTOCOL_VERSION, CONTROL_SOCKET_FILE, MAX_FRAME_CHARS } from '../../../protocol/controlFrames';
import { eventReply, okReply, type ControlRequest, type ControlResult, type Outcome } from '../../../protocol/control';
import { type SessionInfo } from '../../../protocol/sessionInfo';
import { writeFileAtomic } from '../../services/atomicWrite';
import { BypassPolicy, type BypassFlagIn } from '../status/bypassPolicy';
import { ControlConnections, type ControlConnection } from './controlConnections';
import type { QuestionBook } from '../status/questionBook';
import { ControlVerbs, type OpenDirResult, type VerbContext } from './controlVerbs';
import { SessionFacts } from '../sessions/sessionFacts';
import { DriveVerbs, type NotifyRequest } from './driveVerbs';
import { packageVersion } from '../../services/install';
import { nullLogger, type Logger } from '../../services/log';
import { ensureRunDir, type TermioPaths } from '../../services/paths';
import type { RemoteSessions } from '../machines/hubControl';
import type { SessionRecord, SessionRegistry } from '../sessions/sessionRegistry';
import type { FanoutVerbs } from '../worktrees/fanoutVerbs';
import type { WorktreeVerbs } from '../worktrees/worktreeVerbs';
import type { HistoryVerbs } from '../history/historyVerbs';
import type { SettingsVerbs } from './settingsVerbs';
import { SessionWaits, type WaitLimits } from '../sessions/sessionWaits';
import { ParentNotices } from '../notify/parentNotices';
import { claimUnixSocket } from '../../services/unixSocket';

export type { OpenDirResult };

/** What $TERMIO_HOME/run/control.json says: where the running app listens. */
export interface ControlInfo {
  socket: string;
  pid: number;
  version: string;
  protocol: number;
  startedAt: string;
}

export interface ControlLimits {
  /** Longest request frame; a longer one gets `frameTooLarge` and the connection is closed. */
  maxFrameChars: number;
  /** A request takes milliseconds; a connection silent this long is stuck or hostile and is closed. Not applied while watching. */
  idleTimeoutMs: number;
  /** Scripts, watchers and tests together need a handful; past this a client gets `busy` and is closed. */
  maxConnections: number;
  /** Requests read from one connection but not answered yet; a client pipelining more gets `busy`. */
  maxQueuedRequests: number;
  /** Replies a client has not read yet; a client (typically a watcher) that stops reading is cut off past this. */
  maxPendingOutputChars: number;
  /** `send --enter`: how long to wait for the program to echo the text before pressing Return anyway. */
  enterFallbackMs: number;
  /** `read`: how long to wait for the emulator to catch up with output already received. */
  readSettleMs: number;
  /** After an error that ends a connection, how long the peer gets to read it before the socket is destroyed. */
  closeGraceMs: number;
}

export const defaultControlLimits: ControlLimits = {
  maxFrameChars: MAX_FRAME_CHARS,
  idleTimeoutMs: 10_000,
  maxConnections: 128,
  maxQueuedRequests: 64,
  // 4 Mi chars: four full-size frames; a live watcher drains in microseconds, so only a stalled one gets there.
  maxPendingOutputChars: 4 * 1024 * 1024,
  // Long enough for a busy TUI to read the text as its own chunk (so the \r is a key, not part of a paste),
  // short enough that a program that never echoes (a password prompt) is not noticeably delayed.
  enterFallbackMs: 100,
  readSettleMs: 2_000,
  closeGraceMs: 1_000,
};

/** sun_path is 104 bytes on macOS (108 on Linux), including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 103;

export type ListenResult =
  | { ok: true; socket: string; infoFile: string }
  | {
      ok: false;
      reason: 'alreadyRunning' | 'unsafeRunDir' | 'socketPathTooLong' | 'notASocket' | 'listenFailed';
      message: string;
      /** For alreadyRunning: the pid the other app wrote in control.json, if readable. */
      pid?: number;
    };

export interface ControlServerOptions {
  paths: TermioPaths;
  registry: SessionRegistry;
  logger?: Logger;
  /** The one SessionInfo mapper (the host's SessionFacts); default: one with no status sources. */
  describe?: (record: SessionRecord) => SessionInfo;
  /** `app.open DIR` and `termio DIR`. Default: a new session in DIR through the registry's spawner, focused. */
  onOpenDir?: (dir: string) => OpenDirResult | Promise<OpenDirResult>;
  /** `app.activate`: show a window. Default: nothing to show (a headless host). */
  onActivate?: () => void;
  /** `sessions.why`: the status tracker's account of a session's state (undefined: none tracked). */
  describeStatus?: (id: string) => ControlResult<'sessions.why'> | undefined;
  /** `app.notify`: shows a native notification that focuses `sessionId` when clicked. Default: refused. */
  onNotify?: (n: NotifyRequest) => Promise<void> | void;
  /** Whether the session's own status channel says it waits for input (undefined: it has none); see SessionWaits. */
  readyEvidence?: (id: string) => boolean | undefined;
  /** Whether a turn's work must come from the session's prompt hook; see SessionWaits. */
  promptHook?: (id: string) => boolean;
  /** Working or attention hook reports the session's agent made so far; see SessionWaits. */
  hookWork?: (id: string) => number;
  waitLimits?: Partial<WaitLimits>;
  /** `sessions.read --transcript`: where the session's transcript file is (undefined: not known). */
  transcriptOf?: (id: string) => Promise<string | undefined>;
  /** The session a request's secret belongs to, with its bypass flag; null: no running session has it. */
  callerOf?: (secret: string) => { sessionId: string; bypass: boolean } | null;
  /** Which agent's bypass flag a command line carries (`sessions run`); default: none is known. */
  bypassFlagIn?: BypassFlagIn;
  /** Whether an agent starts with bypass although not asked to (the user's setting); default: no. */
  bypassByDefault?: (agent: string | undefined) => Promise<boolean>;
  /** Adds each session's resume plan to `sessions.list` (the host knows the manifests and the store). */
  describeResume?: (id: string) => Promise<SessionInfo['resume'] | undefined>;
  /** The sessions of the other machines (the hub's), once the host has them. */
  remote?: () => RemoteSessions | null;
  /** The worktree service's verbs (review, list, prune). */
  worktrees?: WorktreeVerbs;
  /** The fan-out verbs (start, list, show, test, merge). */
  fanout?: FanoutVerbs;
  /** The conversation-history verbs (history.*, usage). */
  history?: HistoryVerbs;
  /** The state only the host writes: settings.json, agent configs (settingsVerbs.ts). */
  settings?: SettingsVerbs;
  /** `sessions.question` / `sessions.answer`: the host's questions (undefined: none are read). */
  questions?: () => QuestionBook | undefined;
  /** `sessions.next --focus`: the session the user is looking at, which it goes past. */
  lookingAt?: () => string | null;
  /** Written to control.json and answered to `version`. Default: package.json's version. */
  appVersion?: string;
  limits?: Partial<ControlLimits>;
}

/** Reads control.json; null when absent or unreadable (the app is then not running, as far as clients can tell). */
export function readControlInfo(paths: TermioPaths): ControlInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(paths.runDir, CONTROL_INFO_FILE), 'utf8')) as Partial<ControlInfo>;
    if (typeof info.socket !== 'string' || typeof info.pid !== 'number') return null;
    return info as ControlInfo;
  } catch {
    return null;
  }
}

export class ControlServer {
  private readonly paths: TermioPaths;
  private readonly registry: SessionRegistry;
  private readonly logger: Logger;
  private readonly appVersion: string;
  readonly waits: SessionWaits;
  /** Children that tell their parent when they finish (spawn notifyParent). */
  readonly notices: ParentNotices;
  readonly limits: ControlLimits;
  /** The history verbs, which the phone page's search asks too. */
  readonly history: HistoryVerbs | undefined;
  private readonly connections: ControlConnections;
  private readonly verbs: ControlVerbs;
  private server: Server | null = null;
  private socketPath: string | null = null;
  private socketIno: number | null = null;
  /** Requests wait for this before they are answered (see answerAfter). */
  private gate: Promise<unknown> = Promise.resolve();

  constructor(opts: ControlServerOptions) {
    this.paths = opts.paths;
    this.registry = opts.registry;
    this.logger = opts.logger ?? nullLogger;
    this.appVersion = opts.appVersion ?? packageVersion();
    this.limits = { ...defaultControlLimits, ...opts.limits };
    this.history = opts.history;
    const bare = new SessionFacts();
    const describe = opts.describe ?? ((r: SessionRecord) => bare.info(r));
    this.waits = new SessionWaits({
      registry: opts.registry,
      describe,
      readyEvidence: opts.readyEvidence || undefined,
      promptHook: opts.promptHook || undefined,
      hookWork: opts.hookWork || undefined,
      limits: { enterFallbackMs: this.limits.enterFallbackMs, ...opts.waitLimits },
    });
    const questions = opts.questions ?? (() => undefined);
    this.notices = new ParentNotices({ registry: opts.registry, waits: this.waits, logger: this.logger, questions });
    this.connections = new ControlConnections({
      limits: this.limits,
      logger: this.logger,
      respond: (conn, req) => this.respond(conn, req),
      accepting: () => this.server !== null,
    });
    this.verbs = new ControlVerbs({
      registry: opts.registry,
      describe,
      drive: new DriveVerbs({
        registry: opts.registry,
        waits: this.waits,
        notices: this.notices,
        logger: this.logger,
        describe,
        onNotify: opts.onNotify || undefined,
      }),
      bypass: new BypassPolicy(opts.callerOf ?? (() => null), this.logger, opts.bypassFlagIn),
      bypassByDefault: opts.bypassByDefault ?? (async () => false),
      appVersion: this.appVersion,
      readSettleMs: this.limits.readSettleMs,
      onOpenDir: opts.onOpenDir ?? ((dir) => this.openDirAsShell(dir)),
      onActivate: opts.onActivate ?? (() => undefined),
      describeStatus: opts.describeStatus,
      describeResume: opts.describeResume,
      transcriptOf: opts.transcriptOf ?? (async () => undefined),
      remote: opts.remote || undefined,
      worktrees: opts.worktrees,
      fanout: opts.fanout,
      history: opts.history,
      settings: opts.settings,
      questions,
      notices: this.notices,
      lookingAt: opts.lookingAt || undefined,
    });
  }

  /** The session verb table, for the host socket to answer through the same handlers. */
  get sessionVerbs(): ControlVerbs {
    return this.verbs;
  }

  /** The socket path while listening. */
  get address(): string | null {
    return this.socketPath;
  }

  /** Open connections (for tests and diagnostics). */
  get connectionCount(): number {
    return this.connections.size;
  }

  get infoFile(): string {
    return join(this.paths.runDir, CONTROL_INFO_FILE);
  }

  /**
   * Takes over $TERMIO_HOME/run/control.sock (replacing a stale one left by a crashed app) and
   * writes control.json. Another live app, or an unsafe run folder, is a value, not an exception.
   */
  async listen(): Promise<ListenResult> {
    if (this.server) throw new Error('ControlServer.listen called twice');
    const runDir = ensureRunDir(this.paths);
    const st = statSync(runDir);
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      return { ok: false, reason: 'unsafeRunDir', message: `${runDir} belongs to uid ${st.uid}, not to us (${process.getuid()}); refusing to listen there` };
    }
    if ((st.mode & 0o077) !== 0) {
      return { ok: false, reason: 'unsafeRunDir', message: `${runDir} is mode ${(st.mode & 0o777).toString(8)}, not 700; refusing to listen there` };
    }
    const socketPath = join(runDir, CONTROL_SOCKET_FILE);
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
      return {
        ok: false,
        reason: 'socketPathTooLong',
        message: `the control socket path ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; set a shorter TERMIO_HOME`,
      };
    }
    const claim = await claimUnixSocket(socketPath, {
      onConnection: (socket) => this.connections.accept(socket),
      // Hard ceiling well above the soft limit: past it the kernel-level accept is dropped without a reply.
      maxConnections: this.limits.maxConnections * 4,
    });
    if (!claim.ok) return claim.reason === 'alreadyRunning' ? this.alreadyRunning(socketPath) : { ok: false, reason: claim.reason, message: claim.message };
    if (claim.replacedStale) this.logger.warn('control: replaced a stale socket left by an app that is gone', { socket: socketPath });
    const server = claim.server;
    server.on('error', (err) => this.logger.error('control: server error', { error: String(err) }));
    this.server = server;
    this.socketPath = socketPath;
    this.socketIno = lstatSync(socketPath).ino;
    this.writeInfo(socketPath);
    this.logger.info('control: listening', { socket: socketPath });
    return { ok: true, socket: socketPath, infoFile: this.infoFile };
  }

  /** Answers every wait in progress with `closed` and lets the answers go out: the host is
   *  stopping and ends its sessions, so a waiting `termio sessions wait` ends too, rather than
   *  taking the lost connection for a crash and waiting on with a next host. */
  async endWaits(): Promise<void> {
    await this.waits.endAll('closed');
    // The verbs write their replies once their promise settles: one turn of the loop later.
    await new Promise((r) => setImmediate(r));
  }

  /** Stops listening, ends every connection, and removes the socket and control.json if they are still ours. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    this.connections.dropAll();
    this.notices.dispose();
    this.waits.dispose();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const info = readControlInfo(this.paths);
    if (info && info.pid === process.pid && info.socket === this.socketPath) {
      try {
        unlinkSync(this.infoFile);
      } catch {
        // Already gone.
      }
    }
    try {
      if (this.socketPath && lstatSync(this.socketPath).ino === this.socketIno) unlinkSync(this.socketPath);
    } catch {
      // Already gone (Node may unlink it itself).
    }
    this.socketPath = null;
  }

  private alreadyRunning(socketPath: string): ListenResult {
    const pid = readControlInfo(this.paths)?.pid;
    return {
      ok: false,
      reason: 'alreadyRunning',
      message: `another Termio is listening on ${socketPath}${pid ? ` (pid ${pid})` : ''}`,
      pid: pid || undefined,
    };
  }

  private writeInfo(socketPath: string): void {
    const info: ControlInfo = {
      socket: socketPath,
      pid: process.pid,
      version: this.appVersion,
      protocol: CONTROL_PROTOCOL_VERSION,
      startedAt: new Date().toISOString(),
    };
    // A client never reads half a file.
    writeFileAtomic(this.infoFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600, forceMode: true });
  }

  /** Requests that arrive before `work` settles are answered after it: a new host adopting the
   *  sessions its holders kept must not say "no such session" to a wait that comes back for one. */
  answerAfter(work: Promise<unknown>): void {
    const before = this.gate;
    this.gate = Promise.all([before, work.catch(() => undefined)]);
  }

  /** The verb's outcome, or 'replied' when the handler wrote its reply itself (watch). */
  private async respond(conn: ControlConnection, req: ControlRequest): Promise<Outcome | 'replied'> {
    await this.gate;
    const { connections } = this;
    const ctx: VerbContext = {
      secret: req.secret,
      holder: connections.holder(conn),
      stream: (result, subscribe) => {
        connections.keepOpen(conn);
        connections.write(conn, okReply(req.seq, result));
        conn.watches.push(...subscribe((event) => connections.write(conn, eventReply(req.seq, event))));
        return 'replied';
      },
    };
    return this.verbs.answer(req.verb, req.args, ctx);
  }

  private async openDirAsShell(dir: string): Promise<OpenDirResult> {
    const spawned = await this.registry.spawn({ cwd: dir });
    if (!spawned.ok) return spawned;
    this.registry.requestFocus(spawned.record.id);
    return { ok: true, id: spawned.record.id };
  }
}
