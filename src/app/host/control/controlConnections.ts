// The control socket's connections: framing, per-connection limits (idle time, queued requests,
// unread output) and the order replies go out in. It knows no verb: each parsed request goes to
// the `respond` it was given, and whatever that answers is written back in request order.
import type { Socket } from 'node:net';
import { FrameDecoder, encodeFrame } from '../../../protocol/controlFrames';
import { errorReply, okReply, parseRequest, type ControlReply, type ControlRequest, type Outcome } from '../../../protocol/control';
import type { Disposable } from '../../../protocol/events';
import type { Holder } from './driveVerbs';
import type { Logger } from '../../services/log';

/** The bounds a connection lives in (ControlLimits documents each). */
export interface ConnectionLimits {
  maxFrameChars: number;
  idleTimeoutMs: number;
  maxConnections: number;
  maxQueuedRequests: number;
  maxPendingOutputChars: number;
  closeGraceMs: number;
}

export interface ControlConnection {
  socket: Socket;
  decoder: FrameDecoder;
  queued: number;
  chain: Promise<void>;
  closing: boolean;
  watches: Disposable[];
  /** Aborted when the connection ends: its pending waits stop. */
  gone: AbortController;
}

/** A request's outcome, or 'replied' when the handler wrote its reply itself (watch). */
export type Respond = (conn: ControlConnection, req: ControlRequest) => Promise<Outcome | 'replied'>;

export interface ControlConnectionsOptions {
  limits: ConnectionLimits;
  logger: Logger;
  respond: Respond;
  /** False once the server is closing: a connection arriving then is turned away. */
  accepting: () => boolean;
}

export class ControlConnections {
  private readonly open = new Set<ControlConnection>();
  private busyRejections = 0;

  constructor(private readonly opts: ControlConnectionsOptions) {}

  get size(): number {
    return this.open.size;
  }

  accept(socket: Socket): void {
    const { limits, logger } = this.opts;
    socket.on('error', (err) => logger.debug('control: connection error', { error: String(err) }));
    if (!this.opts.accepting() || this.open.size >= limits.maxConnections) {
      // Log the first rejection of a burst, not a thousand lines.
      if (this.busyRejections++ === 0) logger.warn('control: too many connections, rejecting', { limit: limits.maxConnections });
      socket.end(encodeFrame(errorReply(undefined, 'busy', `too many connections (limit ${limits.maxConnections}); try again`)));
      // A plain timer, which its writes cannot reset.
      setTimeout(() => socket.destroy(), limits.closeGraceMs).unref();
      return;
    }
    this.busyRejections = 0;
    const conn: ControlConnection = {
      socket,
      decoder: new FrameDecoder(limits.maxFrameChars),
      queued: 0,
      chain: Promise.resolve(),
      closing: false,
      watches: [],
      gone: new AbortController(),
    };
    this.open.add(conn);
    socket.setEncoding('utf8');
    socket.setTimeout(limits.idleTimeoutMs, () => {
      logger.debug('control: closing an idle connection');
      socket.destroy();
    });
    socket.on('data', (chunk: string) => this.handleData(conn, chunk));
    socket.on('close', () => this.forget(conn));
  }

  /** Ends every connection (the server is closing). */
  dropAll(): void {
    for (const conn of [...this.open]) this.drop(conn);
  }

  write(conn: ControlConnection, reply: ControlReply): void {
    const socket = conn.socket;
    if (socket.destroyed || !socket.writable) return;
    socket.write(encodeFrame(reply));
    if (socket.writableLength > this.opts.limits.maxPendingOutputChars) {
      this.opts.logger.warn('control: a client stopped reading its replies; dropping it', { pending: socket.writableLength });
      this.drop(conn);
    }
  }

  /** A watcher is quiet by design: no idle limit from now on (a dead peer still closes the socket). */
  keepOpen(conn: ControlConnection): void {
    conn.socket.setTimeout(0);
  }

  /** How a long request (a wait) holds this connection: its idle limit is off meanwhile, and it ends when the connection does. */
  holder(conn: ControlConnection): Holder {
    return {
      signal: conn.gone.signal,
      hold: async (work) => {
        conn.socket.setTimeout(0);
        try {
          return await work;
        } finally {
          if (!conn.closing && conn.watches.length === 0) conn.socket.setTimeout(this.opts.limits.idleTimeoutMs);
        }
      },
    };
  }

  private handleData(conn: ControlConnection, chunk: string): void {
    if (conn.closing) return;
    const limits = this.opts.limits;
    for (const frame of conn.decoder.push(chunk)) {
      if (frame.kind === 'oversized') {
        this.endWith(conn, errorReply(undefined, 'frameTooLarge', `a frame is limited to ${limits.maxFrameChars} characters`));
        return;
      }
      if (conn.queued >= limits.maxQueuedRequests) {
        this.endWith(conn, errorReply(undefined, 'busy', `more than ${limits.maxQueuedRequests} requests waiting on one connection`));
        return;
      }
      conn.queued++;
      const text = frame.text;
      conn.chain = conn.chain
        .then(() => this.handleFrame(conn, text))
        .catch((err) => this.opts.logger.error('control: request failed', { error: String(err && (err as Error).stack) }))
        .finally(() => {
          conn.queued--;
        });
    }
  }

  private async handleFrame(conn: ControlConnection, text: string): Promise<void> {
    if (conn.socket.destroyed) return;
    const parsed = parseRequest(text);
    if (!parsed.ok) {
      this.write(conn, parsed.reply);
      return;
    }
    const req = parsed.request;
    let outcome: Outcome | 'replied';
    try {
      outcome = await this.opts.respond(conn, req);
      if (outcome === 'replied') return;
    } catch (err) {
      this.opts.logger.error('control: handler threw', { verb: req.verb, error: String(err && (err as Error).stack) });
      outcome = { ok: false, code: 'internal', message: `${req.verb} failed: ${(err as Error)?.message ?? String(err)}` };
    }
    this.write(conn, outcome.ok ? okReply(req.seq, outcome.result) : errorReply(req.seq, outcome.code, outcome.message));
  }

  /** Sends a last reply, then closes; a peer that does not close its side is destroyed after a grace. */
  private endWith(conn: ControlConnection, reply: ControlReply): void {
    conn.closing = true;
    this.disposeWatches(conn);
    if (!conn.socket.destroyed) conn.socket.end(encodeFrame(reply));
    // A plain timer, not the socket's idle timeout: a peer that keeps writing would reset that
    // with every byte and hold its slot for ever.
    conn.socket.setTimeout(0);
    setTimeout(() => conn.socket.destroy(), this.opts.limits.closeGraceMs).unref();
  }

  private drop(conn: ControlConnection): void {
    conn.closing = true;
    this.disposeWatches(conn);
    conn.socket.destroy();
    this.open.delete(conn);
  }

  private forget(conn: ControlConnection): void {
    conn.closing = true;
    this.disposeWatches(conn);
    this.open.delete(conn);
  }

  private disposeWatches(conn: ControlConnection): void {
    conn.gone.abort();
    for (const d of conn.watches) d.dispose();
    conn.watches = [];
  }
}
