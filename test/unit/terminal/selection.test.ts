// The selection over the emulator's buffer: ranges in either direction, words and wrapped lines,
// the selected text, and the columns it covers on each viewport row.
import { afterEach, describe, expect, it } from 'vitest';
import { changedSelectionRows, Selection } from '../../../src/terminal/node/selection';
import { createEmulator, type TestEmulator } from './helpers';

let emu: TestEmulator;
afterEach(() => emu?.dispose());

describe('Selection', () => {
  it('selects characters across rows and returns their text, in either direction', async () => {
    emu = createEmulator(20, 4);
    await emu.write('hello world\r\nsecond line');
    const sel = new Selection(emu.term);
    sel.set({ x: 6, y: 0 }, { x: 6, y: 1 });
    expect(sel.text()).toBe('world\nsecond');
    expect(sel.viewportRows(0, 4, 20)).toEqual([
      { row: 0, start: 6, end: 20 },
      { row: 1, start: 0, end: 6 },
    ]);
    sel.set({ x: 6, y: 1 }, { x: 6, y: 0 });
    expect(sel.range()).toEqual({ start: { x: 6, y: 0 }, end: { x: 6, y: 1 } });
    expect(sel.text()).toBe('world\nsecond');
  });

  it('double-click selects a word (paths and URLs included), triple-click a wrapped line', async () => {
    emu = createEmulator(30, 4);
    await emu.write('cd ~/src/a-b.ts now');
    const sel = new Selection(emu.term);
    sel.set({ x: 5, y: 0 }, { x: 5, y: 0 }, 'word');
    expect(sel.text()).toBe('~/src/a-b.ts');
    sel.set({ x: 16, y: 0 }, { x: 16, y: 0 }, 'word');
    expect(sel.text()).toBe('now');
    emu.term.resize(10, 4);
    await emu.write('\r\n\r\ncd ~/src/a-b.ts now\r\nnext');
    sel.set({ x: 1, y: 3 }, { x: 1, y: 3 }, 'line');
    expect(sel.text()).toBe('cd ~/src/a-b.ts now');
  });

  it('a drag moves the head and keeps the anchor and mode; a click without a drag is empty', async () => {
    emu = createEmulator(20, 4);
    await emu.write('one two three');
    const sel = new Selection(emu.term);
    sel.extend({ x: 3, y: 0 });
    expect(sel.range()).toBeNull();
    sel.set({ x: 4, y: 0 }, { x: 4, y: 0 });
    expect(sel.isEmpty).toBe(true);
    sel.extend({ x: 7, y: 0 });
    expect(sel.isEmpty).toBe(false);
    expect(sel.text()).toBe('two');
    sel.set({ x: 0, y: 0 }, { x: 0, y: 0 }, 'word');
    sel.extend({ x: 5, y: 0 });
    expect(sel.text()).toBe('one two');
    sel.clear();
    expect(sel.isEmpty).toBe(true);
    expect(sel.text()).toBe('');
  });

  it('covers only the viewport rows it reaches, cut at the last column', async () => {
    emu = createEmulator(10, 3);
    await emu.write('a\r\nb\r\nc\r\nd\r\ne');
    const sel = new Selection(emu.term);
    sel.set({ x: 0, y: 1 }, { x: 12, y: 3 });
    // Buffer lines 1-3 seen from a viewport starting at line 2: rows 0 and 1.
    expect(sel.viewportRows(2, 3, 10)).toEqual([
      { row: 0, start: 0, end: 10 },
      { row: 1, start: 0, end: 10 },
    ]);
  });
});

describe('changedSelectionRows', () => {
  it('lists rows whose columns changed, appeared or went, except rows past the screen', () => {
    const before = [
      { row: 0, start: 2, end: 5 },
      { row: 1, start: 0, end: 5 },
      { row: 7, start: 0, end: 1 },
    ];
    const after = [
      { row: 0, start: 2, end: 5 },
      { row: 2, start: 0, end: 3 },
    ];
    expect(changedSelectionRows(before, after, 4).sort()).toEqual([1, 2]);
    expect(changedSelectionRows(after, after, 4)).toEqual([]);
  });
});
