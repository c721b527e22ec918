// The Qt runtime bridge: Qt timers and Node timers both run on one thread, Promise jobs run after
// Qt callbacks, deleteLater still deletes, an idle app does not spin, and a flood of input does not
// make the process fault its memory in again and again; no OpenGL stack is loaded.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Display, e2eSkipReason, repoRoot } from './harness';

describe.skipIf(e2eSkipReason)('Qt runtime', () => {
  let display: Display;
  beforeAll(async () => {
    display = await Display.start();
  });
  afterAll(async () => {
    await display?.stop();
  });

  it('drives Qt from the Node loop, event-driven', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'test', 'fixtures', 'qtRuntimeProbe.js')], {
      env: { ...process.env, DISPLAY: display.name },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(report.runtime).toBe(process.platform === 'darwin' ? 'qode' : 'qodeshim');
    // A 20 ms Qt timer over 500 ms: about 25 ticks; at least 15 proves it runs at its own pace.
    expect(report.qtTimerTicksIn500ms).toBeGreaterThanOrEqual(15);
    expect(report.microtaskAfterQtCallback).toBe(true);
    expect(report.deleteLaterDestroyed).toBe(true);
    // With nothing to do, the loop wakes only for real events: about once a second here (Qt's own
    // housekeeping timers); a 1 ms poll would wake ~1000 times, a 100 ms one 10.
    expect(report.idleWakeupsPerSecond).toBeLessThan(10);
    // Under a pipe flood, freed read buffers are reused: about one page fault per 64 KB read, where
    // glibc's default trimming faulted all 16 pages of most buffers back in (bench/loop.mjs (d)
    // prints the figure). The process's other faults (V8 growing its heap) count too and rise with
    // the machine's load (2.7 seen under a load of 9), so the bound is half the bug's 16, not the
    // quiet figure.
    expect(report.flood.reads).toBeGreaterThan(500);
    expect(report.flood.faultsPerRead).toBeLessThan(8);
    // What the flood left free is given back by a trim (the app trims once it is idle), and so is
    // the young generation V8 grew to its 32 MB most (an idle window kept it: 128 vs 111 MB RSS).
    if (process.platform === 'linux') {
      expect(report.trimReleased).toBe(true);
      expect(report.heapKbAfterTrim).toBeLessThan(report.heapKbBeforeTrim);
      expect(report.youngKbBeforeTrim).toBeGreaterThanOrEqual(16 * 1024);
      expect(report.youngKbAfterTrim).toBeLessThanOrEqual(report.youngKbBeforeTrim / 4);
    }
    // No OpenGL stack for an app that paints with QPainter (Mesa and LLVM were ~60 MB of RSS),
    // and the setting that keeps it out does not reach the processes the app starts.
    expect(report.glLibrariesMapped).toBe(0);
    expect(report.glSettingInherited).toBeNull();
  });
});
