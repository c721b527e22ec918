// One client of the host's socket: its handshake, requests and responses, input intents and frame
// acknowledgements, and its attached views. Anything it sends wrong is answered with an error
// naming it; a framing error also ends the connection, and no client can make the host buffer
// more than the bounds below.
import type { Socket } from 'node:net';
import { encodeJsonMessage, HOST_PROTOCOL_VERSION, MAX_CLIENT_MESSAGE_BYTES, MessageDecoder } from '../../../protocol/hostFraming';
import {
  ClientMessageSchema,
  readFrequentClientMessage,
  describeIssues,
  HOST_CAPABILITIES,
  KEEPS_AGENTS_CAPABILITY,
  HostParamsSchemas,
  MAX_FIND_MATCHES,
  type HostError,
  type HostErrorCode,
  type HostMessage,
  type HostMethod,
  type HostParams,
  type HostStatus,
} from '../../../protocol/hostMessages';
import type { AppEvent } from '../../../protocol/hostAppMessages';
import { ControlArgsSchemas, type ControlArgs, type ControlVerb } from '../../../protocol/control';
import type { Disposable } from '../../../protocol/events';
import type { VerbContext } from '../control/controlVerbs';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import { appMethods, type AppSubscriber } from './appService';
import type { ServerOptions } from './serverOptions';
import { companionMethods } from '../companion/companionMethods';
import type { Asker, Refusal } from '../status/bypassPolicy';
import type { Logger } from '../../services/log';
import { machineMethods } from '../machines/hubMethods';
import type { MachineLink } from '../machines/machineLink';
import { ConnectionRelay } from '../machines/relay';
import { applyInput } from './input';
import { rowsPage, selectionOf } from './reads';
import type { SessionFeed } from '../sessions/sessionFeed';
import { View } from './view';
import { readHello } from './hello';
import { kindOf, ReadWatch, STALL_MS, type ClientKind } from './admission';
import type { SessionRecord } from '../sessions/sessionRegistry';
import { traceLatency } from '../../services/latencyTrace';

/** A client that has not said hello within 5 s is not a Termio client (or is wedged): closed. */
export const HANDSHAKE_TIMEOUT_MS = 5_000;
/** A socket holding more than this unsent is not keeping up: frames wait until it drains
 *  (about sixty 80×24 frames, or two of a full-screen truecolour 300×80 window). */
export const CONGESTED_BYTES = 256 * 1024;
/** Unsent bytes at which a client that sends requests and never reads the answers is dropped:
 *  two of the largest messages the host may send. */
export const MAX_UNSENT_BYTES = 32 * 1024 * 1024;
/** Selection text in one answer: 4 Mi chars is 10,000 lines of 400 columns and stays under the
 *  host's message limit in UTF-8. */
export const MAX_SELECTION_CHARS = 4 * 1024 * 1024;
/** After a framing error the host says why and ends the connection; a peer that does not read
 *  the goodbye is cut off after this long. */
const GOODBYE_MS = 1_000;
/** Messages read but not yet answered on one connection: past this the host stops reading the
 *  socket until they are done, so a client that pipelines requests waits on itself (64, as the
 *  control socket's queue: more than the app ever has in flight). */
export const MAX_IN_FLIGHT = 64;
/** Bytes of such messages: 64 one-MiB messages would be 64 MiB held for one client; 4 MiB is a
 *  few hundred ordinary requests. */
export const MAX_IN_FLIGHT_BYTES = 4 * 1024 * 1024;
/** How long one connection may run messages before the host turns to the others: the cheapest
 *  requests go in batches, an expensive one (a 1,000-line rows page, ~16 ms) alone. */
const TURN_MS = 2;

/** A message waiting for its turn, or the goodbye a framing error ends the connection with. */
type Queued = { kind: 'msg'; value: unknown; bytes: number } | { kind: 'bye'; code: HostErrorCode; message: string };

type Answer = { ok: true; result: unknown } | { ok: false; error: HostError } | { ok: 'sent' };

function fail(code: HostErrorCode, message: string): Answer {
  return { ok: false, error: { code, message } };
}

/** What a connection needs of the server that accepted it (socketServer.ts). */
export interface ConnectionServer {
  readonly opts: ServerOptions;
  status(): HostStatus;
  feedFor(record: SessionRecord): SessionFeed;
  sessionInfo(record: SessionRecord): SessionInfo;
  /** A place for a client of this kind that has said hello, or why there is none. */
  admit(conn: Connection, kind: ClientKind): string | null;
}

