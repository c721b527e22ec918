// The frame encoding the native painter executes: real emulator frames (CJK, emoji, combining
// marks, box drawing, styles, find matches, the cursor) turned into ops by GridPainter, decoded
// back and checked op by op — where text goes, in which colour and font, and what is geometry.
import { afterEach, describe, expect, it } from 'vitest';
import { GridOp, GridOps, decodeGridOps } from '../../../src/app/ui/terminal/gridOps';
import { GridPainter, type PaintState } from '../../../src/app/ui/terminal/gridPainter';
import type { CellFonts } from '../../../src/app/ui/terminal/cellFonts';
import { darkTheme } from '../../../src/terminal/common/theme';
import { createEmulator, type TestEmulator } from '../terminal/helpers';

/** Metrics like DejaVu Sans Mono 11 pt: a fractional advance, whole-pixel rows. */
const fonts = { cellW: 9.0156, cellH: 17, ascent: 13, underlinePos: 2, strikePos: 4, lineWidth: 1 } as unknown as CellFonts;
const idle: PaintState = { focused: true, blinkOn: true, preedit: '', highlights: [] };

let emu: TestEmulator | null = null;
afterEach(() => {
  emu?.dispose();
  emu = null;
});

async function encode(input: string, state: PaintState = idle, rows: Iterable<number> | 'all' = 'all') {
  emu = createEmulator(40, 6);
  await emu.write(input);
  const frame = emu.model.update().frame;
  const ops = new GridOps();
  new GridPainter(fonts, darkTheme).paint(ops, frame, rows, 400, 120, state);
  return decodeGridOps(ops.ops, ops.length, ops.allText);
}

const texts = (ops: ReturnType<typeof decodeGridOps>) => ops.filter((o) => o.op === GridOp.text || o.op === GridOp.cluster);

