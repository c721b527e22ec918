// Terminal colour themes as data: the 16 ANSI colours, default foreground/background, cursor
// and selection, plus the standard xterm 256-colour cube. Colours are 0xRRGGBB numbers.
import type { Color } from './renderTypes';

export interface Theme {
  name: string;
  foreground: number;
  background: number;
  cursor: number;
  /** Text drawn inside a block cursor. */
  cursorText: number;
  selectionBackground: number;
  /** ANSI 0–15: black, red, green, yellow, blue, magenta, cyan, white, then the bright ones. */
  ansi: readonly number[];
}

export const darkTheme: Theme = {
  name: 'dark',
  foreground: 0xd8d8d8,
  background: 0x1d1f21,
  cursor: 0xd8d8d8,
  cursorText: 0x1d1f21,
  selectionBackground: 0x3a5a8c,
  ansi: [
    0x1d1f21, 0xcc6666, 0x98c379, 0xe5c07b, 0x61afef, 0xc678dd, 0x56b6c2, 0xc5c8c6, 0x666666, 0xff7b7b, 0xb5e890, 0xffd787, 0x82c4ff, 0xdd9cf0, 0x7fd6e0,
    0xffffff,
  ],
};

export const lightTheme: Theme = {
  name: 'light',
  foreground: 0x2e3436,
  background: 0xfbfbfb,
  cursor: 0x2e3436,
  cursorText: 0xfbfbfb,
  selectionBackground: 0xb4d5fe,
  ansi: [
    0x000000, 0xc91b00, 0x00a600, 0x9f7c00, 0x0225c7, 0xb200b2, 0x00a6b2, 0xbfbfbf, 0x686868, 0xff6e67, 0x3fba32, 0xb59400, 0x6871ff, 0xf26df9, 0x26b5c3,
    0x4d4d4d,
  ],
};

/** The 6×6×6 cube's channel levels (xterm's: 0, then 95 + 40·n). */
const CUBE_LEVELS = [0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff];

/** A 0xRRGGBB colour as CSS "#rrggbb" (style sheets). */
export function cssHex(rgb: number): string {
  return `#${rgb.toString(16).padStart(6, '0')}`;
}

/** RGB for a 256-colour palette index under a theme (0–15 from the theme, 16–231 the cube,
 *  232–255 the grey ramp 8, 18, … 238). */
export function paletteColor(theme: Theme, index: number): number {
  if (index < 16) return theme.ansi[index] ?? theme.foreground;
  if (index < 232) {
    const i = index - 16;
    const r = CUBE_LEVELS[Math.floor(i / 36)]!;
    const g = CUBE_LEVELS[Math.floor(i / 6) % 6]!;
    const b = CUBE_LEVELS[i % 6]!;
    return (r << 16) | (g << 8) | b;
  }
  const v = 8 + (index - 232) * 10;
  return (v << 16) | (v << 8) | v;
}

/** A cell colour resolved to RGB (role says which default applies). */
export function resolveColor(theme: Theme, c: Color, role: 'fg' | 'bg'): number {
  if (c.kind === 'rgb') return c.value;
  if (c.kind === 'palette') return paletteColor(theme, c.index);
  return role === 'fg' ? theme.foreground : theme.background;
}

/** Dim (SGR 2): the colour blended halfway towards the background. */
export function dimColor(rgb: number, background: number): number {
  const mix = (shift: number): number => Math.round((((rgb >> shift) & 0xff) + ((background >> shift) & 0xff)) / 2);
  return (mix(16) << 16) | (mix(8) << 8) | mix(0);
}
