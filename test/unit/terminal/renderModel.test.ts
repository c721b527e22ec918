// The render model as data: same-style runs with colours and attributes, wide and combining
// characters, dirty-row tracking, cursor, selection and scrollback position.
import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_OUTPUT_TIMEOUT_MS, type Run } from '../../../src/terminal/node/renderModel';
import { waitFor } from '../../helpers/waitFor';
import { createEmulator, type TestEmulator } from './helpers';

let emu: TestEmulator;
afterEach(() => emu?.dispose());

const brief = (r: Run): Partial<Run> => {
  const out: Partial<Run> = { col: r.col, cells: r.cells, text: r.text };
  for (const k of ['bold', 'italic', 'dim', 'strikethrough', 'inverse', 'overline', 'invisible', 'blink'] as const) if (r[k]) out[k] = true;
  if (r.underline !== 'none') out.underline = r.underline;
  if (r.fg.kind !== 'default') out.fg = r.fg;
  if (r.bg.kind !== 'default') out.bg = r.bg;
  if (r.cellWidth === 2) out.cellWidth = 2;
  if (r.chars) out.chars = r.chars;
  return out;
};

describe('runs', () => {
  it('splits a row into same-style runs with palette, 256 and truecolor colours', async () => {
    emu = createEmulator(40, 3);
    await emu.write('ab\x1b[31mred\x1b[1;44mbold\x1b[0m \x1b[38;5;208mo\x1b[48;2;1;2;3mrgb\x1b[m');
    const row = emu.model.update().frame.lines[0]!;
    expect(row.text).toBe('abredbold orgb');
    expect(row.runs.map(brief)).toEqual([
      { col: 0, cells: 2, text: 'ab' },
      { col: 2, cells: 3, text: 'red', fg: { kind: 'palette', index: 1 } },
      { col: 5, cells: 4, text: 'bold', bold: true, fg: { kind: 'palette', index: 1 }, bg: { kind: 'palette', index: 4 } },
      { col: 9, cells: 1, text: ' ' },
      { col: 10, cells: 1, text: 'o', fg: { kind: 'palette', index: 208 } },
      { col: 11, cells: 3, text: 'rgb', fg: { kind: 'palette', index: 208 }, bg: { kind: 'rgb', value: 0x010203 } },
    ]);
  });

  it('reports every text attribute and underline style', async () => {
    emu = createEmulator(40, 3);
    await emu.write('\x1b[2mD\x1b[0;3mI\x1b[0;9mS\x1b[0;7mV\x1b[0;53mO\x1b[0;8mH\x1b[0;5mB\x1b[0;4mu\x1b[4:2md\x1b[4:3mc\x1b[4:4m.\x1b[4:5m-\x1b[0m');
    expect(emu.model.update().frame.lines[0]!.runs.map(brief)).toEqual([
      { col: 0, cells: 1, text: 'D', dim: true },
      { col: 1, cells: 1, text: 'I', italic: true },
      { col: 2, cells: 1, text: 'S', strikethrough: true },
      { col: 3, cells: 1, text: 'V', inverse: true },
      { col: 4, cells: 1, text: 'O', overline: true },
      { col: 5, cells: 1, text: 'H', invisible: true },
      { col: 6, cells: 1, text: 'B', blink: true },
      { col: 7, cells: 1, text: 'u', underline: 'single' },
      { col: 8, cells: 1, text: 'd', underline: 'double' },
      { col: 9, cells: 1, text: 'c', underline: 'curly' },
      { col: 10, cells: 1, text: '.', underline: 'dotted' },
      { col: 11, cells: 1, text: '-', underline: 'dashed' },
    ]);
  });

  it('puts wide characters in their own runs of cellWidth 2 and keeps combining marks per cell', async () => {
    emu = createEmulator(20, 3);
    await emu.write('a日本b😀e\u0301');
    expect(emu.model.update().frame.lines[0]!.runs.map(brief)).toEqual([
      { col: 0, cells: 1, text: 'a' },
      { col: 1, cells: 4, text: '日本', cellWidth: 2 },
      { col: 5, cells: 1, text: 'b' },
      { col: 6, cells: 2, text: '😀', cellWidth: 2, chars: ['😀'] },
      { col: 8, cells: 1, text: 'e\u0301', chars: ['e\u0301'] },
    ]);
  });

  it('keeps coloured blanks but drops the default-style tail', async () => {
    emu = createEmulator(20, 3);
    await emu.write('x   \x1b[42m  \x1b[0m    ');
    const runs = emu.model.update().frame.lines[0]!.runs.map(brief);
    expect(runs).toEqual([
      { col: 0, cells: 4, text: 'x   ' },
      { col: 4, cells: 2, text: '  ', bg: { kind: 'palette', index: 2 } },
    ]);
    expect(emu.model.frame.lines[1]!.runs).toEqual([]);
  });
});

