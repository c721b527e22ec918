// The frame encoding the native grid painter (native/gridpaint) executes: a flat Int32Array of
// drawing operations plus one string their text operations index. One call hands a whole frame
// to C++, where text is drawn from a glyph cache; building it costs a few array writes per run.

/** Operation codes; each is followed by a fixed number of int32 operands (OPERANDS). */
export const GridOp = {
  /** x y w h rgb: a rectangle in logical pixels. */
  fill: 1,
  /** col row cellWidth font rgb start len: text whose every UTF-16 unit is one character of
   *  cellWidth cells (no surrogates). */
  text: 2,
  /** col row cells font rgb start len: one character of any length (surrogate pairs, marks). */
  cluster: 3,
  /** x1 y1 x2 y2 width rgb */
  line: 4,
  /** x y w h startAngle16 spanAngle16 width rgb (angles in 1/16 degree, as Qt's drawArc). */
  arc: 5,
  /** Draws the text queued so far, so what follows paints over it (the cursor). */
  flush: 6,
  /** col row font rgb start len: free text laid out by Qt (the input method's pre-edit). */
  string: 7,
} as const;

export const OPERANDS: Readonly<Record<number, number>> = { 1: 5, 2: 7, 3: 7, 4: 6, 5: 8, 6: 0, 7: 6 };

/** Font slots, as the painter's fonts: bit 0 bold, bit 1 italic. */
export type FontSlot = 0 | 1 | 2 | 3;

/** Ints a 200×50 frame of short runs needs, so a typical frame never grows the array. */
const INITIAL_INTS = 1 << 15;

/** Each operation writes its operands one by one, on purpose: a shared `push(...operands)` would
 *  allocate an array per run on the paint path, for every frame. */
export class GridOps {
  ops = new Int32Array(INITIAL_INTS);
  /** Ints used in `ops`. */
  length = 0;
  private pieces: string[] = [];
  private textLength = 0;

  /** Starts a new frame (the arrays are reused). */
  reset(): void {
    this.length = 0;
    this.pieces.length = 0;
    this.textLength = 0;
  }

  /** Every text operand of the frame, concatenated. */
  get allText(): string {
    if (this.pieces.length > 1) this.pieces = [this.pieces.join('')];
    return this.pieces[0] ?? '';
  }

  fill(x: number, y: number, w: number, h: number, rgb: number): void {
    const o = this.reserve(6);
    o[this.length++] = GridOp.fill;
    o[this.length++] = x;
    o[this.length++] = y;
    o[this.length++] = w;
    o[this.length++] = h;
    o[this.length++] = rgb;
  }

  text(col: number, row: number, cellWidth: 1 | 2, font: FontSlot, rgb: number, text: string): void {
    this.textOp(GridOp.text, col, row, cellWidth, font, rgb, text);
  }

  cluster(col: number, row: number, cells: number, font: FontSlot, rgb: number, text: string): void {
    this.textOp(GridOp.cluster, col, row, cells, font, rgb, text);
  }

  line(x1: number, y1: number, x2: number, y2: number, width: number, rgb: number): void {
    const o = this.reserve(7);
    o[this.length++] = GridOp.line;
    o[this.length++] = x1;
    o[this.length++] = y1;
    o[this.length++] = x2;
    o[this.length++] = y2;
    o[this.length++] = width;
    o[this.length++] = rgb;
  }

  arc(x: number, y: number, w: number, h: number, start16: number, span16: number, width: number, rgb: number): void {
    const o = this.reserve(9);
    o[this.length++] = GridOp.arc;
    o[this.length++] = x;
    o[this.length++] = y;
    o[this.length++] = w;
    o[this.length++] = h;
    o[this.length++] = start16;
    o[this.length++] = span16;
    o[this.length++] = width;
    o[this.length++] = rgb;
  }

  flush(): void {
    this.reserve(1)[this.length++] = GridOp.flush;
  }

  string(col: number, row: number, font: FontSlot, rgb: number, text: string): void {
    const o = this.reserve(7);
    o[this.length++] = GridOp.string;
    o[this.length++] = col;
    o[this.length++] = row;
    o[this.length++] = font;
    o[this.length++] = rgb;
    o[this.length++] = this.addText(text);
    o[this.length++] = text.length;
  }

  private textOp(op: number, col: number, row: number, cells: number, font: FontSlot, rgb: number, text: string): void {
    const o = this.reserve(8);
    o[this.length++] = op;
    o[this.length++] = col;
    o[this.length++] = row;
    o[this.length++] = cells;
    o[this.length++] = font;
    o[this.length++] = rgb;
    o[this.length++] = this.addText(text);
    o[this.length++] = text.length;
  }

  private addText(text: string): number {
    const at = this.textLength;
    this.pieces.push(text);
    this.textLength += text.length;
    return at;
  }

  private reserve(n: number): Int32Array {
    if (this.length + n > this.ops.length) {
      const bigger = new Int32Array(Math.max(this.ops.length * 2, this.length + n));
      bigger.set(this.ops.subarray(0, this.length));
      this.ops = bigger;
    }
    return this.ops;
  }
}

/** Reads an encoded frame back as plain records (for tests and diagnostics). */
export function decodeGridOps(ops: Int32Array, length: number, text: string): Array<{ op: number; args: number[]; text?: string }> {
  const out: Array<{ op: number; args: number[]; text?: string }> = [];
  for (let i = 0; i < length;) {
    const op = ops[i]!;
    const n = OPERANDS[op];
    if (n === undefined) throw new Error(`unknown grid op ${op} at ${i}`);
    const args = Array.from(ops.subarray(i + 1, i + 1 + n));
    const rec: { op: number; args: number[]; text?: string } = { op, args };
    if (op === GridOp.text || op === GridOp.cluster) rec.text = text.slice(args[5], args[5]! + args[6]!);
    if (op === GridOp.string) rec.text = text.slice(args[4], args[4]! + args[5]!);
    out.push(rec);
    i += 1 + n;
  }
  return out;
}
