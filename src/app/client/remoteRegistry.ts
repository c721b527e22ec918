// The app's copy of the host's session list: one record per session as the sidebar, tray and why
// strip show it, each with the RemoteTerminal its page paints, kept current by the host's app
// events. The same events a registry in the app's own process used to fire, so the windows,
// sidebar and tray follow it unchanged.
import { Emitter } from '../../protocol/events';
import type { AppSessionInfo } from '../../protocol/hostAppMessages';
import type { SessionState } from '../../protocol';
import type { HostClient } from './hostClient';
import { RemoteTerminal } from './remoteTerminal';

export interface AppSessionRecord extends Readonly<AppSessionInfo> {
  readonly session: RemoteTerminal;
}

export interface AppStateChange {
  record: AppSessionRecord;
  previous: SessionState;
  why: string;
}

export class RemoteRegistry {
  private readonly records = new Map<string, AppSessionRecord>();
  private nextView = 1;
  private readonly added = new Emitter<AppSessionRecord>();
  private readonly removed = new Emitter<AppSessionRecord>();
  private readonly changed = new Emitter<AppSessionRecord>();
  private readonly stateChanged = new Emitter<AppStateChange>();
  private readonly focusRequested = new Emitter<AppSessionRecord>();
  private readonly stallChanged = new Emitter<AppSessionRecord>();
  private readonly progressChanged = new Emitter<{ sessionId: string; progress: number | null }>();
  readonly onAdded = this.added.event;
  readonly onRemoved = this.removed.event;
  readonly onChanged = this.changed.event;
  readonly onStateChanged = this.stateChanged.event;
  readonly onFocusRequested = this.focusRequested.event;
  readonly onStallChanged = this.stallChanged.event;
  readonly onProgress = this.progressChanged.event;

  constructor(private client: HostClient, private readonly log: (msg: string, data: Record<string, unknown>) => void) {
    this.listen(client);
  }

  private listen(client: HostClient): void {
    client.onFrame((h, reader) => this.byView.get(h.view)?.applyFrame(h, reader));
  }

  /** A new connection to a new host: every session of the old one goes (the new host announces
   *  what it runs, or relaunches). */
  replaceClient(client: HostClient): void {
    for (const id of [...this.records.keys()]) this.remove(id);
    this.client = client;
    this.listen(client);
  }

  private readonly byView = new Map<number, RemoteTerminal>();

  get size(): number {
    return this.records.size;
  }

  get(id: string): AppSessionRecord | undefined {
    return this.records.get(id);
  }

  list(): AppSessionRecord[] {
    return [...this.records.values()];
  }

  /** A session the host announced (snapshot or event): added with its terminal attached, or updated. */
  apply(info: AppSessionInfo): void {
    const before = this.records.get(info.id);
    if (!before) {
      const session = new RemoteTerminal(this.client, info.id, this.nextView++, { cols: info.cols, rows: info.rows });
      this.byView.set(session.viewId, session);
      const record: AppSessionRecord = { ...info, session };
      this.records.set(info.id, record);
      this.added.fire(record);
      void session.attach().then((r) => {
        if (!r.ok) this.log('attach failed', { id: info.id, message: r.message });
      });
      return;
    }
    const record: AppSessionRecord = { ...info, session: before.session };
    this.records.set(info.id, record);
    if (before.state !== info.state) this.stateChanged.fire({ record, previous: before.state, why: info.stateWhy });
    if (before.stalledSince !== info.stalledSince) this.stallChanged.fire(record);
    if (before.progress !== info.progress) this.progressChanged.fire({ sessionId: info.id, progress: info.progress });
    const exitChanged = before.exited?.exitCode !== info.exited?.exitCode || before.exited?.signal !== info.exited?.signal;
    if (before.title !== info.title || exitChanged || before.tool !== info.tool || before.windowId !== info.windowId) this.changed.fire(record);
  }

  remove(id: string): void {
    const r = this.records.get(id);
    if (!r) return;
    this.records.delete(id);
    this.byView.delete(r.session.viewId);
    this.removed.fire(r);
    r.session.dispose();
  }

  /** The sessions a session started (spawn or run from inside it). */
  children(id: string): AppSessionRecord[] {
    return this.list().filter((r) => r.parentId === id);
  }

  /** Closes a session in the host (its process is hung up); the host's event removes it here. */
  close(id: string): boolean {
    if (!this.records.has(id)) return false;
    if (!this.client.closed) void this.client.request('sessions.close', { session: id });
    return true;
  }

  /** The program rang the bell. */
  bell(id: string): void {
    this.records.get(id)?.session.bell();
  }

  /** Shows a session (the host asked: a notification click, `termio sessions focus`). */
  requestFocus(id: string): boolean {
    const r = this.records.get(id);
    if (r) this.focusRequested.fire(r);
    return r !== undefined;
  }

  dispose(): void {
    for (const r of this.records.values()) r.session.dispose();
    this.records.clear();
    this.byView.clear();
  }
}
