// An emulator's state as the escape sequences that rebuild it in a fresh emulator of the same
// size: the last `scrollback` lines of history and the screen, the alternate screen when it is
// the active one, each buffer's cursor, the pen, and xterm's modes. A checkpoint of a held session
// stores it, and a phone's live view starts from it.
//
// It reads xterm's cell arrays directly (three 32-bit words per cell: the character and its width,
// the foreground colour with half the flags, the background colour with the other half), as
// xterm's own renderers do, and writes UTF-8 into one reused array, kept in blocks of up to
// 64 KiB: a checkpoint writes those bytes to its file as they are, a phone's view gets them as a
// string. @xterm/addon-serialize, which this replaces, walks the public cell
// API and builds strings and arrays for every cell: 10,000 lines of per-character truecolor took it
// 700-900 ms and some 200 MB of garbage, all of it on the host's event loop, so a checkpoint
// taken just before a flood cost that flood a quarter of its throughput.
//
// How the rebuild works, row by row:
//  - a style change is one SGR that starts from a reset (`0;…`), so no state carries over wrongly;
//  - empty cells are skipped with a cursor move, or erased (ECH) in their background colour when
//    it is not the default;
//  - before a line feed the pen's background is the default again, because a line that scrolls in
//    is filled with the pen's background;
//  - a soft-wrapped row continues its predecessor by autowrap when the predecessor's last cell is
//    written (or a wide character did not fit in it) and the row starts with a character;
//    otherwise a filler character forces the wrap and is erased again. A row that scrolls in as
//    it wraps is blank in the wrapping character's background, which its empty cells then count on;
//  - the cursor goes back by absolute position (the last rows written are the screen), and a
//    cursor waiting to wrap at the right margin is put back by writing the last cell again.
// Lost on the way: hyperlink ids (OSC 8), DECSCA protection, a soft wrap whose start is older
// than the history kept (as with the addon), an empty cell's attributes other than its background
// (xterm gives them to the half left of a wide character that was overwritten; a half left over
// where characters were inserted or deleted through a wide one comes back empty), and a cursor
// waiting to wrap at the margin over an empty cell (it comes back on the last column).
import type { Terminal } from '@xterm/headless';

/** The part of xterm's buffer line the serializer reads (xterm 6's layout). */
interface RawLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, { _ext: number } | undefined>;
  isWrapped: boolean;
  length: number;
}

interface RawBuffer {
  lines: { length: number; get(i: number): RawLine | undefined };
  ybase: number;
  x: number;
  y: number;
}

interface RawCore {
  buffers: { normal: RawBuffer; alt: RawBuffer; active: RawBuffer };
  _inputHandler: { _curAttrData: { fg: number; bg: number; extended: { _ext: number } } };
}

// Cell word layout (xterm's common/buffer/Constants.ts).
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const HAS_CONTENT = 0x3fffff;
const WIDTH_SHIFT = 22;
/** Colour mode and colour, in the foreground, background and underline-colour words. */
const COLOR_MASK = 0x3ffffff;
const CM_MASK = 0x3000000;
const CM_P16 = 0x1000000;
const CM_P256 = 0x2000000;
const CM_RGB = 0x3000000;
// Foreground flags.
const INVERSE = 0x4000000;
const BOLD = 0x8000000;
const UNDERLINE = 0x10000000;
const BLINK = 0x20000000;
const INVISIBLE = 0x40000000;
const STRIKETHROUGH = 0x80000000;
// Background flags.
const ITALIC = 0x4000000;
const DIM = 0x8000000;
const HAS_EXTENDED = 0x10000000;
const OVERLINE = 0x40000000;
/** The background bits a style compares: colour and the flags SGR sets (not HAS_EXTENDED,
 *  which follows from the extended word, nor DECSCA protection, which SGR cannot set). */
const BG_STYLE = COLOR_MASK | ITALIC | DIM | OVERLINE;
/** Extended word: underline style (bits 26-28) and underline colour (mode and colour). */
const UL_STYLE_SHIFT = 26;
const UL_STYLE_MASK = 0x7;
/** The extended word's bits a style compares (not a hyperlink's id nor the underline's phase). */
const EXT_STYLE = (UL_STYLE_MASK << UL_STYLE_SHIFT) | COLOR_MASK;