export class Connection implements AppSubscriber {
  private readonly decoder = new MessageDecoder(MAX_CLIENT_MESSAGE_BYTES);
  private readonly views = new Map<number, View>();
  /** Decoded messages waiting for their turn, and the requests among them still being answered. */
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private answering = 0;
  private pumping: NodeJS.Immediate | null = null;
  private greeted = false;
  private name = '';
  /** Not yet greeted, or the kind its hello named (admission.ts); and when it last sent
   *  anything (performance.now()): the quietest of a full kind makes room. */
  kind: ClientKind = 'pending';
  heardAt = performance.now();
  private readonly reads = new ReadWatch();
  framesSent = 0;
  /** Who the client says it is: a session's secret and id, or neither (the user). */
  asker: Asker = {};
  private ending = false;
  private handshakeTimer: NodeJS.Timeout | null;
  private readonly log: Logger;
  /** Aborted when the connection ends: its pending waits stop. */
  private readonly gone = new AbortController();
  /** `sessions.watch` subscriptions, ended with the connection. */
  private readonly watches: Disposable[] = [];
  /** Views of sessions other machines run, relayed through the hub. */
  private readonly relay: ConnectionRelay | null;

  constructor(
    private readonly server: ConnectionServer,
    private readonly socket: Socket,
  ) {
    this.log = server.opts.logger;
    this.relay = server.opts.hub ? new ConnectionRelay(server.opts.hub, this) : null;
    socket.on('data', (chunk: Buffer) => this.handleData(chunk));
    socket.on('drain', () => {
      this.schedule();
      for (const v of this.views.values()) v.feed.kick();
    });
    // A peer that vanished mid-message: 'close' follows and cleans up.
    socket.on('error', (err) => this.log.debug('client socket error', { error: err.message }));
    this.handshakeTimer = setTimeout(() => this.goodbye('handshakeRequired', `no hello within ${HANDSHAKE_TIMEOUT_MS} ms`), HANDSHAKE_TIMEOUT_MS);
    this.handshakeTimer.unref();
  }

  congested(): boolean {
    return this.socket.writableLength > CONGESTED_BYTES;
  }

  /** On its way out: it holds no place any more. */
  get closing(): boolean {
    return this.ending || this.socket.destroyed;
  }

  /** Called by the server every second: output left waiting, none of it taken for STALL_MS, drops it. */
  checkStall(now: number): void {
    if (this.closing || !this.reads.stalled(this.socket, now)) return;
    this.log.warn(`client dropped: it has not read for ${STALL_MS / 1000} s`, { client: this.name, unsent: this.socket.writableLength });
    this.stop();
    this.socket.destroy();
  }

  /** Ends the connection saying why: another client needs its place. */
  refuse(message: string): void {
    this.goodbye('busy', message);
  }

  describe(): HostStatus['clientList'][number] {
    return { client: this.name, views: this.views.size, framesSent: this.framesSent, unsentBytes: this.socket.writableLength };
  }

  write(bytes: Uint8Array): void {
    if (this.ending || this.socket.destroyed) return;
    if (this.socket.writableLength + bytes.length > MAX_UNSENT_BYTES) {
      this.log.warn('client dropped: it does not read what it asks for', { unsent: this.socket.writableLength });
      this.stop();
      this.socket.destroy();
      return;
    }
    this.socket.write(bytes);
  }

  send(msg: HostMessage): void {
    this.write(encodeJsonMessage(msg));
  }

  sendEvent(e: AppEvent): void {
    this.send(e);
  }

