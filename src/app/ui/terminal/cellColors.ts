// Colour resolution for the grid: a run's attributes and the theme → the RGB values the painter
// fills and draws with. Pure, so the rules (bold brightens, inverse swaps, dim, invisible, find
// match backgrounds) are testable as data.
import type { Run, Theme } from '../../../terminal/common';
import { dimColor, resolveColor } from '../../../terminal/common/theme';

export interface RunColors {
  fg: number;
  bg: number;
  /** The cell shows the terminal's own background: nothing to fill under it. */
  bgIsDefault: boolean;
}

/** Palette indices 0-7 are the base colours; 8-15 their bright variants. */
const BASE_COLORS = 8;
/** The theme's yellow (ANSI 3) marks find matches, as in most terminals. */
const MATCH_COLOR = 3;
/** Other matches are a faint wash of the match colour over the background. */
const MATCH_ALPHA = 0.35;

export function runColors(theme: Theme, run: Run): RunColors {
  let fg = resolveColor(theme, run.fg, 'fg');
  let bg = resolveColor(theme, run.bg, 'bg');
  // Bold text in one of the 8 base colours shows the bright variant, as xterm does.
  if (run.bold && run.fg.kind === 'palette' && run.fg.index < BASE_COLORS) {
    fg = resolveColor(theme, { kind: 'palette', index: run.fg.index + BASE_COLORS }, 'fg');
  }
  let bgIsDefault = run.bg.kind === 'default';
  if (run.inverse) {
    [fg, bg] = [bg, fg];
    bgIsDefault = false;
  }
  if (run.dim) fg = dimColor(fg, bg);
  if (run.invisible) fg = bg;
  return { fg, bg, bgIsDefault };
}

/** Find matches: the theme's yellow, full for the current one and faint for the others. */
export function matchBackground(theme: Theme, current: boolean): number {
  const yellow = theme.ansi[MATCH_COLOR]!;
  return current ? yellow : blend(yellow, theme.background, MATCH_ALPHA);
}

/** `fg` over `bg` at opacity `alpha` (0..1), per 8-bit channel of 0xRRGGBB. */
export function blend(fg: number, bg: number, alpha: number): number {
  const mix = (s: number): number => Math.round(((fg >> s) & 0xff) * alpha + ((bg >> s) & 0xff) * (1 - alpha));
  return (mix(16) << 16) | (mix(8) << 8) | mix(0);
}
