// The pill over a scrolled-back terminal: what it counts and says, frame by frame.
import { describe, expect, it } from 'vitest';
import { NewLinesCounter, newLinesText } from '../../../src/app/present/newLines';

describe('NewLinesCounter', () => {
  it('counts the lines written below since the view left the bottom, and starts over at the bottom', () => {
    const c = new NewLinesCounter();
    expect(c.update(0, 500)).toBeNull();
    // Scrolled up 30 lines: nothing new yet, though 30 lines are below.
    expect(c.update(30, 500)).toBe(0);
    expect(c.update(42, 512)).toBe(12);
    // Scrolling further up writes nothing: the count stays.
    expect(c.update(80, 512)).toBe(12);
    expect(c.update(0, 520)).toBeNull();
    // Left again: counted from there.
    expect(c.update(5, 520)).toBe(0);
    expect(c.update(9, 524)).toBe(4);
  });
});

describe('newLinesText', () => {
  it('says how many, or offers the way back when nothing new came', () => {
    expect(newLinesText(0)).toBe('Back to bottom ↓');
    expect(newLinesText(1)).toBe('1 new line ↓');
    expect(newLinesText(12_345)).toBe('12,345 new lines ↓');
  });
});
