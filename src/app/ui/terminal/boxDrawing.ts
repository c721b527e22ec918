// Box drawing (U+2500–U+257F) and block elements (U+2580–U+259F) as geometry on the cell grid,
// so borders join seamlessly whatever the font's glyphs look like. Pure: returns shapes in
// cell-relative pixels; the view paints them.

export type BoxShape =
  | { kind: 'rect'; x: number; y: number; w: number; h: number; alpha?: number }
  | { kind: 'line'; x1: number; y1: number; x2: number; y2: number; width: number }
  | { kind: 'arc'; cx: number; cy: number; r: number; startDeg: number; spanDeg: number; width: number };

/** Line weights per direction, as 4 digits up/right/down/left: 0 none, 1 light, 2 heavy,
 *  3 double. Index = code point − 0x2500, for 0x2500–0x257F. */
const LINES = [
  '0101',
  '0202',
  '1010',
  '2020',
  '0101',
  '0202',
  '1010',
  '2020',
  '0101',
  '0202',
  '1010',
  '2020', // 2500–250B
  '0110',
  '0210',
  '0120',
  '0220',
  '0011',
  '0012',
  '0021',
  '0022', // 250C–2513 ┌┍┎┏ ┐┑┒┓
  '1100',
  '1200',
  '2100',
  '2200',
  '1001',
  '1002',
  '2001',
  '2002', // 2514–251B └┕┖┗ ┘┙┚┛
  '1110',
  '1210',
  '2110',
  '1120',
  '2120',
  '2210',
  '1220',
  '2220', // 251C–2523 ├┝┞┟┠┡┢┣
  '1011',
  '1012',
  '2011',
  '1021',
  '2021',
  '2012',
  '1022',
  '2022', // 2524–252B ┤┥┦┧┨┩┪┫
  '0111',
  '0112',
  '0211',
  '0212',
  '0121',
  '0122',
  '0221',
  '0222', // 252C–2533 ┬┭┮┯┰┱┲┳
  '1101',
  '1102',
  '1201',
  '1202',
  '2101',
  '2102',
  '2201',
  '2202', // 2534–253B ┴┵┶┷┸┹┺┻
  '1111',
  '1112',
  '1211',
  '1212',
  '2111',
  '1121',
  '2121',
  '2112', // 253C–2543 ┼┽┾┿╀╁╂╃
  '2211',
  '1122',
  '1221',
  '2212',
  '1222',
  '2122',
  '2221',
  '2222', // 2544–254B ╄╅╆╇╈╉╊╋
  '0101',
  '0202',
  '1010',
  '2020', // 254C–254F dashed
  '0303',
  '3030',
  '0310',
  '0130',
  '0330',
  '0013',
  '0031',
  '0033', // 2550–2557 ═║╒╓╔╕╖╗
  '1300',
  '3100',
  '3300',
  '1003',
  '3001',
  '3003',
  '1310',
  '3130', // 2558–255F ╘╙╚╛╜╝╞╟
  '3330',
  '1013',
  '3031',
  '3033',
  '0313',
  '0131',
  '0333',
  '1303', // 2560–2567 ╠╡╢╣╤╥╦╧
  '3101',
  '3303',
  '1313',
  '3131',
  '3333', // 2568–256C ╨╩╪╫╬
  '0110',
  '0011',
  '1001',
  '1100', // 256D–2570 rounded ╭╮╯╰
  '',
  '',
  '', // 2571–2573 diagonals, handled separately
  '0001',
  '1000',
  '0100',
  '0010',
  '0002',
  '2000',
  '0200',
  '0020', // 2574–257B ╴╵╶╷╸╹╺╻
  '0201',
  '1020',
  '0102',
  '2010', // 257C–257F ╼╽╾╿
];

/** Dash count for the dashed lines (U+2504–U+250B, U+254C–U+254F). */
function dashes(cp: number): number {
  if (cp >= 0x2504 && cp <= 0x2507) return 3;
  if (cp >= 0x2508 && cp <= 0x250b) return 4;
  if (cp >= 0x254c && cp <= 0x254f) return 2;
  return 0;
}

