// Loads the native grid painter (native/gridpaint, built by scripts/setup.mjs against the Qt that
// NodeGUI uses) and types its calls. The view hands it whole frames encoded by gridOps.ts.
import { join } from 'node:path';
import type { QWidget } from '@nodegui/nodegui';
import { appRoot } from '../../platform';
import type { CellFonts } from './cellFonts';
import type { GridOps } from './gridOps';

/** A painter: fonts, cell metrics and the glyph cache for one font family and size. */
export interface NativeGridHandle {
  readonly __brand: 'gridpaint';
}

interface GridPaintAddon {
  create(family: string, pointSize: number, cellW: number, cellH: number, ascent: number): NativeGridHandle;
  paintWidget(painter: NativeGridHandle, widget: unknown, ops: Int32Array, count: number, text: string): void;
  paintImage(painter: NativeGridHandle, width: number, height: number, dpr: number, ops: Int32Array, count: number, text: string): ArrayBuffer;
  paintRows(painter: NativeGridHandle, widget: unknown, y: number, height: number, ops: Int32Array, count: number, text: string): boolean;
  settleFlush(widget: unknown): boolean;
  watchKeys(widget: unknown, onKey: (key: number, modifiers: number, text: string) => boolean): void;
  cachedGlyphs(painter: NativeGridHandle): number;
  setDirectText(painter: NativeGridHandle, on: boolean): void;
  directTextUsed(painter: NativeGridHandle): boolean;
  blitMasks(painter: NativeGridHandle): number;
}

export const GRIDPAINT_PATH = join(appRoot, 'native', 'gridpaint', 'build', 'Release', 'gridpaint.node');

let addon: GridPaintAddon | null = null;

function load(): GridPaintAddon {
  if (!addon) {
    try {
      addon = require(GRIDPAINT_PATH) as GridPaintAddon;
    } catch (err) {
      throw new Error(`cannot load the grid painter ${GRIDPAINT_PATH} (run npm start once to build it): ${(err as Error).message}`);
    }
  }
  return addon;
}

/** Painters by font and cell metrics: every view in that font shares one, and with it the glyph
 *  cache, so the first paint of a session the user switches to finds its glyphs laid out and
 *  blended already (a painter of its own had to build them all, several ms per switch). A painter
 *  keeps nothing from one paint to the next but its caches. */
const painters = new Map<string, NativeGridHandle>();

export class NativeGrid {
  private readonly handle: NativeGridHandle;

  constructor(family: string, size: number, fonts: CellFonts) {
    const key = JSON.stringify([family, size, fonts.cellW, fonts.cellH, fonts.ascent]);
    let handle = painters.get(key);
    if (!handle) {
      handle = load().create(family, size, fonts.cellW, fonts.cellH, fonts.ascent);
      painters.set(key, handle);
    }
    this.handle = handle;
  }

  /** Paints the encoded frame onto the widget; call only from the widget's paint event. */
  paintWidget(widget: QWidget, ops: GridOps): void {
    load().paintWidget(this.handle, qobjectOf(widget), ops.ops, ops.length, ops.allText);
  }

  /** Repaints a band of the widget now with these ops, painted in its paint event without a call
   *  back into JavaScript; only the band goes to the window system. False when Qt's paint event
   *  covered more than the band, or none came (hidden): the widget's Paint listener had it. */
  paintRows(widget: QWidget, y: number, height: number, ops: GridOps): boolean {
    return load().paintRows(this.handle, qobjectOf(widget), y, height, ops.ops, ops.length, ops.allText);
  }

  /** On X11, waits until the X server has read the window's last flush, so the next paint does not
   *  wait for it at its start (call while idle: a keystroke's echo is then painted without that
   *  round trip). True when it did; false on other platforms or for a hidden widget. */
  settleFlush(widget: QWidget): boolean {
    return load().settleFlush(qobjectOf(widget));
  }

  /** The widget's key presses, straight from Qt: onKey returns true when it took the key (Qt stops
   *  there), false to let Qt go on with it. Keys that type text without Ctrl, Alt or Meta skip Qt's
   *  search of the application's shortcuts. For the widget's life; one watcher per widget. */
  watchKeys(widget: QWidget, onKey: (key: number, modifiers: number, text: string) => boolean): void {
    load().watchKeys(qobjectOf(widget), onKey);
  }

  /** Paints the encoded frame into a fresh black image; returns its 0xAARRGGBB pixels. */
  paintImage(width: number, height: number, dpr: number, ops: GridOps): Uint32Array {
    return new Uint32Array(load().paintImage(this.handle, width, height, dpr, ops.ops, ops.length, ops.allText));
  }

  /** Off: every glyph goes through QPainter::drawGlyphRun, the reference the painter's own glyph
   *  blitter matches pixel for pixel (for tests and the benchmark). On by default; it applies to
   *  every view sharing this painter. */
  setDirectText(on: boolean): void {
    load().setDirectText(this.handle, on);
  }

  /** Whether the last paint blitted its glyphs itself (false: Qt drew them all). */
  get directTextUsed(): boolean {
    return load().directTextUsed(this.handle);
  }

  /** Characters whose glyphs are cached. */
  get cachedGlyphs(): number {
    return load().cachedGlyphs(this.handle);
  }

  /** Glyph masks its blitter keeps: one per glyph, font and sub-pixel step it was drawn at. */
  get blitMasks(): number {
    return load().blitMasks(this.handle);
  }
}

/** The QObject pointer NodeGUI keeps behind a widget, as an N-API external. */
function qobjectOf(widget: QWidget): unknown {
  return (widget.native as unknown as { __external_qobject__(): unknown }).__external_qobject__();
}
