// Views of remote sessions, relayed by the hub: a client of this host attaches view V to a session
// of machine M; the hub attaches its own view W on M's host and passes frames, rows and view events
// back with W's number replaced by V, and the client's input and acknowledgements on with V's
// replaced by W. Nothing is decoded or re-encoded on the way, and each frame is acknowledged by the
// client that paints it, so M's host paces frames to that client end to end: a flood costs the
// link a frame per paint, and one machine's link never waits on another's.
import { encodeMessage, MessageKind } from '../../../protocol/hostFraming';
import type { HostError, HostEvent, HostMessage, HostParams, InputIntent } from '../../../protocol/hostMessages';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { HostClient } from '../../client/hostClient';
import type { MachineLink } from './machineLink';

/** Where relayed frames and events go: a connection of this host socket. */
export interface RelaySink {
  write(bytes: Uint8Array): void;
  send(msg: HostMessage): void;
  /** A sink that paints frames itself (the phone page's watch) takes each frame's body here. */
  frame?(body: Uint8Array): void;
}

export type RelayAnswer = { ok: true; result: unknown } | { ok: false; error: HostError } | { ok: 'sent' };

interface RelayedView {
  link: MachineLink;
  /** The hub's view on the machine's host. */
  remote: number;
  local: number;
  sink: RelaySink;
  sessionId: string;
  cols: number;
  rows: number;
  /** The connection it is attached on, while the machine is connected. */
  on: HostClient | null;
}

function setU32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, value);
}

function getU32(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at);
}

/** One machine's relayed views, by the hub's view number on that machine. */
export class LinkViews {
  private readonly views = new Map<number, RelayedView>();
  private nextRemote = 1;

  constructor(private readonly link: MachineLink) {
    link.onFrame((bytes) => {
      // A frame's header starts with its view (docs/host.md, Frames).
      if (bytes.length < 4) return;
      const v = this.views.get(getU32(bytes, 0));
      if (!v) return;
      setU32(bytes, 0, v.local);
      if (v.sink.frame) v.sink.frame(bytes);
      else v.sink.write(encodeMessage(MessageKind.frame, bytes));
    });
    link.onViewEvent((e) => this.viewEvent(e));
    // Back after a drop: every view attaches again; its first frame is a full one, so the client
    // shows the session's screen as it is now.
    link.onConnected((client) => {
      for (const v of this.views.values()) void this.attachOn(client, v);
    });
  }

  private viewEvent(e: HostEvent): void {
    if (e.event !== 'input' && e.event !== 'detached') return;
    const v = this.views.get(e.view);
    if (!v) return;
    if (e.event === 'detached') this.views.delete(e.view);
    v.sink.send({ ...e, view: v.local });
  }

  private async attachOn(client: HostClient, v: RelayedView): Promise<{ ok: true; session: SessionInfo } | { ok: false; error: HostError }> {
    v.on = client;
    const r = await client.request('attach', { session: v.sessionId, view: v.remote, cols: v.cols, rows: v.rows });
    if (r.ok) return { ok: true, session: { ...r.result.session, machine: this.link.name } };
    if (v.on === client && this.views.get(v.remote) === v) {
      // The session ended while the machine was away.
      this.views.delete(v.remote);
      v.on = null;
      if (r.error.code === 'noSuchSession') v.sink.send({ t: 'event', event: 'detached', view: v.local, reason: 'sessionClosed' });
    }
    return r;
  }

  /** `registered`: told the view at once, before the machine answers — its first frame can come
   *  before the answer does, and its acknowledgement must find the view. */
  async attach(
    sink: RelaySink,
    local: number,
    sessionId: string,
    cols: number,
    rows: number,
    registered?: (v: RelayedView) => void,
  ): Promise<{ view: RelayedView; answer: RelayAnswer }> {
    const v: RelayedView = { link: this.link, remote: this.nextRemote++, local, sink, sessionId, cols, rows, on: null };
    this.views.set(v.remote, v);
    registered?.(v);
    const client = this.link.client;
    const cached = this.link.sessions.get(sessionId);
    if (!client) {
      // Away: the view waits, and attaches when the machine is back.
      return { view: v, answer: { ok: true, result: { view: local, session: cached ?? null } } };
    }
    const r = await this.attachOn(client, v);
    return { view: v, answer: r.ok ? { ok: true, result: { view: local, session: r.session } } : { ok: false, error: r.error } };
  }

  detach(v: RelayedView): void {
    if (this.views.get(v.remote) !== v) return;
    this.views.delete(v.remote);
    const c = v.on;
    v.on = null;
    if (c && !c.closed) void c.request('detach', { view: v.remote });
  }
}

/** What a connection's relay needs of the hub: each machine's views. */
export interface LinkViewsSource {
  viewsOf(link: MachineLink): LinkViews;
}

/** The relayed views of one connection of this host, by the view number that connection chose. */
export class ConnectionRelay {
  private readonly views = new Map<number, RelayedView>();

  constructor(
    private readonly hub: LinkViewsSource,
    private readonly sink: RelaySink,
  ) {}

  has(view: number): boolean {
    return this.views.has(view);
  }

  async attach(p: HostParams<'attach'>, link: MachineLink, sessionId: string): Promise<RelayAnswer> {
    const { view, answer } = await this.hub.viewsOf(link).attach(this.sink, p.view, sessionId, p.cols, p.rows, (v) => this.views.set(p.view, v));
    if (answer.ok !== true) {
      if (this.views.get(p.view) === view) this.views.delete(p.view);
      this.hub.viewsOf(link).detach(view);
    }
    return answer;
  }

  detach(view: number): RelayAnswer {
    const v = this.views.get(view);
    if (!v) return { ok: false, error: { code: 'noSuchView', message: `view ${view} is not attached on this connection` } };
    this.views.delete(view);
    this.hub.viewsOf(v.link).detach(v);
    return { ok: true, result: {} };
  }

  /** Input for a relayed view (true: it was one). Typed while the machine is away, it is dropped:
   *  keys sent into a screen nobody can see would land somewhere unexpected later. */
  input(view: number, input: InputIntent): boolean {
    const v = this.views.get(view);
    if (!v) return false;
    if (input.kind === 'resize') {
      v.cols = input.cols;
      v.rows = input.rows;
    }
    v.on?.input(v.remote, input);
    return true;
  }

  ack(view: number, seq: number): boolean {
    const v = this.views.get(view);
    if (!v) return false;
    v.on?.ack(v.remote, seq);
    return true;
  }

  async rows(id: number, p: HostParams<'rows'>): Promise<RelayAnswer> {
    const v = this.views.get(p.view)!;
    if (!v.on) return this.away(v);
    const r = await v.on.rowsRaw({ ...p, view: v.remote });
    if (!r.ok) return r;
    // A rows message starts with the request id it answers (docs/host.md).
    setU32(r.bytes, 0, id);
    this.sink.write(encodeMessage(MessageKind.rows, r.bytes));
    return { ok: 'sent' };
  }

  /** find and selectionText: the same request on the hub's view. */
  async forward(method: 'find' | 'selectionText', p: { view: number }): Promise<RelayAnswer> {
    const v = this.views.get(p.view)!;
    if (!v.on) return this.away(v);
    return v.on.requestAny(method, { ...p, view: v.remote });
  }

  private away(v: RelayedView): RelayAnswer {
    return { ok: false, error: { code: 'busy', message: `${v.link.name} is not connected (${v.link.why ?? v.link.state})` } };
  }

  dispose(): void {
    for (const v of this.views.values()) this.hub.viewsOf(v.link).detach(v);
    this.views.clear();
  }
}
