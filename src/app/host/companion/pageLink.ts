// One paired page on the companion's WebSocket: it gets the session list whenever it changes, and
// may watch one session's terminal — a snapshot serialised from the host's emulator, then the
// output bytes as the emulator parses them and every resize, in order. Watching never changes
// the session's size; typing makes the page the input holder, under the same rule as every other
// client (SessionFeed), and the session then takes the page's size. A page that cannot keep up
// is not queued for: its backlog is dropped and it gets a fresh snapshot once it drains.
import type { WebSocket } from 'ws';
import { CompanionClientMessageSchema, type CompanionClientMessage, type CompanionServerMessage } from '../../../protocol/companion';
import type { Disposable } from '../../../protocol/events';
import type { Logger } from '../../services/log';
import type { FeedView, SessionFeed } from '../sessions/sessionFeed';
import type { SessionRecord } from '../sessions/sessionRegistry';
import { defaultTypingLimits, echoSettled, splitTypedChunk, typeText } from '../sessions/typeInput';
import { RemoteWatch, type PageOut, type RemoteSessionsSource } from './remoteWatch';

/** Scrollback a page's snapshot carries: a few screens to scroll back on a phone, at a size
 *  (about 100 KB of text) that arrives quickly over a phone's Wi-Fi. */
export const SNAPSHOT_SCROLLBACK = 1000;
/** Scrollback of a snapshot that catches a page up on a flood: what scrolled by was the flood,
 *  and a small snapshot costs the host and the phone a tenth of a full one. */
export const CATCH_UP_SCROLLBACK = 100;
/** Unsent bytes beyond which a page is behind: it gets no more output until it drains, then a
 *  fresh snapshot (about a second of a phone's Wi-Fi). */
export const BEHIND_BYTES = 1024 * 1024;
/** How often a page that fell behind is checked for having drained. */
const DRAIN_POLL_MS = 50;
/** Output a page is sent per window before it is treated as behind: 128 KiB per 100 ms
 *  (1.25 MiB/s) carries several full redraws of a large agent TUI per window, while a flood
 *  (`cat` of a big file) is cut to a fresh snapshot a few times a second instead of costing the
 *  host and the phone every byte. */
export const OUTPUT_BUDGET_BYTES = 128 * 1024;
const BUDGET_WINDOW_MS = 100;
/** A page behind on a flood gets a fresh snapshot at most this often (4 a second). */
const CATCH_UP_MS = 250;
/** Output is gathered this long before it goes out: one message per 120 Hz frame under a flood. */
const OUTPUT_BATCH_MS = 8;

export interface PageLinkDeps {
  find(id: string): SessionRecord | undefined;
  feedFor(record: SessionRecord): SessionFeed;
  /** A tap on a question's choice; the reply to send the page (another machine's: once it answered). */
  answer(session: string, question: string, choice: number): CompanionServerMessage | Promise<CompanionServerMessage>;
  /** "New session": the reply to send once it started (or could not). */
  spawn(agent: string, folder: string, prompt: string | undefined): Promise<CompanionServerMessage>;
  /** A search of past conversations, and a hit tapped: the replies to send the page. */
  search(query: string, seq: number): Promise<CompanionServerMessage>;
  resume(agent: string, conversation: string, machine: string | null): Promise<CompanionServerMessage>;
  /** The other machines' sessions (the hub); omitted: only this machine's can be watched. */
  remote?: RemoteSessionsSource;
  logger: Logger;
}

/** The page as the session's feed sees it: never sent frames (it mirrors output instead),
 *  told when it holds the input. */
class PageView implements FeedView {
  private static next = 0x7000_0000;
  readonly id = PageView.next++;
  seenTick = -1;
  seq = 0;
  inFlight = false;
  constructor(
    public cols: number,
    public rows: number,
    private readonly onHolding: (on: boolean) => void,
  ) {}
  congested(): boolean {
    return true;
  }
  send(): void {
    // The page mirrors the emulator from its output; it takes no frames.
  }
  holding(on: boolean): void {
    this.onHolding(on);
  }
}

interface Watch {
  record: SessionRecord;
  view: PageView;
  /** The view joined the feed: the page has typed into the session. */
  inFeed: boolean;
  feed: SessionFeed | null;
  subscriptions: Disposable[];
  queue: Array<Uint8Array | { cols: number; rows: number }>;
  timer: NodeJS.Timeout | null;
  behind: boolean;
  windowStart: number;
  windowBytes: number;
}