const ESC = 0x1b;
const LBRACKET = 0x5b;

/** UTF-8 bytes collected in a reused array and kept in blocks (a block never ends inside a
 *  character), which a checkpoint writes as they are and a string is decoded from. */
class Output {
  private readonly buf = new Uint8Array(65_536);
  private n = 0;
  private readonly blocks: Uint8Array[] = [];

  /** One ASCII byte. */
  unit(c: number): void {
    if (this.n === this.buf.length) this.flush();
    this.buf[this.n++] = c;
  }

  codePoint(cp: number): void {
    if (cp < 0x80) return this.unit(cp);
    // Room for the whole sequence: a block never ends inside a character.
    if (this.n + 4 > this.buf.length) this.flush();
    const b = this.buf;
    if (cp < 0x800) {
      b[this.n++] = 0xc0 | (cp >> 6);
    } else if (cp < 0x10000) {
      b[this.n++] = 0xe0 | (cp >> 12);
      b[this.n++] = 0x80 | ((cp >> 6) & 0x3f);
    } else {
      b[this.n++] = 0xf0 | (cp >> 18);
      b[this.n++] = 0x80 | ((cp >> 12) & 0x3f);
      b[this.n++] = 0x80 | ((cp >> 6) & 0x3f);
    }
    b[this.n++] = 0x80 | (cp & 0x3f);
  }

  text(s: string): void {
    for (const ch of s) this.codePoint(ch.codePointAt(0)!);
  }

  int(v: number): void {
    if (v >= 10) this.int(Math.floor(v / 10));
    this.unit(0x30 + (v % 10));
  }

  /** CSI, then `n` unless it is 1 (the default of every sequence written with this), then `final`. */
  csi(n: number, final: string): void {
    this.unit(ESC);
    this.unit(LBRACKET);
    if (n !== 1) this.int(n);
    this.unit(final.charCodeAt(0));
  }

  /** The blocks written so far (more may be written after). */
  done(): Uint8Array[] {
    this.flush();
    return this.blocks.slice();
  }

  /** Adds blocks written earlier (cached). */
  append(blocks: readonly Uint8Array[]): void {
    this.flush();
    this.blocks.push(...blocks);
  }

  private flush(): void {
    if (this.n === 0) return;
    this.blocks.push(this.buf.slice(0, this.n));
    this.n = 0;
  }
}

/** A style: the foreground word, the background word's style bits, the extended word. */
interface Pen {
  fg: number;
  bg: number;
  ext: number;
}

function extOf(line: RawLine, x: number, bg: number): number {
  return bg & HAS_EXTENDED ? (line._extendedAttrs[x]?._ext ?? 0) : 0;
}

/** Writes one SGR colour: `base` is 30 (foreground), 40 (background); 58 is the underline colour. */
function color(out: Output, word: number, base: 30 | 40 | 58): void {
  const mode = word & CM_MASK;
  // A palette colour is the low byte; xterm leaves an earlier RGB colour's bits above it.
  const c = mode === CM_RGB ? word & 0xffffff : word & 0xff;
  out.unit(0x3b); // ;
  if (mode === CM_P16 && base !== 58) out.int(c < 8 ? base + c : base + 60 + (c - 8));
  else if (mode === CM_P16 || mode === CM_P256) {
    out.int(base === 58 ? 58 : base + 8);
    out.text(';5;');
    out.int(c);
  } else if (mode === CM_RGB) {
    out.int(base === 58 ? 58 : base + 8);
    out.text(';2;');
    out.int((c >>> 16) & 0xff);
    out.unit(0x3b);
    out.int((c >>> 8) & 0xff);
    out.unit(0x3b);
    out.int(c & 0xff);
  }
}

