// Dark or light: the setting forces one, or 'system' follows the OS, read from Qt's application
// palette (TERMIO_APPEARANCE=dark|light stands in for the OS). Pure decisions here; Qt is only
// touched through the QApplication passed in, so this module loads without a Qt runtime.
import type { QApplication } from '@nodegui/nodegui';
import type { Appearance } from './chromeStyle';

export type { Appearance } from './chromeStyle';
export type ThemeSetting = 'system' | 'dark' | 'light';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** Qt's HSL lightness of a colour, 0–255: the mean of the largest and smallest channel. */
export function lightness(c: Rgb): number {
  return Math.round((Math.max(c.r, c.g, c.b) + Math.min(c.r, c.g, c.b)) / 2);
}

/** A window lightness at or above the middle of 0–255 reads as a light appearance. */
const LIGHT_FROM = 128;

/**
 * The palette Qt falls back to when the platform reports none (Fusion's: window #efefef, black
 * text), as on a bare X server or a Linux desktop whose theme Qt cannot read. It says nothing
 * about the user's choice, so it must not turn Termio light.
 */
const QT_FALLBACK = { window: { r: 0xef, g: 0xef, b: 0xef }, text: { r: 0, g: 0, b: 0 } };

const same = (a: Rgb, b: Rgb): boolean => a.r === b.r && a.g === b.g && a.b === b.b;

/** What the OS palette says, or null when it is Qt's own fallback (no information). */
export function appearanceFromPalette(window: Rgb, windowText: Rgb): Appearance | null {
  if (same(window, QT_FALLBACK.window) && same(windowText, QT_FALLBACK.text)) return null;
  return lightness(window) >= LIGHT_FROM ? 'light' : 'dark';
}

/** TERMIO_APPEARANCE: 'dark' or 'light' (any case, spaces ignored); unset → null; anything else is an error value. */
export function appearanceOverride(value: string | undefined): { appearance: Appearance | null; error?: string } {
  const v = value?.trim().toLowerCase();
  if (!v) return { appearance: null };
  if (v === 'dark' || v === 'light') return { appearance: v };
  return { appearance: null, error: `TERMIO_APPEARANCE=${JSON.stringify(value)} is not "dark" or "light"; following the system` };
}

/**
 * The appearance to use: 'dark' / 'light' settings force it; 'system' takes the override, else
 * the OS palette, else dark (Termio's look before it followed the system).
 */
export function decideAppearance(setting: ThemeSetting, override: Appearance | null, system: Appearance | null): Appearance {
  if (setting !== 'system') return setting;
  return override ?? system ?? 'dark';
}

/** Palette roles (QPalette::ColorRole / ColorGroup), as numbers: the enums live in NodeGUI's runtime. */
const ACTIVE_GROUP = 0;
const WINDOW_TEXT_ROLE = 0;
const WINDOW_ROLE = 10;

/** What the OS says right now, from Qt's application palette. */
export function systemAppearance(qApp: QApplication): Appearance | null {
  const p = qApp.palette();
  const rgb = (role: number): Rgb => {
    const c = p.color(ACTIVE_GROUP, role);
    return { r: c.red(), g: c.green(), b: c.blue() };
  };
  return appearanceFromPalette(rgb(WINDOW_ROLE), rgb(WINDOW_TEXT_ROLE));
}
