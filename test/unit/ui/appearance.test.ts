// Dark or light from the setting, TERMIO_APPEARANCE and the OS palette; both chrome palettes
// define every role, stay readable, and the dark one keeps the colours the app shipped with.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appearanceFromPalette, appearanceOverride, decideAppearance, lightness, type Rgb } from '../../../src/app/ui/appearance';
import {
  arrowImage,
  chromeFor,
  chromeStyleSheet,
  darkChrome,
  lightChrome,
  overlayStyleSheet,
  settingsStyleSheet,
  welcomeStyleSheet,
  type ChromeColors,
} from '../../../src/app/ui/chromeStyle';

const grey = (v: number): Rgb => ({ r: v, g: v, b: v });
const black = grey(0);
const white = grey(255);

/** Every leaf of a palette as [dotted role, value]. */
function roles(c: object, prefix = ''): [string, unknown][] {
  return Object.entries(c).flatMap(([k, v]) =>
    v && typeof v === 'object' ? roles(v as object, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const ch = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * ch[0]! + 0.7152 * ch[1]! + 0.0722 * ch[2]!;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

describe('lightness', () => {
  it('is the mean of the largest and smallest channel, like QColor::lightness', () => {
    expect(lightness(black)).toBe(0);
    expect(lightness(white)).toBe(255);
    expect(lightness({ r: 0x1b, g: 0x1e, b: 0x25 })).toBe(32);
    expect(lightness({ r: 255, g: 0, b: 0 })).toBe(128);
  });
});

describe('appearanceFromPalette', () => {
  it('reads a light window as light and a dark one as dark', () => {
    expect(appearanceFromPalette(grey(0xec), black)).toBe('light'); // macOS Aqua
    expect(appearanceFromPalette({ r: 0xef, g: 0xf0, b: 0xf1 }, { r: 0x23, g: 0x26, b: 0x29 })).toBe('light'); // KDE Breeze
    expect(appearanceFromPalette(grey(0x32), white)).toBe('dark'); // macOS dark Aqua
    expect(appearanceFromPalette({ r: 0x20, g: 0x23, b: 0x26 }, { r: 0xfc, g: 0xfc, b: 0xfc })).toBe('dark'); // Breeze Dark
  });

  it('splits at half lightness', () => {
    expect(appearanceFromPalette(grey(127), black)).toBe('dark');
    expect(appearanceFromPalette(grey(128), black)).toBe('light');
  });

  it('says nothing for Qt’s own fallback palette (no desktop theme), but a near miss counts', () => {
    expect(appearanceFromPalette(grey(0xef), black)).toBeNull();
    expect(appearanceFromPalette(grey(0xef), grey(0x10))).toBe('light');
    expect(appearanceFromPalette(grey(0xf0), black)).toBe('light');
  });

  it('agrees with the lightness for any window colour', () => {
    const channel = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(channel, channel, channel, (r, g, b) => {
        const got = appearanceFromPalette({ r, g, b }, { r: 1, g: 2, b: 3 });
        expect(got).toBe(lightness({ r, g, b }) >= 128 ? 'light' : 'dark');
      }),
    );
  });
});

describe('appearanceOverride (TERMIO_APPEARANCE)', () => {
  it('takes dark or light in any case, and ignores an unset or empty value', () => {
    expect(appearanceOverride('dark')).toEqual({ appearance: 'dark' });
    expect(appearanceOverride(' Light ')).toEqual({ appearance: 'light' });
    expect(appearanceOverride(undefined)).toEqual({ appearance: null });
    expect(appearanceOverride('')).toEqual({ appearance: null });
  });

  it('reports anything else as a problem naming the value', () => {
    const r = appearanceOverride('sepia');
    expect(r.appearance).toBeNull();
    expect(r.error).toMatch(/TERMIO_APPEARANCE="sepia"/);
  });
});

describe('decideAppearance', () => {
  const all = [null, 'dark', 'light'] as const;
  it('lets a dark or light setting win over everything', () => {
    for (const env of all)
      for (const sys of all) {
        expect(decideAppearance('dark', env, sys)).toBe('dark');
        expect(decideAppearance('light', env, sys)).toBe('light');
      }
  });

  it('follows, for "system", the override, then the OS, then dark', () => {
    expect(decideAppearance('system', 'light', 'dark')).toBe('light');
    expect(decideAppearance('system', 'dark', 'light')).toBe('dark');
    expect(decideAppearance('system', null, 'light')).toBe('light');
    expect(decideAppearance('system', null, 'dark')).toBe('dark');
    expect(decideAppearance('system', null, null)).toBe('dark');
  });
});

describe('chrome palettes', () => {
  it('define the same roles, each a #rrggbb colour', () => {
    const dark = roles(darkChrome);
    const light = roles(lightChrome);
    expect(light.map(([k]) => k)).toEqual(dark.map(([k]) => k));
    for (const [k, v] of [...dark, ...light]) {
      if (k === 'appearance') continue;
      expect(v, k).toMatch(/^#[0-9a-f]{6}$/);
    }
    expect(darkChrome.appearance).toBe('dark');
    expect(lightChrome.appearance).toBe('light');
    expect(chromeFor('dark')).toBe(darkChrome);
    expect(chromeFor('light')).toBe(lightChrome);
  });

  it('keep the dark look the app shipped with', () => {
    expect(darkChrome.window).toBe('#1b1e25');
    expect(darkChrome.sidebar).toBe('#15181e');
    expect(darkChrome.needsYou.background).toBe('#3d2a14');
    expect(darkChrome.needsYou.border).toBe('#ff9f43');
    expect(darkChrome.banner.background).toBe('#4a2f12');
  });

  it('make the light one light and the dark one dark', () => {
    const l = (hex: string) => lightness({ r: parseInt(hex.slice(1, 3), 16), g: parseInt(hex.slice(3, 5), 16), b: parseInt(hex.slice(5, 7), 16) });
    for (const role of ['window', 'sidebar', 'card', 'input'] as const) {
      expect(l(lightChrome[role]), role).toBeGreaterThan(200);
      expect(l(darkChrome[role]), role).toBeLessThan(60);
    }
  });

  it.each([
    ['dark', darkChrome],
    ['light', lightChrome],
  ] as [string, ChromeColors][])('keep text readable in %s (WCAG AA, 4.5:1)', (_name, c) => {
    const pairs: [string, string, string][] = [
      ['text on window', c.text, c.window],
      ['text on sidebar', c.text, c.sidebar],
      ['text on selection', c.text, c.selection],
      ['text on card', c.text, c.card],
      ['text on button', c.text, c.control],
      ['muted on sidebar', c.muted, c.sidebar],
      ['muted on window', c.muted, c.window],
      ['body on window', c.body, c.window],
      ['warning on card', c.warning, c.card],
      ['accent on window', c.accent, c.window],
      ['list selection', c.listSelectionText, c.listSelection],
      ['needs-you title', c.needsYou.text, c.needsYou.background],
      ['needs-you detail', c.needsYou.detail, c.needsYou.selected],
      ['banner', c.banner.text, c.banner.background],
    ];
    for (const [what, fg, bg] of pairs) expect(contrast(fg, bg), what).toBeGreaterThanOrEqual(4.5);
    // Status dots, the bold label of the primary button and not-installed agents (a hint, with
    // "not installed" written out) need to stand out: 3:1, WCAG's figure for graphics.
    for (const [state, dot] of Object.entries(c.state)) expect(contrast(dot, c.sidebar), state).toBeGreaterThanOrEqual(3);
    expect(contrast(c.state.attention, c.needsYou.background)).toBeGreaterThanOrEqual(3);
    expect(contrast(c.primary.text, c.primary.background)).toBeGreaterThanOrEqual(3);
    expect(contrast(c.unavailable, c.card)).toBeGreaterThanOrEqual(3);
  });

  it('draw the combo and spin box chevrons in the muted colour', () => {
    for (const c of [darkChrome, lightChrome])
      for (const d of ['up', 'down'] as const) expect(readFileSync(arrowImage(d, c), 'utf8'), `${c.appearance} ${d}`).toContain(`stroke="${c.muted}"`);
  });

  it('are the only colours in the style sheets', () => {
    for (const c of [darkChrome, lightChrome]) {
      const used = new Set(roles(c).map(([, v]) => v));
      const sheets = [chromeStyleSheet(c), settingsStyleSheet(c), welcomeStyleSheet(c), overlayStyleSheet(c, 'picker')].join('\n');
      for (const hex of sheets.match(/#[0-9a-fA-F]{3,8}\b/g) ?? []) expect(used.has(hex), `${c.appearance}: ${hex}`).toBe(true);
    }
  });
});