/** Writes the SGR that sets the pen to (fg, bg, ext), starting from a reset. */
function writePen(out: Output, fg: number, bg: number, ext: number): void {
  out.unit(ESC);
  out.unit(LBRACKET);
  out.unit(0x30); // 0
  if (fg & BOLD) out.text(';1');
  if (bg & DIM) out.text(';2');
  if (bg & ITALIC) out.text(';3');
  if (fg & UNDERLINE) {
    const style = (ext >>> UL_STYLE_SHIFT) & UL_STYLE_MASK;
    if (style > 1) {
      out.text(';4:');
      out.int(style);
    } else out.text(';4');
  }
  if (fg & BLINK) out.text(';5');
  if (fg & INVERSE) out.text(';7');
  if (fg & INVISIBLE) out.text(';8');
  if (fg & STRIKETHROUGH) out.text(';9');
  if (bg & OVERLINE) out.text(';53');
  if (fg & CM_MASK) color(out, fg, 30);
  if (bg & CM_MASK) color(out, bg, 40);
  if (ext & CM_MASK) color(out, ext, 58);
  out.unit(0x6d); // m
}

/** Rows serializeScreenSteps writes between two pauses: 110 columns of them took ~0.1 ms here
 *  before V8 optimized the serializer and ~0.02 ms after, so a caller's slices can end close to
 *  whatever time it allows them. */
export const ROWS_PER_STEP = 50;

/** Serializes rows [start, end] of one buffer; the cursor starts at the left of a blank row. */
class BufferWriter {
  /** The rebuild's cursor column (cols: waiting to wrap). */
  private x = 0;
  /** The background colour the rebuild's current row is blank in: the default, or the pen's
   *  background when the row scrolled in as the row above wrapped into it. */
  private fill: number;

  /**
   * `pen`: the rebuild's pen when this buffer starts (it carries over into the alternate screen);
   * `blank`: the background colour its rows are blank in before anything is written (the
   * alternate screen is cleared in the pen's).
   */
  constructor(
    private readonly out: Output,
    private readonly cols: number,
    private readonly screenRows: number,
    readonly pen: Pen = { fg: 0, bg: 0, ext: 0 },
    private readonly blank = 0,
  ) {
    this.fill = blank;
  }

