// The binary screen frame of the host protocol: a header (size, cursor, modes, title, state,
// exit) and changed viewport rows as same-style runs. Rows are encoded once by the host and
// shared by every client; a painter walks them with FrameReader, which validates the whole frame
// in one pass first and then hands out runs through one reused object (no object per cell).
// Pure (no Node modules). All integers big-endian.
import { decodeUtf8, LENGTH_BYTES, MessageKind, utf8, type MessageKindValue } from './hostFraming';

/** Same shapes as the terminal layer's render model (structural, so the host passes its runs). */
export type WireColor = { kind: 'default' } | { kind: 'palette'; index: number } | { kind: 'rgb'; value: number };
export type WireUnderline = 'none' | 'single' | 'double' | 'curly' | 'dotted' | 'dashed';
export interface WireRun {
  col: number;
  cells: number;
  text: string;
  cellWidth: 1 | 2;
  chars?: string[];
  fg: WireColor;
  bg: WireColor;
  bold: boolean;
  italic: boolean;
  dim: boolean;
  underline: WireUnderline;
  strikethrough: boolean;
  overline: boolean;
  inverse: boolean;
  invisible: boolean;
  blink: boolean;
  link?: string;
}
export interface WireRow {
  runs: readonly WireRun[];
  wrapped: boolean;
}

export type WireCursorShape = 'block' | 'underline' | 'bar';
export type WireMouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';
export type WireState = 'idle' | 'working' | 'attention' | 'done';

/** What a frame says besides its rows. */
export interface FrameHeader {
  /** The client's view id (chosen by the client when it attached). */
  view: number;
  /** Frame number within the view; the client acknowledges it once painted. */
  seq: number;
  /** True: the client drops what it holds and takes these rows as the whole screen. */
  full: boolean;
  cols: number;
  rows: number;
  cursor: { x: number; y: number; shape: WireCursorShape; blinking: boolean; visible: boolean };
  modes: {
    applicationCursorKeys: boolean;
    applicationKeypad: boolean;
    bracketedPaste: boolean;
    sendFocus: boolean;
    altScreen: boolean;
    mouseTracking: WireMouseTracking;
  };
  state: WireState;
  exit: { exitCode: number; signal?: number } | null;
  /** Lines of scrollback above the screen. */
  scrollbackLength: number;
  title: string;
}

/** Upper bounds a frame or a size request must stay in: far past any real screen (a 6K monitor at
 *  a 6 px font is about 1,000 × 300 cells) and small enough that a frame stays bounded. */
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;
/** Titles and links are lines in a tab or a tooltip; 2 KiB of UTF-8 is far past what either shows. */
export const MAX_STRING_BYTES = 2048;

const CURSOR_SHAPES: WireCursorShape[] = ['block', 'underline', 'bar'];
const MOUSE_TRACKING: WireMouseTracking[] = ['none', 'x10', 'vt200', 'drag', 'any'];
export const WIRE_STATES: WireState[] = ['idle', 'working', 'attention', 'done'];
const UNDERLINES: WireUnderline[] = ['none', 'single', 'double', 'curly', 'dotted', 'dashed'];

/** Run attribute bits (FrameReader.attrs). Underline style sits in bits 8-10. */
export const RunAttr = {
  bold: 1 << 0,
  italic: 1 << 1,
  dim: 1 << 2,
  strikethrough: 1 << 3,
  overline: 1 << 4,
  inverse: 1 << 5,
  invisible: 1 << 6,
  blink: 1 << 7,
  underlineShift: 8,
  underlineMask: 7 << 8,
  wide: 1 << 11,
  hasChars: 1 << 12,
  hasLink: 1 << 13,
} as const;

/** Colours on the wire: kind in the top byte (0 default, 1 palette, 2 rgb), value below. */
export const ColorKind = { default: 0, palette: 1, rgb: 2 } as const;

export function packColor(c: WireColor): number {
  if (c.kind === 'rgb') return ((ColorKind.rgb << 24) | (c.value & 0xffffff)) >>> 0;
  if (c.kind === 'palette') return ((ColorKind.palette << 24) | (c.index & 0xff)) >>> 0;
  return 0;
}

export function unpackColor(v: number): WireColor {
  const kind = v >>> 24;
  if (kind === ColorKind.rgb) return { kind: 'rgb', value: v & 0xffffff };
  if (kind === ColorKind.palette) return { kind: 'palette', index: v & 0xff };
  return { kind: 'default' };
}

