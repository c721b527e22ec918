// Box drawing and block elements as cell geometry: lines meet at the cell centre and reach the
// cell edges, so neighbouring cells join without gaps.
import { describe, expect, it } from 'vitest';
import { boxShapes, isBoxChar, type BoxShape } from '../../../src/app/ui/terminal/boxDrawing';

type Rect = Extract<BoxShape, { kind: 'rect' }>;
const rects = (cp: number, w = 10, h = 20): Rect[] => (boxShapes(cp, w, h) ?? []).filter((s): s is Rect => s.kind === 'rect');
const covers = (rs: Rect[], x: number, y: number): boolean => rs.some((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h);

describe('boxShapes', () => {
  it('draws ─ from the left edge to the right edge through the centre row', () => {
    const r = rects(0x2500);
    for (let x = 0; x < 10; x++) expect(covers(r, x, 10)).toBe(true);
    expect(covers(r, 5, 0)).toBe(false);
  });

  it('draws │ from top to bottom through the centre column', () => {
    const r = rects(0x2502);
    for (let y = 0; y < 20; y++) expect(covers(r, 5, y)).toBe(true);
  });

  it('joins the arms of ┼ and ┌ at the centre', () => {
    const cross = rects(0x253c);
    expect([covers(cross, 0, 10), covers(cross, 9, 10), covers(cross, 5, 0), covers(cross, 5, 19)]).toEqual([true, true, true, true]);
    const corner = rects(0x250c);
    expect([covers(corner, 0, 10), covers(corner, 9, 10), covers(corner, 5, 0), covers(corner, 5, 19)]).toEqual([false, true, false, true]);
  });

  it('draws heavy lines thicker than light ones and double lines as two', () => {
    const light = rects(0x2500)[0]!.h;
    const heavy = rects(0x2501)[0]!.h;
    expect(heavy).toBeGreaterThan(light);
    const dbl = rects(0x2550);
    const ys = new Set(dbl.map((r) => r.y));
    expect(ys.size).toBe(2);
  });

  it('draws rounded corners as an arc plus arms', () => {
    const s = boxShapes(0x256d, 10, 20)!;
    const arcs = s.filter((x) => x.kind === 'arc');
    expect(arcs).toHaveLength(1);
    // The arc starts at the centre row and, with the arm, reaches the right edge; the other arm
    // reaches the bottom edge.
    const arc = arcs[0] as Extract<BoxShape, { kind: 'arc' }>;
    expect(arc.cy - arc.r).toBe(10);
    const armRight = rects(0x256d).find((r) => r.y <= 10 && r.y + r.h > 10);
    expect(armRight ? armRight.x + armRight.w : arc.cx).toBe(10);
    expect(covers(rects(0x256d), 5, 19)).toBe(true);
  });

  it('fills block elements by eighths, halves, shades and quadrants', () => {
    expect(rects(0x2588)).toEqual([{ kind: 'rect', x: 0, y: 0, w: 10, h: 20 }]);
    expect(rects(0x2580)).toEqual([{ kind: 'rect', x: 0, y: 0, w: 10, h: 10 }]);
    expect(rects(0x2584)).toEqual([{ kind: 'rect', x: 0, y: 10, w: 10, h: 10 }]);
    expect(rects(0x258c)).toEqual([{ kind: 'rect', x: 0, y: 0, w: 5, h: 20 }]);
    expect(rects(0x2592)[0]!.alpha).toBe(0.5);
    expect(rects(0x259a)).toHaveLength(2);
  });

  it('has geometry for every box and block code point, and none outside', () => {
    for (let cp = 0x2500; cp <= 0x259f; cp++) {
      expect(isBoxChar(cp)).toBe(true);
      expect(boxShapes(cp, 10, 20)?.length, `U+${cp.toString(16)}`).toBeGreaterThan(0);
    }
    expect(boxShapes(0x41, 10, 20)).toBeNull();
  });
});
