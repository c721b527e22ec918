// The benchmarks' timing log of a view's attach: "first frame painted" is logged once, for the
// first paint that shows the host's frame, never for the empty grid a view paints before it.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../src/app/services/log';
import { SwitchTrace } from '../../../src/app/ui/switchTrace';

function tracer(): { trace: SwitchTrace; lines: { msg: string; data: Record<string, unknown> }[] } {
  const lines: { msg: string; data: Record<string, unknown> }[] = [];
  const push = (msg: string, data?: Record<string, unknown>): void => void lines.push({ msg, data: data ?? {} });
  const log: Logger = { debug: push, info: push, warn: push, error: push };
  return { trace: new SwitchTrace(log), lines };
}

describe('SwitchTrace first frame after an attach', () => {
  it('skips paints before the host frame arrived and logs the first one after it, once', () => {
    const { trace, lines } = tracer();
    const times: { attachAskedAt: number | null; firstFrameAt: number | null } = { attachAskedAt: 100, firstFrameAt: null };
    trace.attached('s1', times);
    trace.painted('s1', { start: 110, paintMs: 2, rows: 24, changed: 24 });
    expect(lines.filter((l) => l.msg === 'first frame painted')).toEqual([]);
    times.firstFrameAt = 150;
    trace.painted('s1', { start: 160, paintMs: 4, rows: 24, changed: 24 });
    trace.painted('s1', { start: 200, paintMs: 4, rows: 24, changed: 24 });
    const first = lines.filter((l) => l.msg === 'first frame painted');
    expect(first).toHaveLength(1);
    expect(first[0]!.data).toMatchObject({ id: 's1', ms: 64, receivedMs: 50, paintMs: 4 });
  });

  it('waits for the attach to be asked before timing anything', () => {
    const { trace, lines } = tracer();
    const times: { attachAskedAt: number | null; firstFrameAt: number | null } = { attachAskedAt: null, firstFrameAt: null };
    trace.attached('s2', times);
    trace.painted('s2', { start: 10, paintMs: 1, rows: 24, changed: 24 });
    times.attachAskedAt = 20;
    times.firstFrameAt = 30;
    trace.painted('s2', { start: 40, paintMs: 1, rows: 24, changed: 24 });
    expect(lines.filter((l) => l.msg === 'first frame painted').map((l) => l.data)).toMatchObject([{ id: 's2', ms: 21, receivedMs: 10 }]);
  });
});