const FrameFlag = { full: 1, cursorVisible: 2, cursorBlink: 4, exited: 8 } as const;
const ModeBit = { appCursor: 1, appKeypad: 2, bracketedPaste: 4, sendFocus: 8, altScreen: 16, mouseShift: 5 } as const;

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
    let attrs = (r.bold ? RunAttr.bold : 0) | (r.italic ? RunAttr.italic : 0) | (r.dim ? RunAttr.dim : 0)
      | (r.strikethrough ? RunAttr.strikethrough : 0) | (r.overline ? RunAttr.overline : 0)
      | (r.inverse ? RunAttr.inverse : 0) | (r.invisible ? RunAttr.invisible : 0) | (r.blink ? RunAttr.blink : 0)
      | (Math.max(0, UNDERLINES.indexOf(r.underline)) << RunAttr.underlineShift) | (r.cellWidth === 2 ? RunAttr.wide : 0);
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
  w.u8((h.full ? FrameFlag.full : 0) | (h.cursor.visible ? FrameFlag.cursorVisible : 0)
    | (h.cursor.blinking ? FrameFlag.cursorBlink : 0) | (h.exit ? FrameFlag.exited : 0));
  w.u16(h.cols);
  w.u16(h.rows);
  w.u16(h.cursor.x);
  w.u16(h.cursor.y);
  w.u8(CURSOR_SHAPES.indexOf(h.cursor.shape));
  const m = h.modes;
  w.u16((m.applicationCursorKeys ? ModeBit.appCursor : 0) | (m.applicationKeypad ? ModeBit.appKeypad : 0)
    | (m.bracketedPaste ? ModeBit.bracketedPaste : 0) | (m.sendFocus ? ModeBit.sendFocus : 0)
    | (m.altScreen ? ModeBit.altScreen : 0) | (MOUSE_TRACKING.indexOf(m.mouseTracking) << ModeBit.mouseShift));
  w.u8(WIRE_STATES.indexOf(h.state));
  w.i32(h.exit?.exitCode ?? 0);
  w.u8(h.exit?.signal ?? 0);
  w.u32(h.scrollbackLength);
  w.str16(h.title, MAX_STRING_BYTES);
  w.u16(rows.length);
  for (const r of rows) w.bytes(r);
  return w.finishMessage();
}

/** A `rows` message answering a request: buffer lines [first, first + count) at `cols`. */
export interface RowsHeader {
  /** The request's id. */
  id: number;
  /** Absolute buffer line of the first row (0 = oldest scrollback line). */
  first: number;
  /** Lines in the buffer now (scrollback + screen). */
  total: number;
  cols: number;
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

/** A frame or rows message that does not hold together: says what and at which byte. */
export interface FrameDecodeError {
  kind: 'error';
  message: string;
}

class Malformed extends Error {}

/**
 * Reads a frame (or rows) body without allocating per cell: `nextRow()` then `nextRun()` fill the
 * reader's own fields. Built by readFrame/readRows, which check every length and index first, so
 * iterating never fails.
 */
export class FrameReader {
  readonly bytes: Uint8Array;
  private readonly dv: DataView;
  private p = 0;
  private rowsStart = 0;
  private rowsLeft = 0;
  private runsLeft = 0;
  readonly rowCount: number;

  // The current row.
  y = 0;
  wrapped = false;
  runCount = 0;
  // The current run.
  col = 0;
  cells = 0;
  /** RunAttr bits. */
  attrs = 0;
  /** Packed colours (see unpackColor and ColorKind). */
  fg = 0;
  bg = 0;
  text = '';
  /** UTF-16 length of each character when the run is not one unit per character, else null. */
  charLengths: Uint8Array | null = null;
  link: string | null = null;

  /** @internal use readFrame / readRows */
  constructor(bytes: Uint8Array, rowsStart: number, rowCount: number) {
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.rowsStart = rowsStart;
    this.rowCount = rowCount;
    this.rewind();
  }

  /** Back to before the first row. */
  rewind(): void {
    this.p = this.rowsStart;
    this.rowsLeft = this.rowCount;
    this.runsLeft = 0;
  }

  nextRow(): boolean {
    while (this.runsLeft > 0) this.nextRun();
    if (this.rowsLeft === 0) return false;
    this.rowsLeft--;
    this.y = this.dv.getUint16(this.p);
    this.wrapped = (this.bytes[this.p + 2]! & 1) !== 0;
    this.runCount = this.dv.getUint16(this.p + 3);
    this.runsLeft = this.runCount;
    this.p += 5;
    return true;
  }

