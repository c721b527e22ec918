// What `termio mcp` tells its client unasked: when the server runs inside a Termio session (the
// agent's own tab), each child of that session that was spawned to tell its parent (notifyParent)
// and finished — done, failed, needs a person, or ended — arrives as an MCP logging notification
// (`notifications/message`, level "notice", logger "termio", data {event: "childFinished", …the
// notice}). It is the same notice the host types into the parent (parentNotices), read from the
// host's `sessions.watch` stream; the typed line still comes, this is for clients that listen.
import type { ChildNotice } from '../../protocol/control';
import { ControlClient } from '../client/controlClient';

export type NoticeSink = (notice: ChildNotice) => void;

export class ChildNoticeForwarder {
  private client: ControlClient | null = null;
  private connecting: Promise<void> | null = null;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly sink: NoticeSink,
  ) {}

  /** The session this server runs in; null outside every session (nothing to forward). */
  get parent(): string | null {
    return this.env.TERMIO_SESSION || null;
  }

  /** Watches the host's events unless already watching (called at start and again with each
   *  tool call, so a watch lost with its host is taken up with the next one). */
  ensure(): Promise<void> {
    if (!this.parent || this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const parent = this.parent;
    const c = await ControlClient.connect(this.env);
    if (!(c instanceof ControlClient)) return;
    c.onEvent((e) => {
      if (e.kind === 'childFinished' && e.notice?.parent === parent) this.sink(e.notice);
    });
    c.onClose(() => {
      if (this.client === c) this.client = null;
    });
    // The watch's reply comes at once and its events after it: no timeout on the stream.
    const reply = await c.request('sessions.watch', {}, 0);
    if (reply.ok) this.client = c;
    else c.close();
  }

  dispose(): void {
    this.client?.close();
    this.client = null;
  }
}
