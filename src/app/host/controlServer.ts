// The control socket ($TERMIO_HOME/run/control.sock): serves the control protocol
// (src/protocol/control.ts) to the `termio` CLI, scripts and tests, on top of the SessionRegistry.
// Hostile input is bounded everywhere (frame size, idle time, connections, queued requests, unread
// output) and always answered with an error reply or a closed connection, never a crash or a stall.
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
import type { Server, Socket } from 'node:net';
import { lstatSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONTROL_INFO_FILE,
  CONTROL_PROTOCOL_VERSION,
  CONTROL_SOCKET_FILE,
  FrameDecoder,
  MAX_FRAME_CHARS,
  encodeFrame,
  errorReply,
  eventReply,
  okReply,
  parseRequest,
  type ControlErrorCode,
  type ControlReply,
  type ControlRequest,
  type ControlResult,
  type SessionInfo,
} from '../../protocol';
import type { Disposable } from '../../protocol/events';
import type { Session } from '../../terminal';
import { writeFileAtomic } from './atomicWrite';
import { nullLogger, type Logger } from './log';
import { ensureRunDir, type TermioPaths } from './paths';
import type { SessionRecord, SessionRegistry } from './sessionRegistry';
import { packageVersion } from './install';
import { claimUnixSocket } from './unixSocket';
import { readTranscript } from './transcript';

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

export type OpenDirResult = { ok: true; id: string } | { ok: false; code: ControlErrorCode; message: string };

export interface ControlServerOptions {
  paths: TermioPaths;
  registry: SessionRegistry;
  logger?: Logger;
  /** `app.open DIR` and `termio DIR`. Default: a new session in DIR through the registry's spawner, focused. */
  onOpenDir?: (dir: string) => OpenDirResult | Promise<OpenDirResult>;
  /** `app.activate`: show a window. Default: nothing to show (a headless host). */
  onActivate?: () => void;
  /** `sessions.why`: the status tracker's account of a session's state (undefined: none tracked). */
  describeStatus?: (id: string) => ControlResult<'sessions.why'> | undefined;
  /** `sessions.read --transcript`: where the session's transcript file is (undefined: not known). */
  transcriptOf?: (id: string) => Promise<string | undefined>;
  /** The session a request's secret belongs to, with its bypass flag; null: no running session has it. */
  callerOf?: (secret: string) => { sessionId: string; bypass: boolean } | null;
  /** Adds each session's resume plan to `sessions.list` (the host knows the manifests and the store). */
  describeResume?: (id: string) => Promise<SessionInfo['resume'] | undefined>;
  /** Written to control.json and answered to `version`. Default: package.json's version. */
  appVersion?: string;
  limits?: Partial<ControlLimits>;
}

type Outcome = { ok: true; result: unknown } | { ok: false; code: ControlErrorCode; message: string };

interface Connection {
  socket: Socket;
  decoder: FrameDecoder;
  queued: number;
  chain: Promise<void>;
  closing: boolean;
  watches: Disposable[];
}