describe('grid encoding', () => {
  it('sends a plain row as one text op at its cells, after a full background fill', async () => {
    const ops = await encode('\x1b[?25lhello world');
    expect(ops[0]).toEqual({ op: GridOp.fill, args: [0, 0, 400, 120, darkTheme.background] });
    expect(texts(ops)).toEqual([{ op: GridOp.text, args: [0, 0, 1, 0, darkTheme.foreground, 0, 11], text: 'hello world' }]);
  });

  it('sends CJK as one text op of two-cell characters and astral emoji as cluster ops', async () => {
    const ops = texts(await encode('\x1b[?25l日本語x😀🎉'));
    expect(ops.map((o) => [o.op, o.args[0], o.args[2], o.text])).toEqual([
      [GridOp.text, 0, 2, '日本語'],
      [GridOp.text, 6, 1, 'x'],
      [GridOp.cluster, 7, 2, '😀'],
      [GridOp.cluster, 9, 2, '🎉'],
    ]);
  });

  it('keeps a combining mark in the cluster of its base character, the letters around it as text', async () => {
    const ops = texts(await encode('\x1b[?25lxae\u0301bc'));
    expect(ops.map((o) => [o.op, o.args[0], o.text])).toEqual([
      [GridOp.text, 0, 'xa'],
      [GridOp.cluster, 2, 'e\u0301'],
      [GridOp.text, 3, 'bc'],
    ]);
  });

  it('splits a run holding an emoji, box drawing and the find match at the right UTF-16 offsets', async () => {
    const ops = await encode('\x1b[?25lab😀cd─ef', { ...idle, highlights: [{ row: 0, start: 5, end: 7, current: true }] });
    expect(texts(ops).map((o) => [o.op, o.args[0], o.args[4], o.text])).toEqual([
      [GridOp.text, 0, darkTheme.foreground, 'ab'],
      [GridOp.cluster, 2, darkTheme.foreground, '😀'],
      [GridOp.text, 4, darkTheme.foreground, 'c'],
      [GridOp.text, 5, darkTheme.background, 'd'],
      [GridOp.text, 7, darkTheme.foreground, 'ef'],
    ]);
  });

  it('resolves styles: bold bright colour in the bold font, italic, inverse swaps colours', async () => {
    const ops = await encode('\x1b[?25l\x1b[1;31mB\x1b[0m\x1b[3;32mI\x1b[0m\x1b[7mR\x1b[0m');
    const t = texts(ops);
    expect(t[0]!.args.slice(3, 5)).toEqual([1, darkTheme.ansi[9]]);
    expect(t[1]!.args.slice(3, 5)).toEqual([2, darkTheme.ansi[2]]);
    expect(t[2]!.args.slice(3, 5)).toEqual([0, darkTheme.background]);
    // The inverse cell's background is the foreground colour, filled under the text.
    expect(ops).toContainEqual({ op: GridOp.fill, args: [18, 0, 9, 17, darkTheme.foreground] });
  });

  it('draws box drawing as geometry, not text, and the text around it as text', async () => {
    const ops = await encode('\x1b[?25la─b');
    expect(texts(ops).map((o) => o.text)).toEqual(['a', 'b']);
    // The horizontal line covers its whole cell (x 9..18) in the foreground colour.
    const covered = new Set<number>();
    for (const o of ops) {
      const [x, , w, , rgb] = o.args;
      if (o.op === GridOp.fill && rgb === darkTheme.foreground) for (let i = x!; i < x! + w!; i++) covered.add(i);
    }
    expect([...covered].sort((a, b) => a - b)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17]);
  });

  it('flushes the text before the cursor, then draws the character under a block cursor in the cursor text colour', async () => {
    const ops = await encode('ab\x1b[1D');
    const flush = ops.findIndex((o) => o.op === GridOp.flush);
    expect(flush).toBeGreaterThan(0);
    const after = ops.slice(flush + 1);
    expect(after[0]).toEqual({ op: GridOp.fill, args: [9, 0, 9, 17, darkTheme.cursor] });
    expect(after[1]).toEqual({ op: GridOp.cluster, args: [1, 0, 1, 0, darkTheme.cursorText, expect.any(Number), 1], text: 'b' });
  });

  it('colours the text inside the current find match with the background colour', async () => {
    const ops = texts(await encode('\x1b[?25lfind the needle here', { ...idle, highlights: [{ row: 0, start: 9, end: 15, current: true }] }));
    expect(ops.map((o) => [o.args[0], o.args[4], o.text])).toEqual([
      [0, darkTheme.foreground, 'find the '],
      [9, darkTheme.background, 'needle'],
      [15, darkTheme.foreground, ' here'],
    ]);
  });

  it('repaints only the rows asked for, each over its own background band', async () => {
    const ops = await encode('\x1b[?25lone\r\ntwo\r\nthree', idle, [1]);
    expect(ops[0]).toEqual({ op: GridOp.fill, args: [0, 17, 400, 17, darkTheme.background] });
    expect(texts(ops).map((o) => o.text)).toEqual(['two']);
  });

  it('passes the input method pre-edit as free text at the cursor', async () => {
    const ops = await encode('$ ', { ...idle, preedit: 'にほん' });
    const s = ops.find((o) => o.op === GridOp.string);
    expect(s).toEqual({ op: GridOp.string, args: [2, 0, 0, darkTheme.foreground, expect.any(Number), 3], text: 'にほん' });
  });
});

describe('GridOps', () => {
  it('grows past its initial size and keeps every op', () => {
    const ops = new GridOps();
    for (let i = 0; i < 10_000; i++) ops.text(i % 200, i % 50, 1, 0, i, `w${i}`);
    const decoded = decodeGridOps(ops.ops, ops.length, ops.allText);
    expect(decoded).toHaveLength(10_000);
    expect(decoded[9_999]).toEqual({ op: GridOp.text, args: [199, 49, 1, 0, 9_999, expect.any(Number), 5], text: 'w9999' });
  });

  it('starts empty again after reset', () => {
    const ops = new GridOps();
    ops.fill(1, 2, 3, 4, 5);
    ops.string(0, 0, 0, 1, 'x');
    ops.reset();
    expect(ops.length).toBe(0);
    expect(ops.allText).toBe('');
  });

  it('rejects an encoding it cannot read, naming the op and where', () => {
    expect(() => decodeGridOps(Int32Array.of(GridOp.flush, 99), 2, '')).toThrow('unknown grid op 99 at 1');
  });
});
