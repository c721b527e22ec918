// One attached view of a host-socket client: what a SessionFeed sends frames through, bound to
// the connection that attached it (connection.ts).
import type { HostMessage } from '../../../protocol/hostMessages';
import type { FeedView, SessionFeed } from '../sessions/sessionFeed';
import { traceLatency } from '../../services/latencyTrace';

/** What a view needs of its connection. */
export interface ViewOwner {
  framesSent: number;
  congested(): boolean;
  write(bytes: Uint8Array): void;
  send(msg: HostMessage): void;
}

export class View implements FeedView {
  seenTick = -1;
  seq = 0;
  inFlight = false;
  constructor(
    readonly id: number,
    public cols: number,
    public rows: number,
    readonly feed: SessionFeed,
    private readonly conn: ViewOwner,
  ) {}
  congested(): boolean {
    return this.conn.congested();
  }
  send(message: Uint8Array): void {
    traceLatency('frameOut');
    this.conn.framesSent++;
    this.conn.write(message);
  }
  holding(on: boolean): void {
    this.conn.send({ t: 'event', event: 'input', view: this.id, holding: on });
  }
}
