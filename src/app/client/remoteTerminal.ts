// One session as the app sees it through the session host: frames arrive over the host socket and
// are applied to a local copy of the viewport rows; the view takes the newest state once per
// painted frame, and only then is the frame acknowledged, so a busy window gets fewer frames,
// never a backlog. Under a flood the acknowledgement goes as the view takes the frame, so the host
// builds the next one while this one is painted; while the user types it goes once the frame is
// painted, so the write is not on the way of a keystroke's echo. Input, scrolling and selection go back as intents; selection text and find are
// requests. No pty and no emulator here: those live in the host.
import { Emitter, type Disposable } from '../../protocol/events';
import type { FrameHeader, FrameReader } from '../../protocol/hostFrame';
import { rowText } from '../../protocol/hostFrameReader';
import type { InputIntent } from '../../protocol/hostMessages';
import type { BufferRange, CursorState, Frame, KeyInput, MouseInput, MouseTrackingMode, RenderRow, RowSelection } from '../../terminal/common';
import type { ExitStatus } from '../../terminal/node';
import type { HostClient } from './hostClient';
import type { SelectionMode, TerminalSource } from './terminalSource';
import { traceLatency } from '../services/latencyTrace';

const EMPTY_ROW: RenderRow = { runs: [], text: '', wrapped: false };

/** For this long after a key, text or a paste went out, frames are acknowledged once painted (the
 *  host sends frames without its frame interval for as long). */
export const ACK_AFTER_PAINT_MS = 100;

export class RemoteTerminal implements TerminalSource, Disposable {
  private readonly renderEmitter = new Emitter<void>();
  private readonly bellEmitter = new Emitter<void>();
  private readonly exitEmitter = new Emitter<ExitStatus>();
  readonly onRender = this.renderEmitter.event;
  readonly onBell = this.bellEmitter.event;
  readonly onExit = this.exitEmitter.event;

  private header: FrameHeader | null = null;
  private lines: RenderRow[] = [];
  /** Rows changed by frames the view has not taken yet. */
  private readonly changed = new Set<number>();
  private allChanged = true;
  /** The frame received and not yet acknowledged (acknowledged when the view takes it). */
  private unacked: number | null = null;
  /** Taken by the view, acknowledged once painted (painted()). */
  private heldAck: number | null = null;
  /** When a key, text or a paste last went out (performance.now()). */
  private typedAt = -Infinity;
  private lastFrame: Frame | null = null;
  private wanted: { cols: number; rows: number };
  /** The host answered the attach: intents may flow (before, the view has nothing to act on). */
  private attached = false;
  /** When the attach was asked for and its first frame arrived (performance.now()), for the
   *  first-frame timing log. */
  attachAskedAt: number | null = null;
  firstFrameAt: number | null = null;
  private disposed = false;

  constructor(
    private readonly client: HostClient,
    readonly sessionId: string,
    readonly viewId: number,
    size: { cols: number; rows: number },
  ) {
    this.wanted = size;
  }

  /** Asks the host for this view's frames (the first is a snapshot at `wanted`'s size). */
  async attach(): Promise<{ ok: true } | { ok: false; message: string }> {
    const asked = this.wanted;
    this.attachAskedAt = performance.now();
    const r = await this.client.request('attach', { session: this.sessionId, view: this.viewId, cols: asked.cols, rows: asked.rows });
    if (!r.ok) return { ok: false, message: r.error.message };
    this.attached = true;
    // The view was laid out while the attach was on its way: it gets its real size now.
    if (this.wanted !== asked) this.send({ kind: 'resize', ...this.wanted });
    return { ok: true };
  }

  // ---- frames in ----------------------------------------------------------------------------

  /** A frame for this view: applied to the rows held here; painted at the view's next frame. */
  applyFrame(h: FrameHeader, reader: FrameReader): void {
    if (this.disposed) return;
    const prev = this.header;
    this.firstFrameAt ??= performance.now();
    if (h.full || !prev || prev.rows !== h.rows || prev.cols !== h.cols) {
      this.lines = new Array<RenderRow>(h.rows).fill(EMPTY_ROW);
      this.allChanged = true;
    }
    reader.rewind();
    while (reader.nextRow()) {
      const runs = [];
      while (reader.nextRun()) runs.push(reader.run());
      this.lines[reader.y] = { runs, text: rowText(runs), wrapped: reader.wrapped };
      this.changed.add(reader.y);
    }
    if (prev && !this.allChanged) {
      if (prev.cursor.x !== h.cursor.x || prev.cursor.y !== h.cursor.y || prev.cursor.visible !== h.cursor.visible || prev.cursor.shape !== h.cursor.shape) {
        this.changed.add(prev.cursor.y);
        this.changed.add(h.cursor.y);
      }
      for (const row of selectionRowsChanged(prev.selection, h.selection)) this.changed.add(row);
    }
    if (!prev?.exit && h.exit) this.exitEmitter.fire({ ...h.exit });
    this.header = h;
    this.unacked = h.seq;
    this.renderEmitter.fire();
  }

  /** The program rang the bell (an app event). */
  bell(): void {
    this.bellEmitter.fire();
  }

  // ---- what the view reads ------------------------------------------------------------------

  get cols(): number {
    return this.header?.cols ?? this.wanted.cols;
  }

  get rows(): number {
    return this.header?.rows ?? this.wanted.rows;
  }

  get viewport(): { top: number; bottom: number; length: number; altScreen: boolean } {
    const h = this.header;
    if (!h) return { top: 0, bottom: 0, length: this.rows, altScreen: false };
    return { top: h.scrollbackLength - h.scrollOffset, bottom: h.scrollbackLength, length: h.scrollbackLength + h.rows, altScreen: h.modes.altScreen };
  }

