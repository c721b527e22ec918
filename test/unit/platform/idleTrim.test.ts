import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdleTrim } from '../../../src/app/platform/idleTrim';

describe('IdleTrim', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('trims once after a quiet spell, and not while activity keeps coming', () => {
    vi.useFakeTimers();
    const trim = vi.fn(() => true);
    const idle = new IdleTrim(trim, 5000);
    idle.poke();
    // A frame every second for ten seconds: never quiet for five.
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(1000);
      idle.poke();
    }
    expect(trim).not.toHaveBeenCalled();
    vi.advanceTimersByTime(4999);
    expect(trim).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(trim).toHaveBeenCalledTimes(1);
    // Still quiet: no second trim, and no timer left running.
    vi.advanceTimersByTime(60_000);
    expect(trim).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
    // The next burst earns the next trim.
    idle.poke();
    vi.advanceTimersByTime(5000);
    expect(trim).toHaveBeenCalledTimes(2);
  });

  it('does not keep the process alive, and dispose cancels a pending trim', () => {
    const trim = vi.fn(() => true);
    const idle = new IdleTrim(trim, 5000);
    idle.poke();
    const timer = (idle as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
    idle.dispose();
    expect((idle as unknown as { timer: NodeJS.Timeout | null }).timer).toBeNull();
    expect(trim).not.toHaveBeenCalled();
  });
});
