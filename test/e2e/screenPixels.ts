// Pixel checks on e2e screenshots: where the terminal sits in the window, and the bands, runs
// and colours a test looks for in it (a blank screen, a highlight, a box border…).
import { readPixels, type Rgb } from './harness';

/** Channel distance under which a pixel counts as a given colour (antialiasing aside). */
const BG_TOLERANCE = 6;

export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function rgbOf(n: number): Rgb {
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function near(p: Rgb, c: Rgb, tol = BG_TOLERANCE): boolean {
  return Math.abs(p.r - c.r) <= tol && Math.abs(p.g - c.g) <= tol && Math.abs(p.b - c.b) <= tol;
}

/** A pixel with a clear hue (not grey, not the theme's fg/bg): coloured text or a coloured fill. */
export function colourful(p: Rgb): boolean {
  return Math.max(p.r, p.g, p.b) - Math.min(p.r, p.g, p.b) > 60;
}

export function blueish(p: Rgb): boolean {
  return p.b > p.r + 40 && p.b > p.g + 10;
}

/**
 * The terminal's own area inside the window: the largest block painted in the terminal
 * background, found on a screenshot of an idle shell (the layout is the same for every tab).
 */
export function terminalArea(png: string, win: Area, bg: Rgb): Area {
  const px = readPixels(png, win.x, win.y, win.width, win.height);
  const at = (x: number, y: number) => px[y * win.width + x]!;
  const cols: boolean[] = [];
  for (let x = 0; x < win.width; x++) {
    let n = 0;
    for (let y = 0; y < win.height; y++) if (near(at(x, y), bg)) n++;
    cols.push(n / win.height > 0.6);
  }
  const [x0, x1] = longestRun(cols);
  const rows: boolean[] = [];
  for (let y = 0; y < win.height; y++) {
    let n = 0;
    for (let x = x0; x < x1; x++) if (near(at(x, y), bg)) n++;
    rows.push(n / (x1 - x0) > 0.6);
  }
  const [y0, y1] = longestRun(rows);
  return { x: win.x + x0, y: win.y + y0, width: x1 - x0, height: y1 - y0 };
}

export function longestRun(flags: boolean[]): [number, number] {
  let best: [number, number] = [0, 0];
  let start = -1;
  for (let i = 0; i <= flags.length; i++) {
    if (i < flags.length && flags[i]) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start > best[1] - best[0]) best = [start, i];
      start = -1;
    }
  }
  return best;
}

/** Pixels of an area as rows, for checks that look at bands and runs. */
export class Shot {
  readonly px: Rgb[];
  constructor(
    readonly png: string,
    readonly area: Area,
  ) {
    this.px = readPixels(png, area.x, area.y, area.width, area.height);
  }

  at(x: number, y: number): Rgb {
    return this.px[y * this.area.width + x]!;
  }

  fraction(pred: (p: Rgb) => boolean): number {
    return this.px.filter(pred).length / this.px.length;
  }

  /** Distinct colours (quantised to 4 bits per channel, so antialiasing shades count once). */
  distinctColours(): number {
    return new Set(this.px.map((p) => ((p.r >> 4) << 8) | ((p.g >> 4) << 4) | (p.b >> 4))).size;
  }

  /** Bands of consecutive pixel rows that hold at least one matching pixel in columns [x0, x1). */
  bands(pred: (p: Rgb) => boolean, x0 = 0, x1 = this.area.width): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let start = -1;
    for (let y = 0; y <= this.area.height; y++) {
      let hit = false;
      if (y < this.area.height) for (let x = x0; x < x1 && !hit; x++) hit = pred(this.at(x, y));
      if (hit && start < 0) start = y;
      if (!hit && start >= 0) {
        out.push([start, y]);
        start = -1;
      }
    }
    return out;
  }

  /** The longest horizontal run of matching pixels in any pixel row between y0 and y1. */
  longestRun(pred: (p: Rgb) => boolean, y0 = 0, y1 = this.area.height): number {
    let best = 0;
    for (let y = y0; y < y1; y++) {
      let run = 0;
      for (let x = 0; x < this.area.width; x++) {
        run = pred(this.at(x, y)) ? run + 1 : 0;
        if (run > best) best = run;
      }
    }
    return best;
  }
}
