// The flush settler: after an echo's paint while the user types, the window's flush is settled once
// the view is idle; a paint in between makes it unnecessary, and nothing is settled after paints
// nobody typed for or once the view is gone.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { FlushSettler, SETTLE_AFTER_MS } from '../../../src/app/ui/terminal/flushSettler';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it('settles once, a moment after an echo is painted', () => {
  let settled = 0;
  const s = new FlushSettler(() => settled++);
  s.painted(true);
  expect(settled).toBe(0);
  vi.advanceTimersByTime(SETTLE_AFTER_MS);
  expect(settled).toBe(1);
  vi.advanceTimersByTime(100);
  expect(settled).toBe(1);
});

it('does not settle before a paint that comes first, and settles after the last of several', () => {
  let settled = 0;
  const s = new FlushSettler(() => settled++);
  s.painted(true);
  s.painting();
  vi.advanceTimersByTime(100);
  expect(settled).toBe(0);
  s.painted(true);
  vi.advanceTimersByTime(SETTLE_AFTER_MS - 1);
  s.painted(true);
  vi.advanceTimersByTime(SETTLE_AFTER_MS - 1);
  expect(settled).toBe(0);
  vi.advanceTimersByTime(1);
  expect(settled).toBe(1);
});

it('leaves paints nobody typed for alone, and settles nothing once disposed', () => {
  let settled = 0;
  const s = new FlushSettler(() => settled++);
  s.painted(false);
  vi.advanceTimersByTime(100);
  expect(settled).toBe(0);
  s.painted(true);
  s.dispose();
  vi.advanceTimersByTime(100);
  expect(settled).toBe(0);
});