  /** Writes the rows, pausing (a yield) after every ROWS_PER_STEP of them. */
  *rows(buffer: RawBuffer, start: number, end: number): Generator<void, void, void> {
    for (let y = start; y <= end; y++) {
      const line = buffer.lines.get(y);
      if (line) this.row(line);
      if (y === end) break;
      // The rebuild writes row y on its screen row min(y - start, rows - 1): going down from the
      // last screen row scrolls a new blank row in, which the pen's background fills.
      const scrolls = y - start >= this.screenRows - 1;
      const next = buffer.lines.get(y + 1);
      if (!(next?.isWrapped && line && this.wrapInto(line, next, scrolls))) this.lineFeed();
      if (!scrolls) this.fill = this.blank;
      if ((y - start) % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield;
    }
  }

  /** Puts the cursor back where the buffer has it (`y` on the screen, the last rows written) and
   *  sets the pen to the emulator's current attributes (what the next character is written with). */
  cursorAndPen(buffer: RawBuffer, attr: { fg: number; bg: number; extended: { _ext: number } }): void {
    const y = buffer.y;
    if (buffer.x < this.cols) this.moveTo(y, buffer.x);
    else {
      // Waiting to wrap at the margin: writing the last cell again leaves the cursor in that state.
      const line = buffer.lines.get(buffer.ybase + y);
      const d = line?._data;
      let at = this.cols - 1;
      if (d && at > 0 && d[at * 3]! >>> WIDTH_SHIFT === 0 && d[(at - 1) * 3]! >>> WIDTH_SHIFT === 2) at--;
      if (line && d && (d[at * 3]! & HAS_CONTENT) !== 0) {
        this.moveTo(y, at);
        this.cell(line, at);
      }
      // The last cell is empty (erased after it was written): no sequence leaves the cursor
      // waiting at the margin over an empty cell (xterm's DECRC brings a saved one back to the
      // last column), so it goes on the last column.
      else this.moveTo(y, this.cols - 1);
    }
    // The foreground unsigned, as the cell words are (the input handler's may carry a sign).
    this.penTo(attr.fg >>> 0, attr.bg & BG_STYLE, attr.bg & HAS_EXTENDED ? attr.extended._ext & EXT_STYLE : 0);
  }

  /** CUP to a screen row and column (0-based). */
  private moveTo(y: number, x: number): void {
    const out = this.out;
    out.unit(ESC);
    out.unit(LBRACKET);
    out.int(y + 1);
    out.unit(0x3b);
    out.int(x + 1);
    out.unit(0x48); // H
    this.x = x;
  }

  private row(line: RawLine): void {
    const d = line._data;
    const n = Math.min(line.length, this.cols);
    /** Empty cells with the default background, not yet skipped over. */
    let gap = 0;
    for (let x = 0; x < n; x++) {
      const content = d[x * 3]!;
      // The right half of the wide character before it; a half left over where characters were
      // inserted or deleted through a wide one is taken for an empty cell.
      if (content >>> WIDTH_SHIFT === 0 && x > 0 && d[(x - 1) * 3]! >>> WIDTH_SHIFT === 2) continue;
      if ((content & HAS_CONTENT) !== 0) {
        if (gap > 0) {
          this.out.csi(gap, 'C');
          this.x += gap;
          gap = 0;
        }
        this.cell(line, x);
        continue;
      }
      const bgColor = d[x * 3 + 2]! & COLOR_MASK;
      if (bgColor === this.fill) {
        gap++;
        continue;
      }
      // A run of empty cells in another background colour: erased in it, then skipped.
      if (gap > 0) {
        this.out.csi(gap, 'C');
        this.x += gap;
        gap = 0;
      }
      let run = 1;
      while (
        x + run < n &&
        (d[(x + run) * 3]! & HAS_CONTENT) === 0 &&
        d[(x + run) * 3]! >>> WIDTH_SHIFT !== 0 &&
        (d[(x + run) * 3 + 2]! & COLOR_MASK) === bgColor
      )
        run++;
      // Only the background counts for an erase.
      if ((this.pen.bg & COLOR_MASK) !== bgColor) this.penTo(0, bgColor, 0);
      this.out.csi(run, 'X');
      x += run - 1;
      if (x + 1 < n) {
        this.out.csi(run, 'C');
        this.x += run;
      }
    }
  }

  /** Writes the character at `x` in its style. */
  private cell(line: RawLine, x: number): void {
    const d = line._data;
    const content = d[x * 3]!;
    const fg = d[x * 3 + 1]!;
    const bgWord = d[x * 3 + 2]!;
    const bg = bgWord & BG_STYLE;
    const ext = extOf(line, x, bgWord) & EXT_STYLE;
    this.penTo(fg, bg, ext);
    if (content & IS_COMBINED) this.out.text(line._combined[x] ?? ' ');
    else this.out.codePoint(content & CODEPOINT_MASK);
    this.x += content >>> WIDTH_SHIFT;
  }

  /** Sets the rebuild's pen, with one SGR when it differs from the current one. */
  private penTo(fg: number, bg: number, ext: number): void {
    const pen = this.pen;
    if (pen.fg === fg && pen.bg === bg && pen.ext === ext) return;
    pen.fg = fg;
    pen.bg = bg;
    pen.ext = ext;
    writePen(this.out, fg, bg, ext);
  }

  private plainPen(): void {
    this.penTo(0, 0, 0);
  }

  private lineFeed(): void {
    // A row that scrolls in is filled with the pen's background.
    if (this.pen.bg & COLOR_MASK) this.plainPen();
    this.out.text('\r\n');
    this.x = 0;
    this.fill = 0;
  }

  /**
   * Continues `line` into `next`, a soft wrap of it, by writing on into the next row; false when
   * the caller is to start the next row with a line feed (the wrap is not recreated).
   */
  private wrapInto(line: RawLine, next: RawLine, scrolls: boolean): boolean {
    const out = this.out;
    const cols = this.cols;
    const d = line._data;
    const n = next._data;
    const nextWidth = n[0]! >>> WIDTH_SHIFT;
    if ((n[0]! & HAS_CONTENT) !== 0 && nextWidth !== 0) {
      // The next row's first character wraps by itself: when the cursor waits at the margin, or
      // when it is a wide character one column short of it (xterm then blanks the last column
      // in the character's own style, which the original's last cell must be).
      const last = (cols - 1) * 3;
      const atMargin = this.x === cols;
      const wideShort =
        this.x === cols - 1 &&
        nextWidth === 2 &&
        (d[last]! & HAS_CONTENT) === 0 &&
        d[last + 1] === n[1] &&
        (d[last + 2]! & BG_STYLE) === (n[2]! & BG_STYLE) &&
        extOf(line, cols - 1, d[last + 2]!) === extOf(next, 0, n[2]!);
      if (atMargin || wideShort) {
        this.x = 0;
        // A row that scrolls in as it wraps is blank in the style of the character that wrapped.
        this.fill = scrolls ? n[2]! & COLOR_MASK : this.blank;
        return true;
      }
    }
    this.plainPen();
    if (this.x === cols) {
      // Written to the margin, but the next row starts empty: a filler wraps, and is erased.
      out.text('_');
      out.csi(1, 'D');
      out.csi(1, 'X');
    } else {
      // The row ends short of the margin: fillers in its last cell and the next row's first
      // wrap it, then both are erased (the last cell in the background it had).
      if (this.x < cols - 1) out.csi(cols - 1 - this.x, 'C');
      out.text('__');
      out.csi(1, 'D');
      out.csi(1, 'X');
      out.csi(1, 'A');
      if (cols > 1) out.csi(cols - 1, 'C');
      const bgColor = d[(cols - 1) * 3 + 2]! & COLOR_MASK;
      if (bgColor !== 0) this.penTo(0, bgColor, 0);
      out.csi(1, 'X');
      this.plainPen();
      out.csi(1, 'B');
      if (cols > 1) out.csi(cols - 1, 'D');
    }
    this.x = 0;
    this.fill = scrolls ? 0 : this.blank;
    return true;
  }
}

/** xterm's modes that differ from a fresh emulator's, as the sequences that set them. */
function modes(term: Terminal): string {
  const m = term.modes;
  let s = '';
  if (m.applicationCursorKeysMode) s += '\x1b[?1h';
  if (m.applicationKeypadMode) s += '\x1b[?66h';
  if (m.bracketedPasteMode) s += '\x1b[?2004h';
  if (m.insertMode) s += '\x1b[4h';
  if (m.originMode) s += '\x1b[?6h';
  if (m.reverseWraparoundMode) s += '\x1b[?45h';
  if (m.sendFocusMode) s += '\x1b[?1004h';
  if (!m.wraparoundMode) s += '\x1b[?7l';
  const mouse = { none: '', x10: '\x1b[?9h', vt200: '\x1b[?1000h', drag: '\x1b[?1002h', any: '\x1b[?1003h' } as const;
  s += mouse[m.mouseTrackingMode];
  return s;
}

/**
 * What serializeScreen may reuse from one call to the next: the rows of the normal screen and its
 * history while a full-screen program has the alternate screen. Programs write to the active
 * screen only, so under a full-screen TUI the shell's history cannot change, and its checkpoints
 * need not serialize that history again (10,000 lines of colour: ~75 ms each time). Anything
 * that could change those rows drops the entry: leaving or entering the alternate screen, a resize
 * (a reflow), a reset (new buffers), trimmed history (a smaller scrollback setting).
 */
export class HistoryCache {
  private entry: {
    /** The buffer object and its line list, and their extent, when the rows were written. */
    lines: object;
    length: number;
    ybase: number;
    cols: number;
    rows: number;
    scrollback: number;
    blocks: Uint8Array[];
    pen: Pen;
  } | null = null;
  private readonly subs: Array<{ dispose(): void }>;
  /** Calls that reused the rows (tests and benches). */
  hits = 0;