describe('dirty rows', () => {
  it('reports only rows that changed, and keeps unchanged rows identical', async () => {
    emu = createEmulator(20, 5);
    await emu.write('one\r\ntwo\r\nthree');
    const first = emu.model.update();
    expect(first.dirtyRows).toEqual([0, 1, 2, 3, 4]);
    await emu.write('\x1b[2;1Htwo!');
    const second = emu.model.update();
    // Row 1 changed; row 2 lost the cursor and row 1 gained it.
    expect(second.dirtyRows).toEqual([1, 2]);
    expect(second.frame.lines[0]).toBe(first.frame.lines[0]);
    expect(second.frame.lines[1]!.text).toBe('two!');
    expect(emu.model.update().dirtyRows).toEqual([]);
  });

  it('rewriting a row with the same content is not a change', async () => {
    emu = createEmulator(20, 3);
    await emu.write('same\x1b[H');
    emu.model.update();
    await emu.write('same\x1b[H');
    expect(emu.model.update().dirtyRows).toEqual([]);
  });

  it('scrolling marks every row whose content moved', async () => {
    emu = createEmulator(10, 3);
    await emu.write('1\r\n2\r\n3');
    emu.model.update();
    await emu.write('\r\n4');
    const u = emu.model.update();
    expect(u.frame.lines.map((l) => l.text)).toEqual(['2', '3', '4']);
    expect(u.dirtyRows).toEqual([0, 1, 2]);
    expect(u.frame.scrollbackLength).toBe(1);
  });
});

describe('cursor, scrollback and screens', () => {
  it('places the cursor in viewport coordinates and hides it when scrolled out', async () => {
    emu = createEmulator(10, 3);
    await emu.write('a\r\nb\r\nc\r\nd\r\ne\x1b[2;3H');
    expect(emu.model.update().frame.cursor).toMatchObject({ x: 2, y: 1, visible: true, shape: 'block' });
    emu.term.scrollLines(-2);
    const f = emu.model.update().frame;
    expect(f.scrollOffset).toBe(2);
    expect(f.lines.map((l) => l.text)).toEqual(['a', 'b', 'c']);
    expect(f.cursor).toMatchObject({ y: 3, visible: false });
  });

  it('reports the alternate screen', async () => {
    emu = createEmulator(10, 3);
    await emu.write('main\x1b[?1049h\x1b[Halt');
    const f = emu.model.update().frame;
    expect(f.altScreen).toBe(true);
    expect(f.lines[0]!.text).toBe('alt');
    await emu.write('\x1b[?1049l');
    expect(emu.model.update().frame.lines[0]!.text).toBe('main');
  });
});

describe('selection in the frame', () => {
  it('carries the selected columns of each viewport row', async () => {
    emu = createEmulator(20, 4);
    await emu.write('hello world\r\nsecond line');
    emu.model.setSelection({ x: 6, y: 0 }, { x: 6, y: 1 });
    expect(emu.model.update().frame.selection).toEqual([
      { row: 0, start: 6, end: 20 },
      { row: 1, start: 0, end: 6 },
    ]);
    expect(emu.model.selectionText()).toBe('world\nsecond');
  });

  it('marks rows dirty when the selection changes and clears', async () => {
    emu = createEmulator(10, 4);
    await emu.write('a\r\nb\r\nc');
    emu.model.update();
    emu.model.setSelection({ x: 0, y: 1 }, { x: 1, y: 1 });
    expect(emu.model.update().dirtyRows).toEqual([1]);
    emu.model.clearSelection();
    expect(emu.model.update().dirtyRows).toEqual([1]);
    expect(emu.model.hasSelection).toBe(false);
  });
});

