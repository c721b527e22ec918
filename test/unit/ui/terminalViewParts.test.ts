// The terminal view's timing and find parts as data: frame pacing, cursor blink, and find
// matches (which one is current, where the view scrolls, what is highlighted).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BLINK_INTERVAL_MS, CursorBlink } from '../../../src/app/ui/terminal/cursorBlink';
import { nextCurrentMatch, revealTop, visibleHighlights } from '../../../src/app/ui/terminal/findMatches';
import { FRAME_INTERVAL_MS, FramePacer, TYPING_URGENCY_MS } from '../../../src/app/ui/terminal/framePacer';
import type { BufferRange } from '../../../src/terminal/common/bufferSearch';
import type { CursorState } from '../../../src/terminal/node/renderModel';

const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise((r) => setTimeout(r, 1));
};

/** A pacer on fake timers and a fake performance clock, and the start of every frame it paints. */
function fakeClockPacer(): { pacer: FramePacer; starts: number[] } {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
  const starts: number[] = [];
  return { pacer: new FramePacer((start) => starts.push(start)), starts };
}

describe('FramePacer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('paints once for many requests, then waits a frame interval before the next', async () => {
    const starts: number[] = [];
    const pacer = new FramePacer((start) => starts.push(start));
    pacer.schedule();
    pacer.schedule();
    pacer.schedule();
    await until(() => starts.length === 1);
    pacer.schedule();
    pacer.schedule();
    await until(() => starts.length === 2);
    // Timers may fire up to a millisecond before the clock says so.
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(FRAME_INTERVAL_MS - 1);
    pacer.dispose();
  });

  it('paints at once, with no pacing, for a while after the user typed, and paces again after', () => {
    const { pacer, starts } = fakeClockPacer();
    pacer.schedule();
    vi.advanceTimersToNextTimer();
    expect(starts).toHaveLength(1);
    // A frame asked for right after one waits for the pace...
    pacer.schedule();
    vi.advanceTimersByTime(1);
    expect(starts).toHaveLength(1);
    // ...unless the user types: the waiting frame goes now, and so do the next ones.
    pacer.expedite();
    vi.advanceTimersByTime(0);
    expect(starts).toHaveLength(2);
    pacer.schedule();
    vi.advanceTimersByTime(0);
    expect(starts).toHaveLength(3);
    expect(starts[2]! - starts[1]!).toBeLessThan(FRAME_INTERVAL_MS);
    // Once the urgency is over, a frame right after another waits a frame interval again.
    vi.advanceTimersByTime(TYPING_URGENCY_MS);
    pacer.schedule();
    vi.advanceTimersByTime(0);
    expect(starts).toHaveLength(4);
    pacer.schedule();
    vi.advanceTimersByTime(1);
    expect(starts).toHaveLength(4);
    vi.advanceTimersByTime(FRAME_INTERVAL_MS);
    expect(starts).toHaveLength(5);
    expect(starts[4]! - starts[3]!).toBeGreaterThanOrEqual(FRAME_INTERVAL_MS - 1);
    pacer.dispose();
  });

  it('paints a change of the screen right where it is reported while the user types, not a loop turn later', () => {
    const { pacer, starts } = fakeClockPacer();
    // Not typing: a change waits for the pacer's turn.
    pacer.changed();
    expect(starts).toHaveLength(0);
    vi.advanceTimersToNextTimer();
    expect(starts).toHaveLength(1);
    // Typing: the echo paints at once.
    vi.advanceTimersByTime(FRAME_INTERVAL_MS);
    pacer.expedite();
    pacer.changed();
    expect(starts).toHaveLength(2);
    pacer.dispose();
  });

  it('cancels a pending frame and takes no more requests once disposed', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    const starts: number[] = [];
    const pacer = new FramePacer((start) => starts.push(start));
    pacer.schedule();
    expect(vi.getTimerCount()).toBe(1);
    pacer.dispose();
    expect(vi.getTimerCount()).toBe(0);
    pacer.schedule();
    expect(vi.getTimerCount()).toBe(0);
    vi.runAllTimers();
    expect(starts).toEqual([]);
  });
});

