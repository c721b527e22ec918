// A client-side mirror of one attached view for tests: applies the frames a HostClient receives to
// a grid of row texts, counts them, and acknowledges each (unless told not to), like a painter.
import type { FrameHeader, FrameReader } from '../../src/protocol/hostFrame';
import { collectRows, rowText } from '../../src/protocol/hostFrame';
import type { HostClient } from '../../src/app/client/hostClient';
import { waitFor } from './waitFor';

export class ScreenMirror {
  rows: string[] = [];
  header: FrameHeader | null = null;
  frames: FrameHeader[] = [];
  /** Rows carried by each frame, in order. */
  rowCounts: number[] = [];
  autoAck = true;
  holding: boolean | null = null;
  detached: string | null = null;

  constructor(
    readonly client: HostClient,
    readonly view: number,
  ) {}

  apply(header: FrameHeader, reader: FrameReader): void {
    if (header.view !== this.view) return;
    if (header.full || this.rows.length !== header.rows) this.rows = new Array<string>(header.rows).fill('');
    const rows = collectRows(reader);
    for (const r of rows) this.rows[r.y] = rowText(r.runs).trimEnd();
    this.header = header;
    this.frames.push(header);
    this.rowCounts.push(rows.length);
    if (this.autoAck) this.client.ack(this.view, header.seq);
  }

  ackLast(): void {
    if (this.header) this.client.ack(this.view, this.header.seq);
  }

  text(): string {
    return this.rows.join('\n');
  }

  async waitForText(re: RegExp | string, what?: string, timeout?: number): Promise<void> {
    await waitFor(() => (typeof re === 'string' ? this.text().includes(re) : re.test(this.text())), {
      what: what ?? `the screen to show ${re} (screen now:\n${this.text()})`,
      ...(timeout !== undefined ? { timeout } : {}),
    });
  }
}

/** Routes a client's frames and events to its mirrors by view id. */
export function mirrorFrames(client: HostClient): Map<number, ScreenMirror> {
  const mirrors = new Map<number, ScreenMirror>();
  client.onFrame((h, r) => mirrors.get(h.view)?.apply(h, r));
  client.onEvent((e) => {
    if (e.event !== 'input' && e.event !== 'detached') return;
    const m = mirrors.get(e.view);
    if (!m) return;
    if (e.event === 'input') m.holding = e.holding;
    else m.detached = e.reason;
  });
  return mirrors;
}

/** Attaches `view` of a session and returns its mirror once the first frame arrived. */
export async function attach(
  client: HostClient,
  mirrors: Map<number, ScreenMirror>,
  session: string,
  view: number,
  cols = 80,
  rows = 24,
): Promise<ScreenMirror> {
  const m = new ScreenMirror(client, view);
  mirrors.set(view, m);
  const r = await client.request('attach', { session, view, cols, rows });
  if (!r.ok) throw new Error(`attach failed: ${r.error.message}`);
  await waitFor(() => m.frames.length > 0, { what: `the first frame of view ${view}` });
  return m;
}
