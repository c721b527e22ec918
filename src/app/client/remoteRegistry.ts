// The app's copy of the host's session list: one record per session as the sidebar, tray and why
// strip show it, each with the RemoteTerminal its page paints, kept current by the host's app
// events. One event per fact the host sends (added, updated with the record before, removed,
// focus asked): listeners compare what they care about.
import { waitingSinceMs } from '../../protocol/attentionQueue';
import { Emitter } from '../../protocol/events';
import type { SessionInfo, SessionStatusInfo } from '../../protocol/sessionInfo';
import type { SessionStatus, StatusWhy } from '../../protocol/status/sessionState';
import type { HostClient } from './hostClient';
import { RemoteTerminal } from './remoteTerminal';

/** A session as the app keeps it: the host's SessionInfo with its times as epoch ms (what the
 *  presenters compute with), and the terminal its page paints. */
export interface AppSessionRecord extends Readonly<Omit<SessionInfo, 'stateSince' | 'waitingSince' | 'createdAt' | 'stalledSince' | 'status'>> {
  readonly stateSince: number;
  /** Its place in the attention queue (src/protocol/attentionQueue.ts), or null. */
  readonly waitingSince: number | null;
  readonly createdAt: number;
  readonly stalledSince: number | null;
  readonly status: SessionStatus | null;
  readonly session: RemoteTerminal;
}

export interface AppSessionUpdate {
  record: AppSessionRecord;
  previous: AppSessionRecord;
}

/** A status reason with its times (and a failure's reset time) as epoch ms. */
function epochWhy(w: SessionStatusInfo['why']): StatusWhy {
  const { failure, ...rest } = w;
  const why: StatusWhy = { ...rest, at: Date.parse(w.at) };
  if (failure) why.failure = { kind: failure.kind, reason: failure.reason, resetsAt: failure.resetsAt ? Date.parse(failure.resetsAt) : undefined };
  return why;
}

/** The wire's ISO times as epoch ms. */
function withEpochTimes(info: SessionInfo): Omit<AppSessionRecord, 'session'> {
  const ms = Date.parse;
  const st = info.status;
  return {
    ...info,
    stateSince: ms(info.stateSince),
    waitingSince: waitingSinceMs(info),
    createdAt: ms(info.createdAt),
    stalledSince: info.stalledSince === null ? null : ms(info.stalledSince),
    status: st && {
      state: st.state,
      since: ms(st.since),
      why: epochWhy(st.why),
      health: st.health.map((h) => ({ ...h, since: ms(h.since) })),
    },
  };
}

export class RemoteRegistry {
  private readonly records = new Map<string, AppSessionRecord>();
  private nextView = 1;
  private readonly added = new Emitter<AppSessionRecord>();
  private readonly removed = new Emitter<AppSessionRecord>();
  private readonly updated = new Emitter<AppSessionUpdate>();
  private readonly focusRequested = new Emitter<AppSessionRecord>();
  readonly onAdded = this.added.event;
  readonly onRemoved = this.removed.event;
  /** The host sent a session again (its state, title, progress, exit, window or stall changed). */
  readonly onUpdated = this.updated.event;
  readonly onFocusRequested = this.focusRequested.event;

  constructor(
    private client: HostClient,
    private readonly log: (msg: string, data: Record<string, unknown>) => void,
  ) {
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
  apply(info: SessionInfo): void {
    const before = this.records.get(info.id);
    if (!before) {
      const session = new RemoteTerminal(this.client, info.id, this.nextView++, { cols: info.cols, rows: info.rows });
      this.byView.set(session.viewId, session);
      const record: AppSessionRecord = { ...withEpochTimes(info), session };
      this.records.set(info.id, record);
      this.added.fire(record);
      void session.attach().then((r) => {
        if (!r.ok) this.log('attach failed', { id: info.id, message: r.message });
      });
      return;
    }
    const record: AppSessionRecord = { ...withEpochTimes(info), session: before.session };
    this.records.set(info.id, record);
    this.updated.fire({ record, previous: before });
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
    if (!this.client.closed) void this.client.request('sessions.close', { id });
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