describe('CursorBlink', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const cursor = (over: Partial<CursorState> = {}): CursorState => ({ x: 0, y: 0, shape: 'block', blinking: true, visible: true, ...over });

  it('blinks a visible blinking cursor while focused and stays solid otherwise', () => {
    vi.useFakeTimers();
    const toggles: boolean[] = [];
    const blink: CursorBlink = new CursorBlink(() => toggles.push(blink.on));
    blink.focusChanged(true);
    blink.update(cursor());
    expect(blink.cursor).toEqual(cursor());
    vi.advanceTimersByTime(BLINK_INTERVAL_MS * 2);
    expect(toggles).toEqual([false, true]);
    vi.advanceTimersByTime(BLINK_INTERVAL_MS);
    expect(blink.on).toBe(false);
    blink.focusChanged(false);
    blink.update(cursor());
    expect(blink.on).toBe(true);
    vi.advanceTimersByTime(BLINK_INTERVAL_MS * 4);
    expect(toggles).toHaveLength(3);
    blink.focusChanged(true);
    blink.update(cursor({ blinking: false }));
    blink.update(cursor({ visible: false }));
    vi.advanceTimersByTime(BLINK_INTERVAL_MS * 4);
    expect(toggles).toHaveLength(3);
    blink.dispose();
  });

  it('stops the moment its view loses the focus, with no frame to say so (a hidden tab gets none), and starts again with it', () => {
    vi.useFakeTimers();
    const toggles: boolean[] = [];
    const blink: CursorBlink = new CursorBlink(() => toggles.push(blink.on));
    // Before any frame there is no cursor to blink, focused or not.
    blink.focusChanged(true);
    vi.advanceTimersByTime(BLINK_INTERVAL_MS * 2);
    expect(toggles).toEqual([]);
    blink.update(cursor());
    vi.advanceTimersByTime(BLINK_INTERVAL_MS);
    expect(toggles).toEqual([false]);
    blink.focusChanged(false);
    expect(blink.on).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(BLINK_INTERVAL_MS * 10);
    expect(toggles).toEqual([false]);
    blink.focusChanged(true);
    vi.advanceTimersByTime(BLINK_INTERVAL_MS);
    expect(toggles).toEqual([false, false]);
    blink.dispose();
  });

  it('shows the cursor solid again when it moves', () => {
    vi.useFakeTimers();
    const blink = new CursorBlink(() => undefined);
    blink.focusChanged(true);
    blink.update(cursor());
    vi.advanceTimersByTime(BLINK_INTERVAL_MS);
    expect(blink.on).toBe(false);
    blink.update(cursor());
    expect(blink.on).toBe(false);
    blink.update(cursor({ x: 1 }));
    expect(blink.on).toBe(true);
    blink.dispose();
    vi.advanceTimersByTime(BLINK_INTERVAL_MS * 4);
    expect(blink.on).toBe(true);
  });
});

describe('find matches', () => {
  const m = (y: number, x: number, endY = y, endX = x + 3): BufferRange => ({ start: { x, y }, end: { x: endX, y: endY } });
  const matches = [m(2, 0), m(10, 4), m(10, 20), m(50, 1)];
  const bottom = { x: 80, y: 30 };

  it('starts at the nearest match above the bottom of the viewport and steps older and newer', () => {
    expect(nextCurrentMatch(matches, null, -1, 'start', bottom)).toBe(2);
    expect(nextCurrentMatch(matches, matches[2]!.start, 2, 'up', bottom)).toBe(1);
    expect(nextCurrentMatch(matches, matches[2]!.start, 2, 'down', bottom)).toBe(3);
    expect(nextCurrentMatch(matches, matches[0]!.start, 0, 'up', bottom)).toBe(3);
    expect(nextCurrentMatch(matches, null, -1, 'down', bottom)).toBe(3);
    expect(nextCurrentMatch([], null, -1, 'start', bottom)).toBe(-1);
  });

  it('keeps the same match across a refresh, or the nearest index when it is gone', () => {
    const after = [m(1, 0), ...matches];
    expect(nextCurrentMatch(after, matches[2]!.start, 2, 'refresh', bottom)).toBe(3);
    expect(nextCurrentMatch(matches.slice(0, 2), { x: 9, y: 9 }, 3, 'refresh', bottom)).toBe(1);
    expect(nextCurrentMatch([], matches[1]!.start, 1, 'refresh', bottom)).toBe(-1);
  });

  it('scrolls a match a third from the top only when it is not on screen whole', () => {
    expect(revealTop(m(12, 0), 10, 24, 100)).toBeNull();
    expect(revealTop(m(33, 0, 34, 2), 10, 24, 100)).toBe(25);
    expect(revealTop(m(3, 0), 10, 24, 100)).toBe(0);
    expect(revealTop(m(99, 0), 10, 24, 80)).toBe(80);
  });

  it('highlights the parts of matches on the viewport, wrapped ones row by row', () => {
    const wrapped = m(11, 78, 12, 2);
    const hs = visibleHighlights([m(9, 0), m(10, 4), wrapped, m(14, 0)], 2, 10, 4, 80);
    expect(hs).toEqual([
      { row: 0, start: 4, end: 7, current: false },
      { row: 1, start: 78, end: 80, current: true },
      { row: 2, start: 0, end: 2, current: true },
    ]);
  });
});
