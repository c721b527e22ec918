// Find in scrollback as data: matches as buffer cell ranges over scrollback and screen, case
// folding, soft-wrapped lines, wide and combining characters, and next/previous with wrap-around.
import { afterEach, describe, expect, it } from 'vitest';
import { findAll, nextMatchIndex, rangeRows, type BufferRange } from '../../../src/terminal/common/bufferSearch';
import { createEmulator, type TestEmulator } from './helpers';

let emu: TestEmulator;
afterEach(() => emu?.dispose());

const find = (q: string, caseSensitive = false): BufferRange[] => findAll(emu.term.buffer.active, emu.term.cols, q, { caseSensitive });
const at = (x1: number, y1: number, x2: number, y2: number): BufferRange => ({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 } });

describe('findAll', () => {
  it('finds every match, case-insensitive by default, case-sensitive on request', async () => {
    emu = createEmulator(40, 5);
    await emu.write('Error: disk full\r\nno error here\r\nERROR again, error');
    expect(find('error')).toEqual([at(0, 0, 5, 0), at(3, 1, 8, 1), at(0, 2, 5, 2), at(13, 2, 18, 2)]);
    expect(find('ERROR', true)).toEqual([at(0, 2, 5, 2)]);
    expect(find('nothing like it')).toEqual([]);
    expect(find('')).toEqual([]);
  });

  it('finds lines that scrolled off the screen, at their absolute buffer rows', async () => {
    emu = createEmulator(30, 4, 100);
    const lines = Array.from({ length: 20 }, (_, i) => (i === 2 ? 'the needle is here' : `filler ${i}`));
    await emu.write(lines.join('\r\n'));
    // 20 lines on a 4-row screen: 16 in scrollback, and line 2 is one of them.
    expect(emu.term.buffer.active.baseY).toBe(16);
    expect(find('NEEDLE')).toEqual([at(4, 2, 10, 2)]);
  });

  it('matches across a soft wrap, but not across a hard line end', async () => {
    emu = createEmulator(10, 5);
    await emu.write('abcdefghijklmnop\r\nxyz\r\nuvw');
    // Row 0 'abcdefghij' wraps into row 1 'klmnop'.
    expect(find('ijkl')).toEqual([at(8, 0, 2, 1)]);
    expect(rangeRows(find('ijkl')[0]!, 10)).toEqual([
      { y: 0, start: 8, end: 10 },
      { y: 1, start: 0, end: 2 },
    ]);
    // 'xyz' and 'uvw' are separate lines: no match through the line break.
    expect(find('zu')).toEqual([]);
    expect(find('z u')).toEqual([]);
  });

  it('counts wide characters as two cells, also when one moved to the next row', async () => {
    emu = createEmulator(5, 5);
    await emu.write('a日本b\r\n');
    // a=0, 日=1–2, 本=3–4, and b wrapped to the next row.
    expect(find('本b')).toEqual([at(3, 0, 1, 1)]);
    await emu.write('xy日本語');
    // Row 2 'xy日' leaves its last cell empty: 本 did not fit and starts row 3.
    expect(find('日本語')).toEqual([at(2, 2, 4, 3)]);
    expect(find('y日本')).toEqual([at(1, 2, 2, 3)]);
  });

  it('keeps combining marks with their base cell and maps length-changing case folds back', async () => {
    emu = createEmulator(30, 3);
    await emu.write('cafe\u0301 ok\r\nİstanbul\r\nΟΔΟΣ');
    expect(find('e\u0301 ok')).toEqual([at(3, 0, 7, 0)]);
    // 'İ'.toLowerCase() is two code units: 'stan' still starts at column 1.
    expect(find('stan')).toEqual([at(1, 1, 5, 1)]);
    // The word-final sigma folds like any sigma.
    expect(find('οδος')).toEqual([at(0, 2, 4, 2)]);
  });

  it('takes non-overlapping matches left to right', async () => {
    emu = createEmulator(20, 2);
    await emu.write('aaaaa');
    expect(find('aa')).toEqual([at(0, 0, 2, 0), at(2, 0, 4, 0)]);
  });
});

describe('nextMatchIndex', () => {
  const matches = [at(0, 1, 3, 1), at(5, 1, 8, 1), at(2, 7, 5, 7)];

  it('goes up to the nearest match before the point, and down to the nearest after it', () => {
    expect(nextMatchIndex(matches, { x: 0, y: 7 }, 'up')).toBe(1);
    expect(nextMatchIndex(matches, { x: 5, y: 1 }, 'up')).toBe(0);
    expect(nextMatchIndex(matches, { x: 0, y: 1 }, 'down')).toBe(1);
    expect(nextMatchIndex(matches, { x: 4, y: 1 }, 'down')).toBe(1);
  });

  it('wraps around at both ends, and says -1 without matches', () => {
    expect(nextMatchIndex(matches, { x: 0, y: 1 }, 'up')).toBe(2);
    expect(nextMatchIndex(matches, { x: 2, y: 7 }, 'down')).toBe(0);
    expect(nextMatchIndex([], { x: 0, y: 0 }, 'up')).toBe(-1);
  });
});
