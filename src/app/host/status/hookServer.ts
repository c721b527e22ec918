// The hook server: a Unix socket (0600) under $TERMIO_HOME/run (0700) where bin/termio-hook
// delivers one report per connection. Bounded bytes and time per connection; frames that do not
// parse, are too big, name a session this app does not host, or lack that session's secret are
// dropped and counted. Nothing a client sends can throw out of here. Emits each accepted report.
import { unlinkSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { MAX_HOOK_FRAME_BYTES, parseHookFrame, type HookReport } from '../../../protocol/hookReport';
import { Emitter, type Event } from '../../../protocol/events';
import { ensureRunDir, type TermioPaths } from '../../services/paths';
import { nullLogger, type Logger } from '../../services/log';
import { claimUnixSocket } from '../../services/unixSocket';
import { sameSecret } from '../../services/sessionSecret';

export const HOOK_SOCKET_NAME = 'hooks.sock';
/** The reporter connects and writes one small frame at once; a client still silent after 1 s is
 *  stuck or hostile, and holding its socket longer only costs us. */
export const HOOK_CONNECTION_TIMEOUT_MS = 1_000;
/** Reporters are short-lived and one per agent hook call; 256 at once is far above any real
 *  burst (a few agents × parallel tool calls) and caps what a flood can hold open. */
export const MAX_HOOK_CONNECTIONS = 256;
/** What the server answers once a report was applied (or refused): the reporter waits for it. */
export const HOOK_ANSWER = '\n';

export interface HookServerStats {
  accepted: number;
  malformed: number;
  oversized: number;
  unknownSession: number;
  /** Named a hosted session without its secret (a session id is no proof: `sessions list` shows them). */
  badSecret: number;
  timedOut: number;
  refused: number;
}

export interface HookServerOptions {
  paths: TermioPaths;
  /** The secret of a session the app hosts (its TERMIO_SESSION_SECRET), undefined for any other
   *  id. A report must carry it; others are ignored and counted. */
  secretOf: (sessionId: string) => string | undefined;
  logger?: Logger;
  /** Defaults to $TERMIO_HOME/run/hooks.sock. */
  socketPath?: string;
}

export type HookServerStartError = { kind: 'hookServerError'; message: string; socketPath: string };

export class HookServer {
  readonly socketPath: string;
  readonly stats: HookServerStats = { accepted: 0, malformed: 0, oversized: 0, unknownSession: 0, badSecret: 0, timedOut: 0, refused: 0 };
  private readonly reportEmitter = new Emitter<HookReport>();
  /** Every accepted report, in arrival order. */
  readonly onReport: Event<HookReport> = this.reportEmitter.event;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly logger: Logger;

  private constructor(private readonly opts: HookServerOptions) {
    this.socketPath = opts.socketPath ?? join(opts.paths.runDir, HOOK_SOCKET_NAME);
    this.logger = opts.logger ?? nullLogger;
  }

  /** Listens on the socket (replacing a stale one left by a crash); a live one is an error value. */
  static async start(opts: HookServerOptions): Promise<HookServer | HookServerStartError> {
    const hs = new HookServer(opts);
    const err = await hs.listen();
    return err ?? hs;
  }

  /** The environment a session needs so its reporter finds this server. */
  sessionEnv(): Record<string, string> {
    return { TERMIO_HOOK_SOCKET: this.socketPath };
  }

  private async listen(): Promise<HookServerStartError | null> {
    const fail = (message: string): HookServerStartError => ({ kind: 'hookServerError', message, socketPath: this.socketPath });
    if (!this.opts.socketPath) ensureRunDir(this.opts.paths);
    const claim = await claimUnixSocket(this.socketPath, {
      onConnection: (s) => this.handleConnection(s),
      maxConnections: MAX_HOOK_CONNECTIONS,
    });
    if (!claim.ok) return fail(claim.message);
    const server = claim.server;
    server.on('drop', () => this.stats.refused++);
    server.on('error', (e) => this.logger.warn('hook server error', { message: e.message }));
    this.server = server;
    return null;
  }

  private handleConnection(socket: Socket): void {
    this.sockets.add(socket);
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    let delivered = false;
    const closed = () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      socket.destroy();
      closed();
    };
    const timer = setTimeout(() => {
      // A client that got its answer but keeps the connection is only closed, not counted.
      if (!delivered) this.stats.timedOut++;
      finish();
    }, HOOK_CONNECTION_TIMEOUT_MS);
    socket.on('error', finish);
    socket.on('close', () => {
      finished = true;
      closed();
    });
    const deliver = (frame: Buffer) => {
      if (finished || delivered) return;
      delivered = true;
      this.handleFrame(frame.toString('utf8'));
      // The report is applied: answer, so the reporter exits only now. Agents wait for their
      // hooks, so whatever the agent does next (its title, its output) reaches the host after
      // the report and never overtakes it: a late PostToolUse cannot follow the turn's end. A
      // reporter of an older install has closed its side already: the answer is then lost.
      if (!socket.destroyed) socket.end(HOOK_ANSWER);
    };
    socket.on('data', (chunk: Buffer) => {
      if (finished || delivered) return;
      const nl = chunk.indexOf(0x0a);
      if (size + (nl >= 0 ? nl : chunk.length) > MAX_HOOK_FRAME_BYTES) {
        this.stats.oversized++;
        finish();
        return;
      }
      if (nl >= 0) {
        chunks.push(chunk.subarray(0, nl));
        deliver(Buffer.concat(chunks));
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    // A frame without its newline still counts when the client closes cleanly.
    socket.on('end', () => {
      if (!delivered && size > 0) deliver(Buffer.concat(chunks));
      else if (!delivered) finish();
    });
  }

  private handleFrame(line: string): void {
    const r = parseHookFrame(line);
    if (!r.ok) {
      this.stats.malformed++;
      return;
    }
    let secret: string | undefined;
    try {
      secret = this.opts.secretOf(r.report.session);
    } catch (e) {
      this.logger.error('secretOf threw', { message: (e as Error).message });
    }
    if (secret === undefined) {
      this.stats.unknownSession++;
      return;
    }
    if (!sameSecret(r.report.secret, secret)) {
      this.stats.badSecret++;
      this.logger.warn("hook report without its session's secret, ignored", { session: r.report.session, event: r.report.event });
      return;
    }
    this.stats.accepted++;
    try {
      this.reportEmitter.fire(r.report);
    } catch (e) {
      // A listener's bug must not take the server down with the next client.
      this.logger.error('hook report listener threw', { message: (e as Error).message });
    }
  }

  async close(): Promise<void> {
    this.reportEmitter.dispose();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((r) => server.close(() => r()));
    try {
      unlinkSync(this.socketPath);
    } catch {
      // Already gone.
    }
  }
}