export function sessionInfo(record: SessionRecord): SessionInfo {
  const s: Session = record.session;
  const exited = s.exited;
  return {
    id: record.id,
    agentId: record.agentId,
    cwd: record.cwd,
    title: record.title,
    state: record.state,
    stateWhy: record.stateWhy,
    stateSince: new Date(record.stateSince).toISOString(),
    createdAt: new Date(record.createdAt).toISOString(),
    pid: s.pid,
    exited: exited ? { exitCode: exited.exitCode, ...(exited.signal !== undefined ? { signal: exited.signal } : {}) } : null,
  };
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
  private readonly onOpenDir: (dir: string) => OpenDirResult | Promise<OpenDirResult>;
  private readonly onActivate: () => void;
  private readonly describeResume: ControlServerOptions['describeResume'];
  private readonly describeStatus: ControlServerOptions['describeStatus'];
  private readonly transcriptOf: NonNullable<ControlServerOptions['transcriptOf']>;
  private readonly callerOf: NonNullable<ControlServerOptions['callerOf']>;
  private readonly appVersion: string;
  readonly limits: ControlLimits;
  private server: Server | null = null;
  private socketPath: string | null = null;
  private socketIno: number | null = null;
  private readonly connections = new Set<Connection>();
  private busyRejections = 0;

  constructor(opts: ControlServerOptions) {
    this.paths = opts.paths;
    this.registry = opts.registry;
    this.logger = opts.logger ?? nullLogger;
    this.appVersion = opts.appVersion ?? packageVersion();
    this.limits = { ...defaultControlLimits, ...opts.limits };
    this.onOpenDir = opts.onOpenDir ?? ((dir) => this.openDirAsShell(dir));
    this.onActivate = opts.onActivate ?? (() => undefined);
    this.describeResume = opts.describeResume;
    this.describeStatus = opts.describeStatus;
    this.transcriptOf = opts.transcriptOf ?? (async () => undefined);
    this.callerOf = opts.callerOf ?? (() => null);
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
      return { ok: false, reason: 'socketPathTooLong', message: `the control socket path ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; set a shorter TERMIO_HOME` };
    }
    const claim = await claimUnixSocket(socketPath, {
      onConnection: (socket) => this.handleConnection(socket),
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

  /** Stops listening, ends every connection, and removes the socket and control.json if they are still ours. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const conn of [...this.connections]) this.dropConnection(conn);
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
      ...(pid ? { pid } : {}),
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

  // ---- connections ------------------------------------------------------------------------

  private handleConnection(socket: Socket): void {
    socket.on('error', (err) => this.logger.debug('control: connection error', { error: String(err) }));
    if (!this.server || this.connections.size >= this.limits.maxConnections) {
      // Log the first rejection of a burst, not a thousand lines.
      if (this.busyRejections++ === 0) this.logger.warn('control: too many connections, rejecting', { limit: this.limits.maxConnections });
      socket.end(encodeFrame(errorReply(undefined, 'busy', `too many connections (limit ${this.limits.maxConnections}); try again`)));
      socket.setTimeout(this.limits.closeGraceMs, () => socket.destroy());
      return;
    }
    this.busyRejections = 0;
    const conn: Connection = {
      socket,
      decoder: new FrameDecoder(this.limits.maxFrameChars),
      queued: 0,
      chain: Promise.resolve(),
      closing: false,
      watches: [],
    };
    this.connections.add(conn);
    socket.setEncoding('utf8');
    socket.setTimeout(this.limits.idleTimeoutMs, () => {
      this.logger.debug('control: closing an idle connection');
      socket.destroy();
    });
    socket.on('data', (chunk: string) => this.handleData(conn, chunk));
    socket.on('close', () => this.forget(conn));
  }

  private handleData(conn: Connection, chunk: string): void {
    if (conn.closing) return;
    for (const frame of conn.decoder.push(chunk)) {
      if (frame.kind === 'oversized') {
        this.endWith(conn, errorReply(undefined, 'frameTooLarge', `a frame is limited to ${this.limits.maxFrameChars} characters`));
        return;
      }
      if (conn.queued >= this.limits.maxQueuedRequests) {
        this.endWith(conn, errorReply(undefined, 'busy', `more than ${this.limits.maxQueuedRequests} requests waiting on one connection`));
        return;
      }
      conn.queued++;
      const text = frame.text;
      conn.chain = conn.chain
        .then(() => this.handleFrame(conn, text))
        .catch((err) => this.logger.error('control: request failed', { error: String(err && (err as Error).stack) }))
        .finally(() => {
          conn.queued--;
        });
    }
  }

  private async handleFrame(conn: Connection, text: string): Promise<void> {
    if (conn.socket.destroyed) return;
    const parsed = parseRequest(text);
    if (!parsed.ok) {
      this.write(conn, parsed.reply);
      return;
    }
    const req = parsed.request;
    let outcome: Outcome | 'replied';
    try {
      outcome = await this.dispatch(conn, req);
      if (outcome === 'replied') return;
    } catch (err) {
      this.logger.error('control: handler threw', { verb: req.verb, error: String(err && (err as Error).stack) });
      outcome = { ok: false, code: 'internal', message: `${req.verb} failed: ${(err as Error)?.message ?? String(err)}` };
    }
    this.write(conn, outcome.ok ? okReply(req.seq, outcome.result) : errorReply(req.seq, outcome.code, outcome.message));
  }

  private write(conn: Connection, reply: ControlReply): void {
    const socket = conn.socket;
    if (socket.destroyed || !socket.writable) return;
    socket.write(encodeFrame(reply));
    if (socket.writableLength > this.limits.maxPendingOutputChars) {
      this.logger.warn('control: a client stopped reading its replies; dropping it', { pending: socket.writableLength });
      this.dropConnection(conn);
    }
  }

  /** Sends a last reply, then closes; a peer that does not close its side is destroyed after a grace. */
  private endWith(conn: Connection, reply: ControlReply): void {
    conn.closing = true;
    this.disposeWatches(conn);
    if (!conn.socket.destroyed) conn.socket.end(encodeFrame(reply));
    conn.socket.setTimeout(this.limits.closeGraceMs, () => conn.socket.destroy());
  }

  private dropConnection(conn: Connection): void {
    conn.closing = true;
    this.disposeWatches(conn);
    conn.socket.destroy();
    this.connections.delete(conn);
  }

  private forget(conn: Connection): void {
    conn.closing = true;
    this.disposeWatches(conn);
    this.connections.delete(conn);
  }

  private disposeWatches(conn: Connection): void {
    for (const d of conn.watches) d.dispose();
    conn.watches = [];
  }

  // ---- verbs ------------------------------------------------------------------------------

  /** The verb's outcome, or 'replied' when the handler wrote its reply itself (watch). */
  private async dispatch(conn: Connection, req: ControlRequest): Promise<Outcome | 'replied'> {
    switch (req.verb) {
      case 'ping':
        return { ok: true, result: { pong: true, protocol: CONTROL_PROTOCOL_VERSION } };
      case 'version':
        return { ok: true, result: { app: this.appVersion, protocol: CONTROL_PROTOCOL_VERSION, pid: process.pid } };
      case 'sessions.list': {
        const sessions = this.registry.list().map(sessionInfo);
        const describe = this.describeResume;
        if (describe) {
          await Promise.all(
            sessions.map(async (s) => {
              const resume = await describe(s.id).catch(() => undefined);
              if (resume) s.resume = resume;
            }),
          );
        }
        return { ok: true, result: { sessions } };
      }
      case 'sessions.watch':
        return this.watch(conn, req.seq);
      case 'sessions.read': {
        const found = this.registry.find(req.args.id);
        if (!found.ok) return found;
        const s = found.record.session;
        if (req.args.transcript) return readTranscript(found.record.id, await this.transcriptOf(found.record.id), req.args.lines, s);
        await this.within(s.whenParsed(), this.limits.readSettleMs);
        // Right-trimmed here too: typed spaces (a prompt's "$ ") are cells with content to the emulator.
        const lines = s.screenLines(req.args.lines !== undefined ? { lines: req.args.lines } : undefined).map((l) => l.trimEnd());
        return { ok: true, result: { id: found.record.id, lines, cols: s.cols, rows: s.rows } };
      }
      case 'sessions.send': {
        const found = this.registry.find(req.args.id);
        if (!found.ok) return found;
        const { record } = found;
        const s = record.session;
        if (s.exited) return { ok: false, code: 'sessionExited', message: `session ${record.id} has exited (code ${s.exited.exitCode}); nothing reads its input` };
        if (req.args.text) s.write(req.args.text);
        if (req.args.enter) {
          // Return as its own keystroke: TUIs treat "text\r" arriving in one read as a paste.
          if (req.args.text) await nextRender(s, this.limits.enterFallbackMs);
          if (!s.exited && this.registry.get(record.id)) s.write('\r');
        }
        return { ok: true, result: { id: record.id } };
      }
      case 'sessions.spawn': {
        const { agent, cwd, bypass, title } = req.args;
        if (bypass) {
          const refused = this.refuseBypass(req.secret, agent);
          if (refused) return refused;
        }
        const spawned = await this.registry.spawn({
          ...(agent !== undefined ? { agent } : {}),
          ...(cwd !== undefined ? { cwd } : {}),
          ...(bypass !== undefined ? { bypass } : {}),
          ...(title !== undefined ? { title } : {}),
        });
        if (!spawned.ok) return spawned;
        return { ok: true, result: { id: spawned.record.id, session: sessionInfo(spawned.record) } };
      }
      case 'sessions.why': {
        const found = this.registry.find(req.args.id);
        if (!found.ok) return found;
        const r = found.record;
        const since = new Date(r.stateSince).toISOString();
        const result = this.describeStatus?.(r.id) ?? { id: r.id, state: r.state, since, channel: 'start', event: r.stateWhy || 'no status channel', at: since, health: [] };
        return { ok: true, result };
      }
      case 'sessions.focus': {
        const found = this.registry.find(req.args.id);
        if (!found.ok) return found;
        this.registry.requestFocus(found.record.id);
        return { ok: true, result: { id: found.record.id } };
      }
      case 'sessions.close': {
        const found = this.registry.find(req.args.id);
        if (!found.ok) return found;
        this.registry.close(found.record.id);
        return { ok: true, result: { id: found.record.id } };
      }
      case 'app.open': {
        const dir = req.args.dir;
        let isDir = false;
        try {
          isDir = statSync(dir).isDirectory();
        } catch {
          // Reported below.
        }
        if (!isDir) return { ok: false, code: 'badDirectory', message: `'${dir}' is not an existing folder` };
        const opened = await this.onOpenDir(dir);
        return opened.ok ? { ok: true, result: { id: opened.id } } : opened;
      }
      case 'app.activate':
        this.onActivate();
        return { ok: true, result: { shown: true } };
    }
  }

  /**
   * A spawn with the permission-bypass flag: allowed from outside Termio (the user) and from a
   * session that itself runs with bypass; refused from any other session, including one whose
   * secret no running session has. Either way the decision is logged. Every verb that spawns
   * with bypass asks this first.
   */
  refuseBypass(secret: string | undefined, agent: string | undefined): Outcome | null {
    if (secret === undefined) {
      this.logger.info('control: bypass spawn allowed (from outside Termio)', { agent });
      return null;
    }
    const caller = this.callerOf(secret);
    if (caller?.bypass) {
      this.logger.info('control: bypass spawn allowed (the asking session runs with bypass)', { agent, caller: caller.sessionId });
      return null;
    }
    this.logger.warn('control: bypass spawn refused (asked from inside a session without bypass)', { agent, caller: caller?.sessionId ?? 'unknown session' });
    return {
      ok: false,
      code: 'forbidden',
      message: caller
        ? `session ${caller.sessionId} runs without permission bypass, so it cannot start an agent with it`
        : 'this request carries a session secret no running Termio session has (a session that ended?), so it cannot start an agent with permission bypass',
    };
  }

  private watch(conn: Connection, seq: number | string | undefined): 'replied' {
    // A watcher is quiet by design: no idle limit (a dead peer still closes the socket).
    conn.socket.setTimeout(0);
    const send = (kind: 'added' | 'removed' | 'state', record: SessionRecord, previous?: string) => {
      const event = { kind, session: sessionInfo(record), ...(previous ? { previous } : {}) } as Parameters<typeof eventReply>[1];
      this.write(conn, eventReply(seq, event));
    };
    // Snapshot and subscription in the same synchronous step, snapshot written first: no event is
    // lost between them, none is doubled, and none can overtake the snapshot.
    this.write(conn, okReply(seq, { sessions: this.registry.list().map(sessionInfo) }));
    conn.watches.push(
      this.registry.onAdded((r) => send('added', r)),
      this.registry.onRemoved((r) => send('removed', r)),
      this.registry.onStateChanged((c) => send('state', c.record, c.previous)),
    );
    return 'replied';
  }

  private async openDirAsShell(dir: string): Promise<OpenDirResult> {
    const spawned = await this.registry.spawn({ cwd: dir });
    if (!spawned.ok) return spawned;
    this.registry.requestFocus(spawned.record.id);
    return { ok: true, id: spawned.record.id };
  }

  /** Waits for p, but at most ms; the work goes on either way. */
  private within(p: Promise<unknown>, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      p.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        () => {
          clearTimeout(timer);
          resolve();
        },
      );
    });
  }
}

/** Resolves on the session's next render (its program reacted) or after ms, whichever comes first. */
function nextRender(s: Session, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const sub = s.onRender(done);
  });
}