  constructor(term: Terminal) {
    this.subs = [term.buffer.onBufferChange(() => (this.entry = null)), term.onResize(() => (this.entry = null))];
  }

  /** The rows written for these lines, and the pen after them, when still valid. */
  get(normal: RawBuffer, cols: number, rows: number, scrollback: number): { blocks: Uint8Array[]; pen: Pen } | null {
    const e = this.entry;
    if (!e) return null;
    const same =
      e.lines === normal.lines &&
      e.length === normal.lines.length &&
      e.ybase === normal.ybase &&
      e.cols === cols &&
      e.rows === rows &&
      e.scrollback === scrollback;
    if (!same) return null;
    this.hits++;
    return e;
  }

  put(normal: RawBuffer, cols: number, rows: number, scrollback: number, blocks: Uint8Array[], pen: Pen): void {
    this.entry = { lines: normal.lines, length: normal.lines.length, ybase: normal.ybase, cols, rows, scrollback, blocks, pen: { ...pen } };
  }

  dispose(): void {
    this.entry = null;
    for (const s of this.subs) s.dispose();
  }
}

/**
 * The emulator's state as escape sequences that rebuild it in a fresh emulator with the same
 * columns and rows: `scrollback` lines of history (at most), the screen, the alternate screen when
 * active, cursors, the pen and the modes. With a `cache`, the rows under an alternate screen are
 * written once for as long as they cannot change. Throws when the installed xterm lacks the
 * internals it reads (every round trip in its unit tests then fails). UTF-8, in blocks.
 */
export function serializeScreenBytes(term: Terminal, scrollback: number, cache?: HistoryCache): Uint8Array[] {
  const steps = serializeScreenSteps(term, scrollback, cache);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * serializeScreenBytes in steps: the generator pauses after every ROWS_PER_STEP rows, and its
 * return value is the blocks. A caller that lets other work run between steps (a checkpoint that
 * must not hold the host's loop through 10,000 lines) owns the promise that the emulator does not
 * change meanwhile: nothing parsed, no resize.
 */
export function* serializeScreenSteps(term: Terminal, scrollback: number, cache?: HistoryCache): Generator<void, Uint8Array[], void> {
  const core = (term as unknown as { _core?: RawCore })._core;
  if (!core?.buffers?.normal?.lines || !core._inputHandler?._curAttrData)
    throw new Error('serializeScreen: this xterm does not keep its buffers where expected');
  const out = new Output();
  const attr = core._inputHandler._curAttrData;
  const normal = core.buffers.normal;
  const altActive = core.buffers.active === core.buffers.alt;
  const total = normal.lines.length;
  const first = Math.max(0, total - Math.min(total, Math.max(0, scrollback) + term.rows));
  // The wraparound mode is set last (with the others): the rebuild writes with it on.
  const cached = altActive ? cache?.get(normal, term.cols, term.rows, scrollback) : null;
  const w = new BufferWriter(out, term.cols, term.rows, cached ? { ...cached.pen } : undefined);
  if (cached) out.append(cached.blocks);
  else {
    yield* w.rows(normal, first, total - 1);
    if (altActive && cache) cache.put(normal, term.cols, term.rows, scrollback, out.done(), w.pen);
  }
  w.cursorAndPen(normal, attr);
  if (altActive) {
    // The alternate screen is cleared in the pen's background as it is entered.
    out.text('\x1b[?1049h\x1b[H');
    const alt = new BufferWriter(out, term.cols, term.rows, w.pen, w.pen.bg & COLOR_MASK);
    yield* alt.rows(core.buffers.alt, 0, core.buffers.alt.lines.length - 1);
    alt.cursorAndPen(core.buffers.alt, attr);
  }
  out.text(modes(term));
  return out.done();
}

/** serializeScreenBytes as a string. */
export function serializeScreen(term: Terminal, scrollback: number, cache?: HistoryCache): string {
  const decoder = new TextDecoder();
  let s = '';
  for (const block of serializeScreenBytes(term, scrollback, cache)) s += decoder.decode(block);
  return s;
}