export function isBoxChar(cp: number): boolean {
  return cp >= 0x2500 && cp <= 0x259f;
}

/** Shapes for one character in a w×h cell, or null if it is not drawn as geometry. */
export function boxShapes(cp: number, w: number, h: number): BoxShape[] | null {
  if (cp >= 0x2580 && cp <= 0x259f) return blockShapes(cp, w, h);
  if (cp < 0x2500 || cp > 0x257f) return null;
  // Light lines are 1/8 of the narrow side (at least one pixel), heavy ones twice that.
  const light = Math.max(1, Math.round(Math.min(w, h) / 8));
  const heavy = light * 2;
  const cx = Math.floor(w / 2);
  const cy = Math.floor(h / 2);
  if (cp >= 0x2571 && cp <= 0x2573) return diagonalShapes(cp, w, h, light);
  const spec = LINES[cp - 0x2500];
  if (!spec) return null;
  const [up, right, down, left] = [...spec].map(Number) as [number, number, number, number];
  if (cp >= 0x256d && cp <= 0x2570) return roundedCorner(cp, w, h, cx, cy, light);
  const out: BoxShape[] = [];
  const n = dashes(cp);
  if (n) {
    const t = up === 2 || right === 2 ? heavy : light;
    const horizontal = right !== 0;
    const len = horizontal ? w : h;
    const seg = len / n;
    for (let i = 0; i < n; i++) {
      const a = Math.round(i * seg);
      const b = Math.round(i * seg + seg * 0.6);
      if (horizontal) out.push({ kind: 'rect', x: a, y: cy - Math.floor(t / 2), w: b - a, h: t });
      else out.push({ kind: 'rect', x: cx - Math.floor(t / 2), y: a, w: t, h: b - a });
    }
    return out;
  }
  const thick = (weight: number): number => (weight === 2 ? heavy : light);
  // Half-lines from the cell edge to (and past) the centre, so perpendicular lines overlap.
  const vExtent = Math.max(up === 3 || down === 3 ? light * 2 : 0, thick(Math.max(left, right)));
  const hExtent = Math.max(left === 3 || right === 3 ? light * 2 : 0, thick(Math.max(up, down)));
  const hLine = (x0: number, x1: number, weight: number): void => {
    if (weight === 3) {
      out.push({ kind: 'rect', x: x0, y: cy - light * 2, w: x1 - x0, h: light });
      out.push({ kind: 'rect', x: x0, y: cy + light, w: x1 - x0, h: light });
    } else {
      const t = thick(weight);
      out.push({ kind: 'rect', x: x0, y: cy - Math.floor(t / 2), w: x1 - x0, h: t });
    }
  };
  const vLine = (y0: number, y1: number, weight: number): void => {
    if (weight === 3) {
      out.push({ kind: 'rect', x: cx - light * 2, y: y0, w: light, h: y1 - y0 });
      out.push({ kind: 'rect', x: cx + light, y: y0, w: light, h: y1 - y0 });
    } else {
      const t = thick(weight);
      out.push({ kind: 'rect', x: cx - Math.floor(t / 2), y: y0, w: t, h: y1 - y0 });
    }
  };
  if (left) hLine(0, cx + Math.ceil(hExtent / 2) + (left === 3 ? light : 0), left);
  if (right) hLine(cx - Math.floor(hExtent / 2) - (right === 3 ? light : 0), w, right);
  if (up) vLine(0, cy + Math.ceil(vExtent / 2) + (up === 3 ? light : 0), up);
  if (down) vLine(cy - Math.floor(vExtent / 2) - (down === 3 ? light : 0), h, down);
  return out;
}

