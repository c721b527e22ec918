import { describe, expect, it } from 'vitest';
import { inertCells, inertText, inertTitle } from '../../../src/app/present/inertText';

describe('inertText', () => {
  it('writes out C0 (but tab and newline), DEL and C1 as \\u00XX, and leaves other text alone', () => {
    expect(inertText('a\x1b[2Jb\x07c\x7fd\u009be\tf\ng é 字 🙂')).toBe('a\\u001b[2Jb\\u0007c\\u007fd\\u009be\tf\ng é 字 🙂');
  });
  it('keeps a JSON line parseable and its value unchanged', () => {
    const line = JSON.stringify({ title: 'x\u009d52;c;AA\u009cy' });
    expect(JSON.parse(inertText(line))).toEqual({ title: 'x\u009d52;c;AA\u009cy' });
  });
  it('draws a control character in a cell run as one replacement character, and drops them from a title', () => {
    expect(inertCells('ab\x1bc\u009b')).toBe('ab\ufffdc\ufffd');
    expect(inertTitle('t\x07\u009c\x1b]0;x')).toBe('t]0;x');
  });
});
