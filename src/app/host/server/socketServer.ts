// The host socket ($TERMIO_HOME/run/host.sock, 0600 in the 0700 run folder): accepts
// clients (one Connection each, connection.ts), keeps one SessionFeed per attached session,
// and tells views when their session goes. Who gets a place, per kind of client, and who loses it
// is admission.ts; what a single client may send, and the bounds on what it can make the
// host buffer, live with the Connection.
import type { Server, Socket } from 'node:net';
import { Emitter } from '../../../protocol/events';
import { HOST_PROTOCOL_VERSION } from '../../../protocol/hostFraming';
import type { HostStatus } from '../../../protocol/hostMessages';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import { ACCEPT_CEILING, CLIENT_LIMITS, evictsWhenFull, STALL_CHECK_MS, type ClientKind } from './admission';
import { Connection, type ConnectionServer } from './connection';
import type { ServerOptions } from './serverOptions';
import { SessionFeed } from '../sessions/sessionFeed';
import type { SessionRecord } from '../sessions/sessionRegistry';
import { claimUnixSocket, type ClaimResult } from '../../services/unixSocket';

export type ListenOutcome = { ok: true; server: SocketServer } | Extract<ClaimResult, { ok: false }>;

export type { ServerOptions };

export class SocketServer implements ConnectionServer {
  private readonly connections = new Set<Connection>();
  private readonly feeds = new Map<string, SessionFeed>();
  private readonly clientsChanged = new Emitter<number>();
  /** The number of connected clients changed (the host's lifetime depends on it). */
  readonly onClientsChanged = this.clientsChanged.event;
  private readonly subscriptions: Array<{ dispose(): void }> = [];
  private closed = false;
  private readonly stallTimer = setInterval(() => {
    const now = performance.now();
    for (const c of this.connections) c.checkStall(now);
  }, STALL_CHECK_MS).unref();

  private constructor(
    readonly opts: ServerOptions,
    private readonly server: Server,
  ) {
    const reg = opts.registry;
    this.subscriptions.push(
      reg.onStateChanged((c) => this.feeds.get(c.record.id)?.markDirty()),
      reg.onChanged((r) => this.feeds.get(r.id)?.markDirty()),
      reg.onRemoved((r) => this.handleRemoved(r.id, 'sessionClosed')),
    );
  }

  static async listen(opts: ServerOptions): Promise<ListenOutcome> {
    let self: SocketServer | null = null;
    const pending: Socket[] = [];
    const claim = await claimUnixSocket(opts.socketPath, {
      maxConnections: ACCEPT_CEILING,
      onConnection: (socket) => (self ? self.accept(socket) : pending.push(socket)),
    });
    if (!claim.ok) return claim;
    self = new SocketServer(opts, claim.server);
    for (const s of pending) self.accept(s);
    return { ok: true, server: self };
  }

  get clientCount(): number {
    return this.connections.size;
  }

  private accept(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    // A newcomer that has not said hello yet takes the place of the oldest such one.
    this.makeRoom('pending', 'too many connections waiting to say hello; this one had waited longest');
    const conn = new Connection(this, socket);
    this.connections.add(conn);
    this.clientsChanged.fire(this.connections.size);
    socket.on('close', () => {
      conn.dispose();
      this.connections.delete(conn);
      this.clientsChanged.fire(this.connections.size);
    });
  }

  /** A place for a client that said hello (admission.ts): the app and the CLI always get
   *  one, made if need be by ending the quietest client of their kind; other kinds share theirs. */
  admit(conn: Connection, kind: ClientKind): string | null {
    if (kind === 'other' && this.holding(kind, conn).length >= CLIENT_LIMITS.other) {
      return `the host already has ${CLIENT_LIMITS.other} clients besides the app and the CLI; close some (termio host status lists them)`;
    }
    this.makeRoom(kind, `another ${kind === 'app' ? 'app' : 'termio command'} connection needed the place of the quietest one`, conn);
    return null;
  }

  /** The connections of a kind that still hold their place. */
  private holding(kind: ClientKind, except?: Connection): Connection[] {
    return [...this.connections].filter((c) => c !== except && c.kind === kind && !c.closing);
  }

  private makeRoom(kind: ClientKind, why: string, except?: Connection): void {
    if (!evictsWhenFull(kind)) return;
    const held = this.holding(kind, except);
    if (held.length < CLIENT_LIMITS[kind]) return;
    const quietest = held.reduce((a, b) => (b.heardAt < a.heardAt ? b : a));
    quietest.refuse(why);
  }

  /** The feed of a session, made on the first attach and dropped with the last detach. */
  feedFor(record: SessionRecord): SessionFeed {
    let feed = this.feeds.get(record.id);
    if (!feed) {
      // A torn frame is logged (debug) for bench/agents.mjs, which counts them in the visible session.
      const torn = () => this.opts.logger.debug('torn frame sent', { id: record.id, at: +(performance.timeOrigin + performance.now()).toFixed(2) });
      const made = new SessionFeed(record, () => this.opts.registry.handled(record.id), torn);
      made.onEmpty(() => {
        made.dispose();
        if (this.feeds.get(record.id) === made) this.feeds.delete(record.id);
        // A session that ended is kept (with its exit status) until a client has seen it.
        if (record.session.exited && !this.opts.keepsEnded?.(record)) this.opts.registry.close(record.id);
      });
      this.feeds.set(record.id, made);
      feed = made;
    }
    return feed;
  }

  viewsOf(sessionId: string): number {
    return this.feeds.get(sessionId)?.viewCount ?? 0;
  }

  sessionInfo(r: SessionRecord): SessionInfo {
    return this.opts.sessionInfo(r);
  }

  status(): HostStatus {
    return {
      ...this.opts.describe(),
      protocol: HOST_PROTOCOL_VERSION,
      socket: this.opts.socketPath,
      sessions: this.opts.registry.size,
      clients: this.connections.size,
      clientList: [...this.connections].map((c) => c.describe()),
    };
  }

  private handleRemoved(id: string, reason: 'sessionClosed' | 'hostStopping'): void {
    for (const c of this.connections) c.dropSession(id, reason);
    const feed = this.feeds.get(id);
    this.feeds.delete(id);
    feed?.dispose();
  }

  /** Tells every client the host is going, closes the socket and every connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.stallTimer);
    for (const d of this.subscriptions) d.dispose();
    for (const id of [...this.feeds.keys()]) this.handleRemoved(id, 'hostStopping');
    for (const c of this.connections) c.end();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.clientsChanged.dispose();
  }
}