export class PageLink {
  private watch: Watch | null = null;
  /** Or a session of another machine, painted from its frames. */
  private remote: RemoteWatch | null = null;
  private closed = false;
  /** The page's input, delivered one message after the other. */
  private typing: Promise<void> = Promise.resolve();
  /** A pong came since the last heartbeat. */
  private alive = true;

  constructor(
    readonly ws: WebSocket,
    private readonly deps: PageLinkDeps,
  ) {
    ws.on('message', (data, isBinary) => this.handle(data as Buffer, isBinary));
    ws.on('pong', () => (this.alive = true));
    ws.on('error', (err) => deps.logger.debug('companion page socket error', { error: err.message }));
  }

  send(msg: CompanionServerMessage, done?: () => void): void {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(msg), done);
  }

  /** How a remote watch reaches the page. */
  private readonly out: PageOut = {
    send: (msg, done) => this.send(msg, done),
    output: (text, done) => {
      if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(Buffer.from(text, 'utf8'), { binary: true }, done);
    },
  };

  private handle(data: Buffer, isBinary: boolean): void {
    let value: unknown;
    try {
      value = isBinary ? undefined : JSON.parse(data.toString('utf8'));
    } catch {
      value = undefined;
    }
    const parsed = CompanionClientMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.deps.logger.debug('companion page sent a bad message', { error: parsed.error.issues[0]?.message });
      return;
    }
    this.run(parsed.data);
  }

  private run(msg: CompanionClientMessage): void {
    switch (msg.t) {
      case 'ping':
        return this.send({ t: 'pong' });
      case 'answer':
        void Promise.resolve(this.deps.answer(msg.session, msg.question, msg.choice)).then((m) => this.send(m));
        return;
      case 'spawn':
        void this.deps.spawn(msg.agent, msg.folder, msg.prompt).then((m) => this.send(m));
        return;
      case 'search':
        void this.deps.search(msg.query, msg.seq).then((m) => this.send(m));
        return;
      case 'resume':
        void this.deps.resume(msg.agent, msg.conversation, msg.machine).then((m) => this.send(m));
        return;
      case 'attach':
        return this.attach(msg.session, msg.cols, msg.rows);
      case 'detach':
        return this.detach();
      case 'size': {
        if (this.remote) return this.remote.resize(msg.cols, msg.rows);
        const w = this.watch;
        if (!w) return;
        if (w.feed && w.inFeed) w.feed.resize(w.view, msg.cols, msg.rows);
        else [w.view.cols, w.view.rows] = [msg.cols, msg.rows];
        return;
      }
      case 'input':
      case 'key': {
        if (this.remote) return this.remote.input(msg);
        const w = this.watch;
        if (!w || w.record.session.exited) return;
        this.takeInput(w);
        // In order: a key pressed while a typed chunk's echo settles goes after that chunk.
        const record = w.record;
        this.typing = this.typing
          .then(() => this.deliver(record, msg))
          .catch((err: unknown) => this.deps.logger.warn('companion: typing into a session failed', { id: record.id, error: String(err) }));
        return;
      }
    }
  }

  /** A chunk of text (a phone keyboard's word, dictation) as a paste with Return on its own; a key as it is. */
  private async deliver(record: SessionRecord, msg: Extract<CompanionClientMessage, { t: 'input' | 'key' }>): Promise<void> {
    const s = record.session;
    if (s.exited || this.watch?.record !== record) return;
    if (msg.t === 'key') {
      s.sendKey({ key: msg.key, ctrl: msg.ctrl, alt: msg.alt, shift: msg.shift });
      return;
    }
    const chunk = splitTypedChunk(msg.data);
    if (!chunk) {
      // Past the input cap (the program is not reading) the page's keys are dropped.
      s.write(msg.data);
      return;
    }
    const { pasted } = await typeText(s, chunk.text, chunk.enter, { alive: () => this.watch?.record === record });
    // The next key (the page's Return button) must not reach the program in the text's burst.
    const l = defaultTypingLimits;
    if (!chunk.enter) await echoSettled(s, pasted ? l.pasteEchoMs : l.plainEchoMs, l);
  }

  /** The page typed: it holds the session's input now, and the session takes its size. */
  private takeInput(w: Watch): void {
    if (!w.inFeed) {
      w.feed = this.deps.feedFor(w.record);
      w.inFeed = true;
      w.feed.attach(w.view);
    } else {
      w.feed?.take(w.view);
    }
    w.feed?.typed();
  }

  private attach(id: string, cols: number, rows: number): void {
    this.detach();
    const record = this.deps.find(id);
    if (!record) {
      this.remote = this.deps.remote ? RemoteWatch.open(this.deps.remote, id, { cols, rows }, this.out) : null;
      if (!this.remote) this.send({ t: 'detached', session: id, reason: 'noSuchSession' });
      return;
    }
    const s = record.session;
    const w: Watch = {
      record,
      view: new PageView(cols, rows, (on) => this.send({ t: 'holding', holding: on })),
      inFeed: false,
      feed: null,
      subscriptions: [],
      queue: [],
      timer: null,
      behind: false,
      windowStart: 0,
      windowBytes: 0,
    };
    w.subscriptions.push(
      s.onOutput((bytes) => this.queue(w, bytes)),
      s.onResize((size) => this.queue(w, size)),
    );
    this.watch = w;
    this.sendSnapshot(w);
  }

  private sendSnapshot(w: Watch, scrollback = SNAPSHOT_SCROLLBACK): void {
    const s = w.record.session;
    w.queue = [];
    this.send({
      t: 'attached',
      session: w.record.id,
      cols: s.cols,
      rows: s.rows,
      snapshot: s.snapshot(scrollback),
      holding: w.inFeed && (w.feed?.isHolder(w.view) ?? false),
    });
  }

  private queue(w: Watch, item: Uint8Array | { cols: number; rows: number }): void {
    if (w.behind) return;
    if (item instanceof Uint8Array) {
      const now = Date.now();
      if (now - w.windowStart > BUDGET_WINDOW_MS) [w.windowStart, w.windowBytes] = [now, 0];
      w.windowBytes += item.length;
      if (w.windowBytes > OUTPUT_BUDGET_BYTES) return this.fallBehind(w, CATCH_UP_MS);
    }
    w.queue.push(item instanceof Uint8Array ? item.slice() : item);
    w.timer ??= setTimeout(() => this.flush(w), OUTPUT_BATCH_MS);
  }

  /** Stops sending output; a fresh snapshot replaces it once `wait` has passed and the socket drained. */
  private fallBehind(w: Watch, wait: number): void {
    w.behind = true;
    w.queue = [];
    if (w.timer) clearTimeout(w.timer);
    w.timer = setTimeout(() => this.catchUp(w), wait);
  }

  private flush(w: Watch): void {
    w.timer = null;
    if (this.watch !== w || this.closed) return;
    // Behind: what is queued will be replaced by a snapshot once the socket drains.
    if (this.ws.bufferedAmount > BEHIND_BYTES) return this.fallBehind(w, DRAIN_POLL_MS);
    let bytes: Uint8Array[] = [];
    const sendBytes = (): void => {
      if (bytes.length) this.ws.send(Buffer.concat(bytes), { binary: true });
      bytes = [];
    };
    for (const item of w.queue) {
      if (item instanceof Uint8Array) bytes.push(item);
      else {
        sendBytes();
        this.send({ t: 'resize', cols: item.cols, rows: item.rows });
      }
    }
    sendBytes();
    w.queue = [];
  }

  private catchUp(w: Watch): void {
    w.timer = null;
    if (this.watch !== w || this.closed) return;
    if (this.ws.bufferedAmount > BEHIND_BYTES / 4) {
      w.timer = setTimeout(() => this.catchUp(w), DRAIN_POLL_MS);
      return;
    }
    w.behind = false;
    [w.windowStart, w.windowBytes] = [Date.now(), 0];
    this.sendSnapshot(w, CATCH_UP_SCROLLBACK);
  }

  /** Stops watching; the session keeps its size and its input holder (if the page held it,
   *  nobody does until the next client types). */
  detach(): void {
    this.remote?.dispose();
    this.remote = null;
    const w = this.watch;
    if (!w) return;
    this.watch = null;
    if (w.timer) clearTimeout(w.timer);
    for (const d of w.subscriptions) d.dispose();
    if (w.inFeed) w.feed?.detach(w.view);
  }

  /** The session was closed in the host. */
  sessionRemoved(id: string): void {
    if (this.watch?.record.id !== id && this.remote?.id !== id) return;
    this.detach();
    this.send({ t: 'detached', session: id, reason: 'sessionClosed' });
  }

  /** Called every heartbeat: a page that did not answer the last ping (a phone that slept, a
   *  network that dropped without a word) is cut off, so it holds no connection or output. */
  heartbeat(): boolean {
    if (!this.alive) {
      this.dispose();
      this.ws.terminate();
      return false;
    }
    this.alive = false;
    this.ws.ping();
    return true;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.dispose();
    this.ws.close(code, reason);
    // A page that does not answer the close is cut off rather than held open.
    setTimeout(() => this.ws.terminate(), 1000).unref();
  }

  dispose(): void {
    this.detach();
    this.closed = true;
  }
}
