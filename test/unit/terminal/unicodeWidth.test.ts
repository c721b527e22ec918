// Cell widths (current Unicode instead of xterm's Unicode 6) and the UTF-8 boundary stage.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { buildBmpTable, computeWidth, wcwidth } from '../../../src/terminal/common/unicodeWidth';
import { completeLength, Utf8Splitter } from '../../../src/terminal/common/utf8Splitter';
import { createEmulator, type TestEmulator } from './helpers';

let emu: TestEmulator;
afterEach(() => emu?.dispose());

const cp = (s: string): number => s.codePointAt(0)!;

describe('wcwidth', () => {
  it('gives CJK, fullwidth and emoji-presentation characters two cells', () => {
    expect(['日', '한', 'Ａ', '😀', '🎉', '⌚', '✅'].map((c) => wcwidth(cp(c)))).toEqual([2, 2, 2, 2, 2, 2, 2]);
  });

  it('gives combining marks and format characters zero cells, the rest one', () => {
    expect(['\u0301', '\u200d', '\ufe0f', '\u20e3'].map((c) => wcwidth(cp(c)))).toEqual([0, 0, 0, 0]);
    expect(['a', 'é', '─', '█', '✳', '⠋', '\u00ad'].map((c) => wcwidth(cp(c)))).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it('builds the BMP table, all of it at once, by the same rule as a single code point', () => {
    const table = buildBmpTable();
    const differ: string[] = [];
    for (let c = 0; c < 0x10000; c++) if (table[c] !== computeWidth(c)) differ.push(`U+${c.toString(16)}: ${table[c]} vs ${computeWidth(c)}`);
    expect(differ).toEqual([]);
    // Each kind of width is there: the table is not all ones.
    expect([table[0x4e00], table[0x231a], table[0x0301], table[0x1160], table[0xd800], table[0xad]]).toEqual([2, 2, 0, 0, 1, 1]);
  });
});

describe('emulator cell layout', () => {
  it('joins ZWJ sequences and flags into one double-width cell', async () => {
    emu = createEmulator(20, 2);
    await emu.write('👨\u200d👩\u200d👧|🇫🇷|x');
    const runs = emu.model.update().frame.lines[0]!.runs;
    expect(runs.map((r) => [r.text, r.col, r.cells, r.cellWidth])).toEqual([
      ['👨\u200d👩\u200d👧', 0, 2, 2],
      ['|', 2, 1, 1],
      ['🇫🇷', 3, 2, 2],
      ['|x', 5, 2, 1],
    ]);
  });
});

describe('Utf8Splitter', () => {
  it('holds back an incomplete character and completes it with the next chunk', () => {
    const bytes = Buffer.from('a€😀', 'utf8'); // 1 + 3 + 4 bytes
    expect(completeLength(bytes.subarray(0, 2))).toBe(1);
    expect(completeLength(bytes.subarray(0, 4))).toBe(4);
    expect(completeLength(bytes.subarray(0, 7))).toBe(4);
    const s = new Utf8Splitter();
    expect(Buffer.from(s.push(bytes.subarray(0, 3))).toString()).toBe('a');
    expect(Buffer.from(s.push(bytes.subarray(3, 6))).toString()).toBe('€');
    expect(Buffer.from(s.push(bytes.subarray(6))).toString()).toBe('😀');
    expect(s.flush().length).toBe(0);
  });

  it('reassembles any text cut at any points', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const bytes = Buffer.from(text, 'utf8');
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const s = new Utf8Splitter();
        const out: Buffer[] = [];
        let prev = 0;
        for (const p of [...points, bytes.length]) {
          const piece = s.push(bytes.subarray(prev, p));
          // Every piece handed on decodes on its own.
          expect(Buffer.from(piece).toString('utf8')).not.toContain('\ufffd');
          out.push(Buffer.from(piece));
          prev = p;
        }
        out.push(Buffer.from(s.flush()));
        expect(Buffer.concat(out).toString('utf8')).toBe(text);
      }),
    );
  });
});