  get mouseTracking(): MouseTrackingMode {
    return this.header?.modes.mouseTracking ?? 'none';
  }

  get exited(): ExitStatus | null {
    return this.header?.exit ?? null;
  }

  get hasSelection(): boolean {
    return this.header?.hasSelection ?? false;
  }

  get frame(): Frame | null {
    return this.lastFrame;
  }

  update(): { frame: Frame; dirtyRows: number[] } {
    const h = this.header;
    const rows = h?.rows ?? this.wanted.rows;
    const dirtyRows = this.allChanged ? [...Array(rows).keys()] : [...this.changed].filter((r) => r < rows).sort((a, b) => a - b);
    this.allChanged = false;
    this.changed.clear();
    const cursor: CursorState = h
      ? { x: h.cursor.x, y: h.cursor.y, shape: h.cursor.shape, blinking: h.cursor.blinking, visible: h.cursor.visible && h.scrollOffset === 0 }
      : { x: 0, y: 0, shape: 'block', blinking: false, visible: false };
    this.lastFrame = {
      cols: h?.cols ?? this.wanted.cols,
      rows,
      lines: h ? this.lines.slice() : new Array<RenderRow>(rows).fill(EMPTY_ROW),
      cursor,
      selection: (h?.selection ?? []) as readonly RowSelection[],
      scrollOffset: h?.scrollOffset ?? 0,
      scrollbackLength: h?.scrollbackLength ?? 0,
      altScreen: h?.modes.altScreen ?? false,
    };
    // Taken now: the host may send the next frame (once painted, while the user types).
    if (this.unacked !== null) {
      if (performance.now() - this.typedAt < ACK_AFTER_PAINT_MS) this.heldAck = this.unacked;
      else this.ack(this.unacked);
    }
    this.unacked = null;
    return { frame: this.lastFrame, dirtyRows };
  }

  painted(): void {
    if (this.heldAck !== null) this.ack(this.heldAck);
  }

  private ack(seq: number): void {
    this.heldAck = null;
    if (!this.client.closed) this.client.ack(this.viewId, seq);
  }

  invalidate(): void {
    this.allChanged = true;
  }

  // ---- intents out --------------------------------------------------------------------------

  private send(input: InputIntent): void {
    if (this.attached && !this.disposed && !this.client.closed) this.client.input(this.viewId, input);
  }

  /** A viewport cell as an absolute buffer point. */
  private point(col: number, row: number): { x: number; y: number } {
    return { x: col, y: this.viewport.top + row };
  }

  startSelection(col: number, row: number, mode: SelectionMode): void {
    this.send({ kind: 'select', action: 'start', at: this.point(col, row), mode });
  }

  extendSelection(col: number, row: number): void {
    this.send({ kind: 'select', action: 'extend', at: this.point(col, row) });
  }

  extendSelectionFromStart(col: number, row: number): void {
    this.send({ kind: 'select', action: 'extendFromStart', at: this.point(col, row) });
  }

  clearSelection(): void {
    this.send({ kind: 'select', action: 'clear' });
  }

  async selectionText(): Promise<string> {
    const r = await this.client.request('selectionText', { view: this.viewId });
    return r.ok ? r.result.text : '';
  }

  sendKey(k: KeyInput): void {
    this.typedAt = performance.now();
    // Fields left undefined are not sent (JSON drops them).
    this.send({ kind: 'key', key: k.key, text: k.text, shift: k.shift, ctrl: k.ctrl, alt: k.alt, meta: k.meta });
    traceLatency('keySent');
  }

  sendText(text: string): void {
    if (!text) return;
    this.typedAt = performance.now();
    this.send({ kind: 'text', text });
  }

  paste(text: string): void {
    this.typedAt = performance.now();
    this.send({ kind: 'paste', text });
  }

  sendMouse(e: MouseInput): void {
    this.send({
      kind: 'mouse',
      action: e.kind,
      button: e.button,
      col: e.col,
      row: e.row,
      x: e.x === undefined ? undefined : Math.round(e.x),
      y: e.y === undefined ? undefined : Math.round(e.y),
      shift: e.shift,
      alt: e.alt,
      ctrl: e.ctrl,
    });
  }

  sendFocus(focused: boolean): void {
    this.send({ kind: 'focus', focused });
  }

  scrollLines(n: number): void {
    if (n !== 0) this.send({ kind: 'scroll', lines: n });
  }

  scrollTo(end: 'top' | 'bottom'): void {
    this.send({ kind: 'scroll', to: end });
  }

  resize(cols: number, rows: number): void {
    if (cols === this.wanted.cols && rows === this.wanted.rows) return;
    this.wanted = { cols, rows };
    this.send({ kind: 'resize', cols, rows });
  }

  async find(query: string): Promise<BufferRange[]> {
    if (!query) return [];
    const r = await this.client.request('find', { view: this.viewId, query });
    return r.ok ? r.result.matches : [];
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (!this.client.closed) void this.client.request('detach', { view: this.viewId });
    this.renderEmitter.dispose();
    this.bellEmitter.dispose();
    this.exitEmitter.dispose();
  }
}

/** Rows whose selected cells differ between two frames' selection spans. */
function selectionRowsChanged(a: FrameHeader['selection'], b: FrameHeader['selection']): number[] {
  const key = (s: FrameHeader['selection']) => new Map(s.map((x) => [x.row, `${x.start}:${x.end}`]));
  const ka = key(a);
  const kb = key(b);
  const rows = new Set<number>();
  for (const [row, v] of ka) if (kb.get(row) !== v) rows.add(row);
  for (const [row, v] of kb) if (ka.get(row) !== v) rows.add(row);
  return [...rows];
}
