// Writes host frames: rows as same-style runs, encoded once by the host and shared by every
// client, and the frame and rows messages that carry them. Pure (no Node modules); big-endian.
import { LENGTH_BYTES, MessageKind, utf8, type MessageKindValue } from './hostFraming';
import {
  CURSOR_SHAPES,
  FrameFlag,
  MAX_STRING_BYTES,
  ModeBit,
  MOUSE_TRACKING,
  packColor,
  RunAttr,
  UNDERLINES,
  WIRE_STATES,
  type FrameHeader,
  type RowsHeader,
  type WireRow,
} from './hostFrameFormat';

/** A growable byte buffer with big-endian writers. */
class ByteWriter {
  buf = new Uint8Array(256);
  view = new DataView(this.buf.buffer);
  n = 0;

  private room(extra: number): void {
    if (this.n + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.n + extra, this.buf.length * 2));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.n++] = v;
  }
  u16(v: number): void {
    this.room(2);
    this.view.setUint16(this.n, v);
    this.n += 2;
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.n, v >>> 0);
    this.n += 4;
  }
  i32(v: number): void {
    this.room(4);
    this.view.setInt32(this.n, v | 0);
    this.n += 4;
  }
  /** u16 byte length + UTF-8, cut at `max` bytes on a character boundary. */
  str16(s: string, max = 0xffff): void {
    // 3 bytes per UTF-16 unit is UTF-8's worst case.
    this.room(2 + Math.min(s.length * 3, max));
    const at = this.n;
    this.n += 2;
    let written: number;
    if (s.length * 3 <= max) {
      written = utf8.encoder.encodeInto(s, this.buf.subarray(this.n, this.n + s.length * 3)).written;
    } else {
      written = utf8.encoder.encodeInto(s, this.buf.subarray(this.n, this.n + max)).written;
    }
    this.view.setUint16(at, written);
    this.n += written;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
  /** Starts a whole message: room for the length prefix, then the kind byte. */
  static message(kind: MessageKindValue): ByteWriter {
    const w = new ByteWriter();
    w.u32(0);
    w.u8(kind);
    return w;
  }
  /** Ends a message started with message(): fills in the length prefix. */
  finishMessage(): Uint8Array {
    this.view.setUint32(0, this.n - LENGTH_BYTES);
    return this.done();
  }
}

/** One row as bytes (row index, wrap flag, runs): cached by the host until the row changes. */
export function encodeRow(y: number, row: WireRow): Uint8Array {
  const w = new ByteWriter();
  w.u16(y);
  w.u8(row.wrapped ? 1 : 0);
  w.u16(row.runs.length);
  for (const r of row.runs) {
    let attrs =
      (r.bold ? RunAttr.bold : 0) |
      (r.italic ? RunAttr.italic : 0) |
      (r.dim ? RunAttr.dim : 0) |
      (r.strikethrough ? RunAttr.strikethrough : 0) |
      (r.overline ? RunAttr.overline : 0) |
      (r.inverse ? RunAttr.inverse : 0) |
      (r.invisible ? RunAttr.invisible : 0) |
      (r.blink ? RunAttr.blink : 0) |
      (Math.max(0, UNDERLINES.indexOf(r.underline)) << RunAttr.underlineShift) |
      (r.cellWidth === 2 ? RunAttr.wide : 0);
    if (r.chars) attrs |= RunAttr.hasChars;
    if (r.link) attrs |= RunAttr.hasLink;
    w.u16(r.col);
    w.u16(r.cells);
    w.u16(attrs);
    w.u32(packColor(r.fg));
    w.u32(packColor(r.bg));
    w.str16(r.text);
    if (r.chars) {
      w.u16(r.chars.length);
      for (const c of r.chars) w.u8(Math.min(c.length, 255));
    }
    if (r.link) w.str16(r.link, MAX_STRING_BYTES);
  }
  return w.done();
}

/** A whole frame message, ready to write (length prefix and kind included): header, then rows. */
export function encodeFrameMessage(h: FrameHeader, rows: readonly Uint8Array[]): Uint8Array {
  const w = ByteWriter.message(MessageKind.frame);
  w.u32(h.view);
  w.u32(h.seq);
  w.u8(
    (h.full ? FrameFlag.full : 0) |
      (h.cursor.visible ? FrameFlag.cursorVisible : 0) |
      (h.cursor.blinking ? FrameFlag.cursorBlink : 0) |
      (h.exit ? FrameFlag.exited : 0) |
      (h.hasSelection ? FrameFlag.hasSelection : 0),
  );
  w.u16(h.cols);
  w.u16(h.rows);
  w.u16(h.cursor.x);
  w.u16(h.cursor.y);
  w.u8(CURSOR_SHAPES.indexOf(h.cursor.shape));
  const m = h.modes;
  w.u16(
    (m.applicationCursorKeys ? ModeBit.appCursor : 0) |
      (m.applicationKeypad ? ModeBit.appKeypad : 0) |
      (m.bracketedPaste ? ModeBit.bracketedPaste : 0) |
      (m.sendFocus ? ModeBit.sendFocus : 0) |
      (m.altScreen ? ModeBit.altScreen : 0) |
      (MOUSE_TRACKING.indexOf(m.mouseTracking) << ModeBit.mouseShift),
  );
  w.u8(WIRE_STATES.indexOf(h.state));
  w.i32(h.exit?.exitCode ?? 0);
  w.u8(h.exit?.signal ?? 0);
  w.u32(h.scrollbackLength);
  w.str16(h.title, MAX_STRING_BYTES);
  w.u32(h.scrollOffset);
  w.u16(h.selection.length);
  for (const s of h.selection) {
    w.u16(s.row);
    w.u16(s.start);
    w.u16(s.end);
  }
  w.u16(rows.length);
  for (const r of rows) w.bytes(r);
  return w.finishMessage();
}

export function encodeRowsMessage(h: RowsHeader, rows: readonly Uint8Array[]): Uint8Array {
  const w = ByteWriter.message(MessageKind.rows);
  w.u32(h.id);
  w.u32(h.first);
  w.u32(h.total);
  w.u16(h.cols);
  w.u16(rows.length);
  for (const r of rows) w.bytes(r);
  return w.finishMessage();
}