  /** Decodes what arrived and queues it; the messages run in turns (pump). A lone message (a key
   *  press, a frame's acknowledgement: what typing sends) is its own turn and runs at once: the
   *  loop turn a deferred pump waits for costs a keystroke's echo about 0.1 ms here. */
  private handleData(chunk: Buffer): void {
    traceLatency('keyIn');
    if (this.ending || this.socket.destroyed) return;
    this.heardAt = performance.now();
    const decoded = this.decoder.push(chunk);
    // The chunk's bytes, shared among the messages it completed: a bound, not an exact count.
    const share = decoded.length ? Math.ceil(chunk.length / decoded.length) : 0;
    for (const m of decoded) {
      if (m.kind === 'error') {
        this.queue.push({ kind: 'bye', code: m.code === 'oversized' ? 'oversized' : 'badMessage', message: m.message });
        break;
      }
      if (m.kind !== 'json') {
        this.queue.push({ kind: 'bye', code: 'badMessage', message: `clients send JSON messages only, got a ${m.kind} message` });
        break;
      }
      this.queue.push({ kind: 'msg', value: m.value, bytes: share });
      this.queuedBytes += share;
    }
    if (this.full()) this.socket.pause();
    if (this.queue.length === 1 && this.queue[0]!.kind === 'msg' && this.greeted && !this.pumping) this.pump();
    else this.schedule();
  }

  private full(): boolean {
    return this.queue.length + this.answering >= MAX_IN_FLIGHT || this.queuedBytes >= MAX_IN_FLIGHT_BYTES;
  }

  private schedule(): void {
    if (this.pumping || this.ending || this.queue.length === 0) return;
    this.pumping = setImmediate(() => this.pump());
  }

  /**
   * One turn: messages in order until the turn's time is spent, then the event loop serves
   * everyone else. A client that does not read its answers gets no further turn until they drain,
   * so what it asks for costs the host only what its socket can hold.
   */
  private pump(): void {
    this.pumping = null;
    const until = performance.now() + TURN_MS;
    while (this.queue.length > 0 && !this.ending && !this.socket.destroyed && !this.congested()) {
      const next = this.queue.shift()!;
      if (next.kind === 'bye') {
        this.goodbye(next.code, next.message);
        break;
      }
      this.queuedBytes -= next.bytes;
      if (!this.greeted) this.handleHello(next.value);
      else this.handleMessage(next.value);
      if (performance.now() >= until) break;
    }
    if (this.ending || this.socket.destroyed) {
      this.stop();
      return;
    }
    if (!this.full() && this.socket.isPaused()) this.socket.resume();
    if (!this.congested()) this.schedule();
  }

  /** Nothing more of this client runs: what it sent and has not had its turn is dropped. */
  private stop(): void {
    this.ending = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    if (this.pumping) clearImmediate(this.pumping);
    this.pumping = null;
  }

  private handleHello(value: unknown): void {
    const { hostVersion } = this.server.opts;
    const read = readHello(value, hostVersion, this.server.opts.keepsAgents === true);
    if (!read.ok) {
      this.goodbye(read.code, read.message, read.extra);
      return;
    }
    const { client, version, secret, session } = read.hello;
    const kind = kindOf(client);
    const refused = this.server.admit(this, kind);
    if (refused !== null) return this.goodbye('busy', refused);
    this.greeted = true;
    this.kind = kind;
    this.name = client;
    this.asker = { secret: secret || undefined, session: session || undefined };
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    this.log.debug('client connected', { client, version });
    const capabilities: string[] = [...HOST_CAPABILITIES, ...(this.server.opts.keepsAgents ? [KEEPS_AGENTS_CAPABILITY] : [])];
    const { hostId } = this.server.opts;
    this.send({ t: 'hello', protocol: HOST_PROTOCOL_VERSION, hostVersion, capabilities, pid: process.pid, hostId: hostId || undefined });
  }

  private handleMessage(value: unknown): void {
    const frequent = readFrequentClientMessage(value);
    const parsed = frequent ? { success: true as const, data: frequent } : ClientMessageSchema.safeParse(value);
    if (!parsed.success) {
      // A request with a usable id gets its answer; anything else a protocol error.
      const v = value as { t?: unknown; id?: unknown };
      const message = describeIssues(parsed.error, typeof v?.t === 'string' ? v.t : 'message');
      if (v?.t === 'req' && typeof v.id === 'number' && Number.isInteger(v.id)) {
        this.send({ t: 'res', id: v.id, ok: false, error: { code: 'badParams', message } });
      } else {
        this.send({ t: 'error', code: 'badMessage', message });
      }
      return;
    }
    const msg = parsed.data;
    if (msg.t === 'ack') {
      if (this.relay?.ack(msg.view, msg.seq)) return;
      const view = this.views.get(msg.view);
      if (view) view.feed.ack(view, msg.seq);
      return;
    }
    if (msg.t === 'input') {
      if (this.relay?.input(msg.view, msg.input)) return;
      const view = this.views.get(msg.view);
      if (!view) this.send({ t: 'error', code: 'noSuchView', message: `input for view ${msg.view}, which is not attached` });
      else if (!applyInput(view.feed, view, msg.input)) {
        const id = view.feed.record.id;
        this.send({ t: 'error', code: 'busy', message: `session ${id} has not read the input it was sent; this ${msg.input.kind} was dropped` });
      }
      return;
    }
    this.answering++;
    void this.answer(msg.id, msg.method, msg.params, msg.secret).finally(() => {
      this.answering--;
      if (!this.full() && this.socket.isPaused() && !this.ending) this.socket.resume();
    });
  }

