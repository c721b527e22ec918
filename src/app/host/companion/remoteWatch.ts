// A phone page watching a session that another machine runs. Only frames cross the network (the
// machine's host sends the visible rows that changed, paced by acknowledgements), so the page is
// not given the program's output bytes as for a local session: the hub attaches a relayed view,
// paints each frame into ANSI escapes for the page's xterm.js (the first, and every full frame, as
// a snapshot that starts the page's terminal over), and acknowledges a frame once the page's
// socket took it — a slow phone gets fewer frames, never a backlog, and never slows the machine.
// Watching does not resize the session (the view is attached at the session's own size); typing
// makes the page the input holder and the session takes the page's size, as for a local session.
import type { CompanionClientMessage, CompanionServerMessage } from '../../../protocol/companion';
import { readFrame } from '../../../protocol/hostFrame';
import type { HostMessage, InputIntent } from '../../../protocol/hostMessages';
import { AnsiPainter } from '../../present/ansiPainter';
import { ConnectionRelay, type LinkViewsSource } from '../machines/relay';
import type { MachineLink } from '../machines/machineLink';
import { splitTypedChunk } from '../sessions/typeInput';

/** What the watch needs of the page's socket. */
export interface PageOut {
  /** A JSON message; `done` once the socket took it. */
  send(msg: CompanionServerMessage, done?: () => void): void;
  /** Output for the page's terminal; `done` once the socket took it. */
  output(text: string, done: () => void): void;
}

/** What the watch needs of the hub: a remote session by id, and each machine's relayed views. */
export interface RemoteSessionsSource extends LinkViewsSource {
  findSession(ref: string): { ok: true; link: MachineLink; id: string } | { ok: false };
}

/** The page's one view on its relay (a page watches one session at a time). */
const VIEW = 1;
/** How long the machine's host gets to say the session's size before the view is attached. */
const READ_SIZE_MS = 10_000;

export class RemoteWatch {
  private readonly relay: ConnectionRelay;
  private painter: AnsiPainter | null = null;
  /** The page typed: it holds the input (unless another client took it since) and sets the size. */
  private typed = false;
  private holding = false;
  private bracketedPaste = false;
  private closed = false;

  /** A watch of `id` when another machine runs it, else null. */
  static open(hub: RemoteSessionsSource, id: string, size: { cols: number; rows: number }, out: PageOut): RemoteWatch | null {
    const f = hub.findSession(id);
    if (!f.ok) return null;
    const w = new RemoteWatch(hub, f.link, f.id, size, out);
    void w.start();
    return w;
  }

  private constructor(
    hub: LinkViewsSource,
    private readonly link: MachineLink,
    readonly id: string,
    private size: { cols: number; rows: number },
    private readonly out: PageOut,
  ) {
    this.relay = new ConnectionRelay(hub, {
      // Rows answers: the page asks for none.
      write: () => undefined,
      send: (m) => this.event(m),
      frame: (body) => this.frame(body),
    });
  }

  private async start(): Promise<void> {
    const size = await this.sessionSize();
    if (this.closed) return;
    const r = await this.relay.attach({ session: this.id, view: VIEW, ...size }, this.link, this.id);
    if (this.closed) return this.relay.dispose();
    // While the machine is away the view waits, and its first frame comes when the machine is back.
    if (r.ok === false) this.out.send({ t: 'detached', session: this.id, reason: r.error.code === 'noSuchSession' ? 'noSuchSession' : 'sessionClosed' });
  }

  /** The session's grid now, from its machine (the hub's copy may predate a resize): attached at
   *  that size, the view leaves it as it is. */
  private async sessionSize(): Promise<{ cols: number; rows: number }> {
    const known = this.link.sessions.get(this.id);
    const fallback = { cols: known?.cols ?? this.size.cols, rows: known?.rows ?? this.size.rows };
    const c = this.link.client;
    if (!c) return fallback;
    const r = await c.requestAny('sessions.read', { id: this.id, lines: 1 }, READ_SIZE_MS);
    const grid = r.ok ? (r.result as { cols?: unknown; rows?: unknown }) : {};
    return typeof grid.cols === 'number' && typeof grid.rows === 'number' ? { cols: grid.cols, rows: grid.rows } : fallback;
  }

  private frame(body: Uint8Array): void {
    if (this.closed) return;
    const f = readFrame(body);
    if ('kind' in f) return;
    const { header: h, reader } = f;
    this.bracketedPaste = h.modes.bracketedPaste;
    const ack = (): void => void this.relay.ack(VIEW, h.seq);
    const p = this.painter;
    if (!p || h.full || p.outCols !== h.cols || p.outRows !== h.rows) {
      // A whole screen: the page's terminal starts over at the session's size.
      this.painter = new AnsiPainter(h.cols, h.rows);
      const snapshot = this.painter.paint(h, reader);
      this.out.send({ t: 'attached', session: this.id, cols: h.cols, rows: h.rows, snapshot, holding: this.typed && this.holding }, ack);
      return;
    }
    this.out.output(p.paint(h, reader), ack);
  }

  private event(m: HostMessage): void {
    if (this.closed || m.t !== 'event') return;
    if (m.event === 'input') {
      this.holding = m.holding;
      if (this.typed) this.out.send({ t: 'holding', holding: m.holding });
    } else if (m.event === 'detached') {
      this.out.send({ t: 'detached', session: this.id, reason: 'sessionClosed' });
    }
  }

  /** The page's keys and text, as intents for the machine's host. */
  input(msg: Extract<CompanionClientMessage, { t: 'input' | 'key' }>): void {
    if (this.closed) return;
    for (const intent of intentsOf(msg, this.bracketedPaste)) this.relay.input(VIEW, intent);
    if (!this.typed) {
      this.typed = true;
      // It holds the input now (the key took it): the session takes the page's size.
      this.relay.input(VIEW, { kind: 'resize', ...this.size });
      this.out.send({ t: 'holding', holding: true });
    }
  }

  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    if (this.typed && !this.closed) this.relay.input(VIEW, { kind: 'resize', cols, rows });
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.relay.dispose();
  }
}

/** A key as it is; a chunk of text (a phone keyboard's word) as a paste when the program takes
 *  pastes, with its Return as a key of its own. */
export function intentsOf(msg: Extract<CompanionClientMessage, { t: 'input' | 'key' }>, bracketedPaste: boolean): InputIntent[] {
  if (msg.t === 'key') {
    return [{ kind: 'key', key: msg.key, ctrl: msg.ctrl ? true : undefined, alt: msg.alt ? true : undefined, shift: msg.shift ? true : undefined }];
  }
  const chunk = splitTypedChunk(msg.data);
  if (!chunk) return [{ kind: 'text', text: msg.data }];
  const text: InputIntent = { kind: bracketedPaste ? 'paste' : 'text', text: chunk.text };
  return chunk.enter ? [text, { kind: 'key', key: 'Enter' }] : [text];
}
