// The watermark logic: pause above HIGH unparsed bytes, resume only once parsing brings the
// backlog below LOW, never toggling in between.
import { describe, expect, it } from 'vitest';
import { FlowControlConstants, FlowController } from '../../../src/terminal/common/flowControl';

describe('FlowController', () => {
  it('pauses above the high watermark and resumes below the low one', () => {
    const calls: string[] = [];
    const fc = new FlowController(
      () => calls.push('pause'),
      () => calls.push('resume'),
      100,
      10,
    );
    fc.received(60);
    fc.received(40);
    expect(calls).toEqual([]);
    fc.received(1);
    expect(calls).toEqual(['pause']);
    fc.received(500);
    expect(calls).toEqual(['pause']);
    fc.parsed(550);
    expect(fc.unparsedChars).toBe(51);
    expect(calls).toEqual(['pause']);
    fc.parsed(42);
    expect(calls).toEqual(['pause', 'resume']);
    expect(fc.isPaused).toBe(false);
    expect(fc.pauseCount).toBe(1);
  });

  it('uses VS Code’s watermarks by default and rejects inverted ones', () => {
    expect(FlowControlConstants.HighWatermarkChars).toBeGreaterThan(FlowControlConstants.LowWatermarkChars);
    expect(
      () =>
        new FlowController(
          () => undefined,
          () => undefined,
          10,
          10,
        ),
    ).toThrow(/low watermark 10/);
  });
});