/** ╱ ╲ ╳: corner-to-corner lines. */
function diagonalShapes(cp: number, w: number, h: number, light: number): BoxShape[] {
  const out: BoxShape[] = [];
  if (cp !== 0x2572) out.push({ kind: 'line', x1: w, y1: 0, x2: 0, y2: h, width: light });
  if (cp !== 0x2571) out.push({ kind: 'line', x1: 0, y1: 0, x2: w, y2: h, width: light });
  return out;
}

function roundedCorner(cp: number, w: number, h: number, cx: number, cy: number, t: number): BoxShape[] {
  const r = Math.max(1, Math.min(cx, cy));
  // Which way the two arms go: right/down for ╭, left/down for ╮, left/up for ╯, right/up for ╰.
  const goesRight = cp === 0x256d || cp === 0x2570;
  const goesDown = cp === 0x256d || cp === 0x256e;
  const ax = goesRight ? cx + r : cx - r; // arc centre
  const ay = goesDown ? cy + r : cy - r;
  // Qt angles: degrees counter-clockwise from 3 o'clock; the arc joins the two arm ends.
  const startDeg = goesRight ? (goesDown ? 90 : 180) : goesDown ? 0 : 270;
  const out: BoxShape[] = [{ kind: 'arc', cx: ax, cy: ay, r, startDeg, spanDeg: 90, width: t }];
  const half = Math.floor(t / 2);
  if (goesRight) out.push({ kind: 'rect', x: ax, y: cy - half, w: w - ax, h: t });
  else out.push({ kind: 'rect', x: 0, y: cy - half, w: ax, h: t });
  if (goesDown) out.push({ kind: 'rect', x: cx - half, y: ay, w: t, h: h - ay });
  else out.push({ kind: 'rect', x: cx - half, y: 0, w: t, h: ay });
  return out;
}

/** Eighths of the cell for the partial blocks, quadrant masks for the quadrant characters. */
function blockShapes(cp: number, w: number, h: number): BoxShape[] {
  const rect = (x: number, y: number, rw: number, rh: number, alpha?: number): BoxShape =>
    alpha === undefined ? { kind: 'rect', x, y, w: rw, h: rh } : { kind: 'rect', x, y, w: rw, h: rh, alpha };
  const eighthH = (n: number): number => Math.round((h * n) / 8);
  const eighthW = (n: number): number => Math.round((w * n) / 8);
  if (cp === 0x2580) return [rect(0, 0, w, eighthH(4))];
  if (cp >= 0x2581 && cp <= 0x2588) {
    const hh = eighthH(cp - 0x2580);
    return [rect(0, h - hh, w, hh)];
  }
  if (cp >= 0x2589 && cp <= 0x258f) return [rect(0, 0, eighthW(0x2590 - cp), h)];
  if (cp === 0x2590) return [rect(w - eighthW(4), 0, eighthW(4), h)];
  if (cp >= 0x2591 && cp <= 0x2593) return [rect(0, 0, w, h, (cp - 0x2590) * 0.25)];
  if (cp === 0x2594) return [rect(0, 0, w, eighthH(1))];
  if (cp === 0x2595) return [rect(w - eighthW(1), 0, eighthW(1), h)];
  // Quadrants: bits upper-left 1, upper-right 2, lower-left 4, lower-right 8.
  const masks: Record<number, number> = {
    0x2596: 4,
    0x2597: 8,
    0x2598: 1,
    0x2599: 1 | 4 | 8,
    0x259a: 1 | 8,
    0x259b: 1 | 2 | 4,
    0x259c: 1 | 2 | 8,
    0x259d: 2,
    0x259e: 2 | 4,
    0x259f: 2 | 4 | 8,
  };
  const m = masks[cp] ?? 0;
  const hw = Math.round(w / 2);
  const hh = Math.round(h / 2);
  const out: BoxShape[] = [];
  if (m & 1) out.push(rect(0, 0, hw, hh));
  if (m & 2) out.push(rect(hw, 0, w - hw, hh));
  if (m & 4) out.push(rect(0, hh, hw, h - hh));
  if (m & 8) out.push(rect(hw, hh, w - hw, h - hh));
  return out;
}