  private async answer(id: number, method: string, params: unknown, secret: string | undefined): Promise<void> {
    let a: Answer;
    if (!Object.hasOwn(HostParamsSchemas, method)) {
      a = fail('unknownMethod', `unknown method '${method}' (known: ${Object.keys(HostParamsSchemas).join(', ')})`);
    } else {
      const schema = HostParamsSchemas[method as HostMethod];
      const p = schema.safeParse(params ?? {});
      if (!p.success) a = fail('badParams', describeIssues(p.error, method));
      else {
        try {
          a = await this.run(id, method as HostMethod, p.data as HostParams<HostMethod>, secret);
        } catch (err) {
          this.log.error('request failed', { method, error: (err as Error).stack ?? String(err) });
          a = fail('badMessage', `the host failed on ${method}: ${(err as Error).message}`);
        }
      }
    }
    if (a.ok === 'sent') return;
    if (a.ok) this.send({ t: 'res', id, ok: true, result: a.result });
    else this.send({ t: 'res', id, ok: false, error: a.error });
  }

  private find(ref: string): { ok: true; record: SessionRecord } | Answer {
    const f = this.server.opts.registry.find(ref);
    return f.ok ? f : fail(f.code, f.message);
  }

  private view(id: number): View | Answer {
    return this.views.get(id) ?? fail('noSuchView', `view ${id} is not attached on this connection`);
  }

  /** One handler per method, typed by method: a method added to the protocol without one fails to compile. */
  private readonly methods: { [M in Exclude<HostMethod, ControlVerb>]: (id: number, params: HostParams<M>) => Answer | Promise<Answer> } = {
    'host.status': () => ({ ok: true, result: this.server.status() }),
    'host.stop': () => {
      setImmediate(() => this.server.opts.onStop());
      return { ok: true, result: {} };
    },
    attach: (_id, p) => {
      const away = this.remote(p.session);
      if (!away) return this.attach(p);
      if (this.views.has(p.view) || this.relay!.has(p.view)) return fail('viewInUse', `view ${p.view} is already attached on this connection; detach it first`);
      return this.relay!.attach(p, away.link, away.id);
    },
    detach: (_id, p) => {
      if (this.relay?.has(p.view)) return this.relay.detach(p.view);
      const v = this.view(p.view);
      if (!(v instanceof View)) return v;
      this.views.delete(v.id);
      v.feed.detach(v);
      return { ok: true, result: {} };
    },
    rows: (id, p) => (this.relay?.has(p.view) ? this.relay.rows(id, p) : this.rows(id, p)),
    find: (_id, p) => {
      if (this.relay?.has(p.view)) return this.relay.forward('find', p);
      const v = this.view(p.view);
      if (!(v instanceof View)) return v;
      const all = v.feed.record.session.find(p.query);
      return { ok: true, result: { matches: all.slice(-MAX_FIND_MATCHES), total: all.length } };
    },
    selectionText: (_id, p) => (this.relay?.has(p.view) ? this.relay.forward('selectionText', p) : this.selectionText(p)),
    ...appMethods(() => this.server.opts.app ?? null, this),
    ...companionMethods(() => this.server.opts.companion?.() ?? null, this, { warn: (m, f) => this.log.warn(m, f) }),
    ...machineMethods(
      () => this.server.opts.hub ?? null,
      this,
      (who, change, door) => this.guardChange(who, change, door),
    ),
  };

  /** The bypass policy's check for a change the host runs outside the asking session; a host
   *  without the app service (no policy to ask) refuses any caller inside a session. */
  private guardChange(who: Asker, change: string, door: string): Refusal | null {
    const policy = this.server.opts.app?.bypass;
    if (policy) return policy.refuseChange(who, change, door);
    if (who.secret === undefined && who.session === undefined) return null;
    return { ok: false, code: 'forbidden', message: `a program inside a Termio session cannot ${change}` };
  }

