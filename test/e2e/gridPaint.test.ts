// The native grid painter offscreen, under Xvfb (it needs Qt's fonts): frames from a real emulator
// land on their cells, the glyph cache fills once per character and is reused, repainting gives
// the same pixels, the painter's own glyph blitter matches Qt's drawing pixel for pixel, and a bad
// encoding is refused with the op and its place named.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Display, e2eSkipReason, repoRoot } from './harness';

describe.skipIf(e2eSkipReason)('native grid painter', () => {
  let display: Display;
  let report: Record<string, unknown> & { errors: Array<string | null> };
  beforeAll(async () => {
    display = await Display.start();
    const r = spawnSync(process.execPath, [join(repoRoot, 'test', 'fixtures', 'gridPaintProbe.js')], {
      env: { ...process.env, DISPLAY: display.name },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    report = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  });
  afterAll(async () => {
    await display?.stop();
  });

  it('draws CJK, emoji, combining marks and colours on their cells', () => {
    expect(report.cjkCellsInked).toEqual([true, true, true, true, true, true, true]);
    expect(report.okInked).toBeGreaterThan(5);
    expect((report.emojiColour as number[]).every((n) => n > 20)).toBe(true);
    expect(report.colourOutsideEmoji).toBe(0);
    expect(report.redInk).toBeGreaterThan(10);
  });

  it('lays each character out once and reuses it', () => {
    const first = report.cachedAfterFirst as number;
    // 漢字かな한국어 o k 😀🎉 e n d é ä r e(d) — a few dozen at most, and at least one per distinct one.
    expect(first).toBeGreaterThanOrEqual(15);
    expect(report.cachedAfterSecond).toBe(first);
    expect(report.identical).toBe(true);
    expect(report.cachedAfterXyz).toBe(first + 3);
  });

  it('keeps one mask per sub-pixel step a glyph is drawn at, not one per position', () => {
    // DejaVu Sans Mono's advance is fractional, so the 40 columns start at many 1/64-pixel
    // positions; Qt draws at four steps of a pixel (and the next whole pixel).
    expect(report.qPositions).toBeGreaterThan(10);
    expect(report.qMasks).toBeGreaterThan(0);
    expect(report.qMasks).toBeLessThanOrEqual(5);
  });

  it('blits glyphs itself with exactly the pixels Qt draws', () => {
    for (const theme of report.sameAsQt as Array<{ used: boolean; differing: number; inked: number }>) {
      expect(theme.used).toBe(true);
      expect(theme.inked).toBeGreaterThan(2000);
      expect(theme.differing).toBe(0);
    }
  });

  it('refuses bad encodings, naming the op and where', () => {
    expect(report.errors).toEqual([
      expect.stringContaining('unknown op 99 at 0'),
      expect.stringContaining('reads text outside the string'),
      expect.stringContaining('op 1 at 0 is cut off'),
      expect.stringContaining('holds a surrogate'),
      expect.stringContaining('outside the ops array'),
    ]);
  });
});