describe('synchronized output floods', () => {
  const frameText = (e: TestEmulator) => e.model.update().frame.lines.map((l) => l.text);
  const redraw = (n: number, rows: number) => `\x1b[?2026h${Array.from({ length: rows }, (_, r) => `\x1b[${r + 1};1Hframe ${n} row ${r}`).join('')}\x1b[?2026l`;

  it('shows the last whole update, not the one the parse stopped inside', async () => {
    emu = createEmulator(30, 4);
    // Update 1 whole, then update 2 cut after its first two rows (the rest arrives later).
    const two = redraw(2, 4);
    const cut = two.indexOf('\x1b[3;1H');
    await emu.write(redraw(1, 4) + two.slice(0, cut));
    expect(frameText(emu)).toEqual(['frame 1 row 0', 'frame 1 row 1', 'frame 1 row 2', 'frame 1 row 3']);
    await emu.write(two.slice(cut));
    expect(frameText(emu)).toEqual(['frame 2 row 0', 'frame 2 row 1', 'frame 2 row 2', 'frame 2 row 3']);
  });

  it('says whether the frame it returned shows an update half drawn', async () => {
    emu = createEmulator(30, 4);
    // No whole frame yet: the first one is the screen inside the update, torn.
    await emu.write('\x1b[?2026h\x1b[1;1Hhalf');
    expect(frameText(emu)[0]).toBe('half');
    expect(emu.model.lastFrameTorn).toBe(true);
    await emu.write(' done\x1b[?2026l');
    expect(frameText(emu)[0]).toBe('half done');
    expect(emu.model.lastFrameTorn).toBe(false);
    // Inside the next update the kept whole frame is returned: not torn.
    await emu.write('\x1b[?2026h\x1b[1;1Hnext');
    expect(frameText(emu)[0]).toBe('half done');
    expect(emu.model.lastFrameTorn).toBe(false);
  });

  it('keeps no whole frame for a model no view has read for a second, and shows the last one it has', async () => {
    emu = createEmulator(30, 4);
    await emu.write(redraw(1, 4));
    expect(frameText(emu)[0]).toBe('frame 1 row 0');
    const read = performance.now();
    await waitFor(() => performance.now() - read > SYNC_OUTPUT_TIMEOUT_MS + 50);
    // Unread (a hidden tab): an update ending builds nothing.
    const three = redraw(3, 4);
    await emu.write(redraw(2, 4) + three.slice(0, three.indexOf('\x1b[3;1H')));
    expect(emu.model.hasSnapshot).toBe(false);
    // Read again inside update 3: the last frame it built, whole, not the half-drawn screen.
    expect(frameText(emu)[0]).toBe('frame 1 row 0');
    expect(emu.model.lastFrameTorn).toBe(false);
    await emu.write(three.slice(three.indexOf('\x1b[3;1H')));
    expect(frameText(emu)).toEqual(['frame 3 row 0', 'frame 3 row 1', 'frame 3 row 2', 'frame 3 row 3']);
  });

  it('reports the rows the kept frame changed as dirty, once', async () => {
    emu = createEmulator(30, 4);
    emu.model.update();
    // The model keeps at most one such frame per 60 Hz frame interval after its last build.
    const built = performance.now();
    await waitFor(() => performance.now() - built > 20);
    const two = redraw(2, 4);
    await emu.write(`\x1b[?2026h\x1b[2;1Hchanged\x1b[?2026l${two.slice(0, two.indexOf('\x1b[3;1H'))}`);
    const first = emu.model.update();
    expect(first.frame.lines[1]!.text).toBe('changed');
    expect(first.dirtyRows).toContain(1);
    expect(emu.model.update().dirtyRows).toEqual([]);
  });
});
