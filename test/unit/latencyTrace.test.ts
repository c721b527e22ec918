import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The module reads TERMIO_LATENCY_TRACE once, as it loads: each test loads a fresh copy.
async function load(env: string | undefined) {
  vi.resetModules();
  vi.stubEnv('TERMIO_LATENCY_TRACE', env ?? '');
  return import('../../src/app/services/latencyTrace');
}

describe('latency trace', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'termio-latency-'));
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes each point with its wall time and pid a second later, in order', async () => {
    const file = join(dir, 'trace');
    const { traceLatency } = await load(file);
    const before = performance.timeOrigin + performance.now();
    traceLatency('key');
    traceLatency('keySent');
    expect(existsSync(file)).toBe(false); // nothing on the measured path
    vi.advanceTimersByTime(1000);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['key', 'keySent']);
    for (const l of lines) {
      const [, at, pid] = l.split(' ');
      expect(Number(at)).toBeGreaterThanOrEqual(before - 1);
      expect(Number(pid)).toBe(process.pid);
    }
    traceLatency('frameIn');
    vi.advanceTimersByTime(1000);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3); // appended
  });

  it('does nothing while the variable is unset', async () => {
    const file = join(dir, 'trace');
    const { traceLatency } = await load(undefined);
    traceLatency('key');
    vi.advanceTimersByTime(5000);
    expect(existsSync(file)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