  /** A session another machine runs (and no session here matches the reference). */
  private remote(ref: string): { link: MachineLink; id: string } | null {
    const hub = this.server.opts.hub;
    if (!hub) return null;
    const here = this.server.opts.registry.find(ref);
    if (here.ok || here.code === 'ambiguousSession') return null;
    const f = hub.findSession(ref);
    return f.ok ? f : null;
  }

  private run<M extends HostMethod>(id: number, method: M, params: HostParams<M>, secret: string | undefined): Answer | Promise<Answer> {
    if (Object.hasOwn(ControlArgsSchemas, method)) return this.sessionVerb(id, method as ControlVerb, params as ControlArgs<ControlVerb>, secret);
    return (this.methods[method as Exclude<HostMethod, ControlVerb>] as (id: number, params: unknown) => Answer | Promise<Answer>)(id, params);
  }

  /** A session verb, answered by the host's one table (the control socket's too) for this caller. */
  private async sessionVerb(id: number, verb: ControlVerb, params: ControlArgs<ControlVerb>, secret: string | undefined): Promise<Answer> {
    const ctx: VerbContext = {
      // A request's own secret, else the one the client gave in its hello.
      secret: secret ?? this.asker.secret,
      session: this.asker.session,
      door: 'host',
      holder: { signal: this.gone.signal, hold: (work) => work },
      stream: (result, subscribe) => {
        this.send({ t: 'res', id, ok: true, result });
        this.watches.push(...subscribe((change) => this.send({ t: 'event', event: 'watch', request: id, change })));
        return 'replied';
      },
    };
    const out = await this.server.opts.verbs.answer(verb, params, ctx);
    if (out === 'replied') return { ok: 'sent' };
    return out.ok ? { ok: true, result: out.result } : fail(out.code, out.message);
  }

  private attach(p: HostParams<'attach'>): Answer {
    if (this.views.has(p.view)) return fail('viewInUse', `view ${p.view} is already attached on this connection; detach it first`);
    const f = this.find(p.session);
    if (!('record' in f)) return f;
    const feed = this.server.feedFor(f.record);
    const view = new View(p.view, p.cols, p.rows, feed, this);
    this.views.set(p.view, view);
    feed.attach(view);
    return { ok: true, result: { view: p.view, session: this.server.sessionInfo(f.record) } };
  }

  /** Answered with a binary rows message of its own, not a JSON result. */
  private rows(id: number, p: HostParams<'rows'>): Answer {
    const v = this.view(p.view);
    if (!(v instanceof View)) return v;
    this.write(rowsPage(v.feed.record.session, id, p));
    return { ok: 'sent' };
  }

  private selectionText(p: HostParams<'selectionText'>): Answer {
    const v = this.view(p.view);
    if (!(v instanceof View)) return v;
    return { ok: true, result: selectionOf(v.feed.record.session.renderModel, p, MAX_SELECTION_CHARS) };
  }

  /** The session went away: its views end, and the client is told why. */
  dropSession(id: string, reason: 'sessionClosed' | 'hostStopping'): void {
    for (const v of [...this.views.values()]) {
      if (v.feed.record.id !== id) continue;
      this.views.delete(v.id);
      this.send({ t: 'event', event: 'detached', view: v.id, reason });
    }
  }

  /** Says why, then ends the connection (framing can not recover, or the handshake failed). */
  private goodbye(code: HostErrorCode, message: string, extra: { protocol?: number; hostVersion?: string; pid?: number; keepsAgents?: boolean } = {}): void {
    if (this.ending) return;
    this.log.info('client refused', { code, message });
    this.send({ t: 'error', code, message, ...extra });
    this.end();
  }

  end(): void {
    if (this.ending) return;
    this.stop();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), GOODBYE_MS).unref();
  }

  dispose(): void {
    this.stop();
    this.relay?.dispose();
    this.gone.abort();
    for (const d of this.watches.splice(0)) d.dispose();
    this.server.opts.app?.unsubscribe(this);
    if (this.handshakeTimer) clearTimeout(this.handshakeTimer);
    for (const v of this.views.values()) v.feed.detach(v);
    this.views.clear();
  }
}
