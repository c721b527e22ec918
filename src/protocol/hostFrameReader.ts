// Reads host frames: validates a whole frame or rows message in one pass, then hands out its runs
// through one reused FrameReader (no object per cell), so a painter walks them without allocating.
// Pure (no Node modules); big-endian.
import { decodeUtf8 } from './hostFraming';
import {
  CURSOR_SHAPES,
  FrameFlag,
  MAX_COLS,
  MAX_ROWS,
  ModeBit,
  MOUSE_TRACKING,
  RunAttr,
  UNDERLINES,
  unpackColor,
  WIRE_STATES,
  type FrameHeader,
  type RowsHeader,
  type WireRun,
} from './hostFrameFormat';

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
      col: this.col,
      cells: this.cells,
      text: this.text,
      cellWidth: a & RunAttr.wide ? 2 : 1,
      fg: unpackColor(this.fg),
      bg: unpackColor(this.bg),
      bold: !!(a & RunAttr.bold),
      italic: !!(a & RunAttr.italic),
      dim: !!(a & RunAttr.dim),
      underline: UNDERLINES[(a & RunAttr.underlineMask) >> RunAttr.underlineShift] ?? 'single',
      strikethrough: !!(a & RunAttr.strikethrough),
      overline: !!(a & RunAttr.overline),
      inverse: !!(a & RunAttr.inverse),
      invisible: !!(a & RunAttr.invisible),
      blink: !!(a & RunAttr.blink),
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

/** The scroll offset and the selection spans after a frame's title. */
function readScrollAndSelection(body: Uint8Array, dv: DataView, at: number, cols: number, rows: number) {
  let p = at;
  if (p + 4 + 2 > body.length) throw new Malformed('the scroll offset runs past the end');
  const scrollOffset = dv.getUint32(p);
  const spans = dv.getUint16(p + 4);
  p += 6;
  if (spans > rows) throw new Malformed(`${spans} selection spans in a frame of ${rows} rows`);
  if (p + spans * 6 + 2 > body.length) throw new Malformed(`the ${spans} selection spans run past the end`);
  const selection: Array<{ row: number; start: number; end: number }> = [];
  for (let i = 0; i < spans; i++, p += 6) {
    const span = { row: dv.getUint16(p), start: dv.getUint16(p + 2), end: dv.getUint16(p + 4) };
    if (span.row >= rows || span.start > span.end || span.end > cols)
      throw new Malformed(`selection span ${i} (row ${span.row}, ${span.start}..${span.end}) is outside ${cols}x${rows}`);
    selection.push(span);
  }
  return { scrollOffset, selection, end: p };
}

/** The fixed-size start of a frame body, checked: the size in range, the cursor shape, state and mouse mode known. */
function readFixedHeader(body: Uint8Array, dv: DataView) {
  const FIXED = 4 + 4 + 1 + 2 + 2 + 2 + 2 + 1 + 2 + 1 + 4 + 1 + 4 + 2;
  if (body.length < FIXED) throw new Malformed(`a frame of ${body.length} bytes is shorter than its ${FIXED}-byte header`);
  const view = dv.getUint32(0);
  const seq = dv.getUint32(4);
  const flags = body[8]!;
  const cols = dv.getUint16(9);
  const rows = dv.getUint16(11);
  const cx = dv.getUint16(13);
  const cy = dv.getUint16(15);
  const shape = CURSOR_SHAPES[body[17]!];
  const modes = dv.getUint16(18);
  const state = WIRE_STATES[body[20]!];
  const exitCode = dv.getInt32(21);
  const signal = body[25]!;
  const scrollbackLength = dv.getUint32(26);
  if (cols < 1 || cols > MAX_COLS || rows < 1 || rows > MAX_ROWS) throw new Malformed(`bad size ${cols}x${rows} (1..${MAX_COLS} x 1..${MAX_ROWS})`);
  if (!shape) throw new Malformed(`unknown cursor shape ${body[17]}`);
  if (!state) throw new Malformed(`unknown session state ${body[20]}`);
  const mouse = MOUSE_TRACKING[modes >> ModeBit.mouseShift];
  if (!mouse) throw new Malformed(`unknown mouse tracking mode ${modes >> ModeBit.mouseShift}`);
  return { view, seq, flags, cols, rows, cx, cy, shape, modes, mouse, state, exitCode, signal, scrollbackLength, end: 30 };
}

/** Validates a frame body (what MessageDecoder hands out: after the kind byte) and returns its header and a row reader. */
export function readFrame(body: Uint8Array): { header: FrameHeader; reader: FrameReader } | FrameDecodeError {
  try {
    const dv = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const f = readFixedHeader(body, dv);
    const { cols, rows, flags, modes } = f;
    let p = f.end;
    const tl = dv.getUint16(p);
    if (p + 2 + tl + 2 > body.length) throw new Malformed(`the title (${tl} bytes) runs past the end`);
    const title = decodeUtf8(body.subarray(p + 2, p + 2 + tl));
    if (title === null) throw new Malformed('the title is not valid UTF-8');
    p += 2 + tl;
    const { scrollOffset, selection, end } = readScrollAndSelection(body, dv, p, cols, rows);
    p = end;
    const rowCount = dv.getUint16(p);
    p += 2;
    if (rowCount > rows) throw new Malformed(`${rowCount} rows in a frame of ${rows} rows`);
    checkRows(body, dv, p, rowCount, cols, rows);
    const header: FrameHeader = {
      view: f.view,
      seq: f.seq,
      full: !!(flags & FrameFlag.full),
      cols,
      rows,
      cursor: { x: f.cx, y: f.cy, shape: f.shape, blinking: !!(flags & FrameFlag.cursorBlink), visible: !!(flags & FrameFlag.cursorVisible) },
      modes: {
        applicationCursorKeys: !!(modes & ModeBit.appCursor),
        applicationKeypad: !!(modes & ModeBit.appKeypad),
        bracketedPaste: !!(modes & ModeBit.bracketedPaste),
        sendFocus: !!(modes & ModeBit.sendFocus),
        altScreen: !!(modes & ModeBit.altScreen),
        mouseTracking: f.mouse,
      },
      state: f.state,
      exit: flags & FrameFlag.exited ? (f.signal ? { exitCode: f.exitCode, signal: f.signal } : { exitCode: f.exitCode }) : null,
      scrollbackLength: f.scrollbackLength,
      scrollOffset,
      selection,
      hasSelection: !!(flags & FrameFlag.hasSelection),
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