  nextRun(): boolean {
    if (this.runsLeft === 0) return false;
    this.runsLeft--;
    const dv = this.dv;
    let p = this.p;
    this.col = dv.getUint16(p);
    this.cells = dv.getUint16(p + 2);
    this.attrs = dv.getUint16(p + 4);
    this.fg = dv.getUint32(p + 6);
    this.bg = dv.getUint32(p + 10);
    p += 14;
    const tl = dv.getUint16(p);
    this.text = decodeUtf8(this.bytes.subarray(p + 2, p + 2 + tl)) ?? '';
    p += 2 + tl;
    if (this.attrs & RunAttr.hasChars) {
      const n = dv.getUint16(p);
      this.charLengths = this.bytes.subarray(p + 2, p + 2 + n);
      p += 2 + n;
    } else {
      this.charLengths = null;
    }
    if (this.attrs & RunAttr.hasLink) {
      const ll = dv.getUint16(p);
      this.link = decodeUtf8(this.bytes.subarray(p + 2, p + 2 + ll)) ?? '';
      p += 2 + ll;
    } else {
      this.link = null;
    }
    this.p = p;
    return true;
  }

  /** The current run as a plain object (tests and simple clients). */
  run(): WireRun {
    const a = this.attrs;
    const run: WireRun = {
      col: this.col, cells: this.cells, text: this.text, cellWidth: a & RunAttr.wide ? 2 : 1,
      fg: unpackColor(this.fg), bg: unpackColor(this.bg),
      bold: !!(a & RunAttr.bold), italic: !!(a & RunAttr.italic), dim: !!(a & RunAttr.dim),
      underline: UNDERLINES[(a & RunAttr.underlineMask) >> RunAttr.underlineShift] ?? 'single',
      strikethrough: !!(a & RunAttr.strikethrough), overline: !!(a & RunAttr.overline),
      inverse: !!(a & RunAttr.inverse), invisible: !!(a & RunAttr.invisible), blink: !!(a & RunAttr.blink),
    };
    if (this.charLengths) {
      const chars: string[] = [];
      let at = 0;
      for (const n of this.charLengths) {
        chars.push(this.text.slice(at, at + n));
        at += n;
      }
      run.chars = chars;
    }
    if (this.link !== null) run.link = this.link;
    return run;
  }
}

/** Checks rows [p, …) of a body: every length in bounds, rows below `maxRows`, runs inside `cols`. */
function checkRows(b: Uint8Array, dv: DataView, p: number, count: number, cols: number, maxRows: number): number {
  const need = (n: number, what: string): void => {
    if (p + n > b.length) throw new Malformed(`${what} at byte ${p} runs past the end (${b.length} bytes)`);
  };
  for (let i = 0; i < count; i++) {
    need(5, `row ${i}`);
    const y = dv.getUint16(p);
    if (y >= maxRows) throw new Malformed(`row ${i} has index ${y}, outside ${maxRows} rows`);
    const runs = dv.getUint16(p + 3);
    p += 5;
    for (let r = 0; r < runs; r++) {
      need(16, `run ${r} of row ${y}`);
      const col = dv.getUint16(p);
      const cells = dv.getUint16(p + 2);
      const attrs = dv.getUint16(p + 4);
      if (col + cells > cols) throw new Malformed(`run ${r} of row ${y} covers columns ${col}..${col + cells - 1}, past ${cols} columns`);
      const tl = dv.getUint16(p + 14);
      p += 16;
      need(tl, `the text of run ${r} of row ${y}`);
      if (decodeUtf8(b.subarray(p, p + tl)) === null) throw new Malformed(`the text of run ${r} of row ${y} is not valid UTF-8`);
      p += tl;
      if (attrs & RunAttr.hasChars) {
        need(2, `the character lengths of run ${r} of row ${y}`);
        const n = dv.getUint16(p);
        p += 2;
        need(n, `the character lengths of run ${r} of row ${y}`);
        p += n;
      }
      if (attrs & RunAttr.hasLink) {
        need(2, `the link of run ${r} of row ${y}`);
        const ll = dv.getUint16(p);
        p += 2;
        need(ll, `the link of run ${r} of row ${y}`);
        p += ll;
      }
    }
  }
  if (p !== b.length) throw new Malformed(`${b.length - p} stray bytes after the last row`);
  return p;
}

/** Validates a frame body (what MessageDecoder hands out: after the kind byte) and returns its header and a row reader. */
export function readFrame(body: Uint8Array): { header: FrameHeader; reader: FrameReader } | FrameDecodeError {
  try {
    const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const FIXED = 4 + 4 + 1 + 2 + 2 + 2 + 2 + 1 + 2 + 1 + 4 + 1 + 4 + 2;
    if (body.length < FIXED) throw new Malformed(`a frame of ${body.length} bytes is shorter than its ${FIXED}-byte header`);
    let p = 0;
    const view = dv.getUint32(p);
    const seq = dv.getUint32(p + 4);
    const flags = body[p + 8]!;
    const cols = dv.getUint16(p + 9);
    const rows = dv.getUint16(p + 11);
    const cx = dv.getUint16(p + 13);
    const cy = dv.getUint16(p + 15);
    const shape = CURSOR_SHAPES[body[p + 17]!];
    const modes = dv.getUint16(p + 18);
    const state = WIRE_STATES[body[p + 20]!];
    const exitCode = dv.getInt32(p + 21);
    const signal = body[p + 25]!;
    const scrollbackLength = dv.getUint32(p + 26);
    p += 30;
    if (cols < 1 || cols > MAX_COLS || rows < 1 || rows > MAX_ROWS) throw new Malformed(`bad size ${cols}x${rows} (1..${MAX_COLS} x 1..${MAX_ROWS})`);
    if (!shape) throw new Malformed(`unknown cursor shape ${body[17]}`);
    if (!state) throw new Malformed(`unknown session state ${body[20]}`);
    const mouse = MOUSE_TRACKING[modes >> ModeBit.mouseShift];
    if (!mouse) throw new Malformed(`unknown mouse tracking mode ${modes >> ModeBit.mouseShift}`);
    const tl = dv.getUint16(p);
    if (p + 2 + tl + 2 > body.length) throw new Malformed(`the title (${tl} bytes) runs past the end`);
    const title = decodeUtf8(body.subarray(p + 2, p + 2 + tl));
    if (title === null) throw new Malformed('the title is not valid UTF-8');
    p += 2 + tl;
    const rowCount = dv.getUint16(p);
    p += 2;
    if (rowCount > rows) throw new Malformed(`${rowCount} rows in a frame of ${rows} rows`);
    checkRows(body, dv, p, rowCount, cols, rows);
    const header: FrameHeader = {
      view, seq, full: !!(flags & FrameFlag.full), cols, rows,
      cursor: { x: cx, y: cy, shape, blinking: !!(flags & FrameFlag.cursorBlink), visible: !!(flags & FrameFlag.cursorVisible) },
      modes: {
        applicationCursorKeys: !!(modes & ModeBit.appCursor), applicationKeypad: !!(modes & ModeBit.appKeypad),
        bracketedPaste: !!(modes & ModeBit.bracketedPaste), sendFocus: !!(modes & ModeBit.sendFocus),
        altScreen: !!(modes & ModeBit.altScreen), mouseTracking: mouse,
      },
      state,
      exit: flags & FrameFlag.exited ? (signal ? { exitCode, signal } : { exitCode }) : null,
      scrollbackLength,
      title,
    };
    return { header, reader: new FrameReader(body, p, rowCount) };
  } catch (err) {
    if (err instanceof Malformed) return { kind: 'error', message: `malformed frame: ${err.message}` };
    throw err;
  }
}

/** Validates a rows body (after the kind byte) and returns its header and a row reader. */
export function readRows(body: Uint8Array): { header: RowsHeader; reader: FrameReader } | FrameDecodeError {
  try {
    const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const FIXED = 4 + 4 + 4 + 2 + 2;
    if (body.length < FIXED) throw new Malformed(`a rows message of ${body.length} bytes is shorter than its ${FIXED}-byte header`);
    const header: RowsHeader = { id: dv.getUint32(0), first: dv.getUint32(4), total: dv.getUint32(8), cols: dv.getUint16(12) };
    const count = dv.getUint16(14);
    if (header.cols < 1 || header.cols > MAX_COLS) throw new Malformed(`bad width ${header.cols}`);
    checkRows(body, dv, FIXED, count, header.cols, 0x10000);
    return { header, reader: new FrameReader(body, FIXED, count) };
  } catch (err) {
    if (err instanceof Malformed) return { kind: 'error', message: `malformed rows message: ${err.message}` };
    throw err;
  }
}

/** A decoded frame as plain objects: for tests and clients that do not paint incrementally. */
export interface DecodedFrame {
  header: FrameHeader;
  rows: Array<{ y: number; wrapped: boolean; runs: WireRun[] }>;
}

export function decodeFrame(body: Uint8Array): DecodedFrame | FrameDecodeError {
  const r = readFrame(body);
  if ('kind' in r) return r;
  return { header: r.header, rows: collectRows(r.reader) };
}

export function collectRows(reader: FrameReader): Array<{ y: number; wrapped: boolean; runs: WireRun[] }> {
  const rows: Array<{ y: number; wrapped: boolean; runs: WireRun[] }> = [];
  reader.rewind();
  while (reader.nextRow()) {
    const runs: WireRun[] = [];
    while (reader.nextRun()) runs.push(reader.run());
    rows.push({ y: reader.y, wrapped: reader.wrapped, runs });
  }
  return rows;
}

/** A row's text from its runs, cells past the last run left out (what a screen reader or a test wants). */
export function rowText(runs: readonly WireRun[]): string {
  let out = '';
  let col = 0;
  for (const r of runs) {
    if (r.col > col) out += ' '.repeat(r.col - col);
    out += r.text;
    col = r.col + r.cells;
  }
  return out;
}
