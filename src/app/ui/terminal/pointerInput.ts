// Mouse input as data: Qt's button and modifier bits → the terminal layer's names, click counting
// for word and line selection, and wheel notches from Qt's eighths of a degree. Pure, with Qt's
// numeric constants spelled out, so it is testable without loading Qt.
import type { MouseButton } from '../../../terminal/common';
import { QtMod } from './keyMapping';

/** Qt::MouseButton bits. */
export const QT_LEFT = 1;
export const QT_RIGHT = 2;
export const QT_MIDDLE = 4;
/** Clicks closer than this (and on the same cell) count as double/triple clicks. */
export const MULTI_CLICK_MS = 400;
/** Qt reports wheel rotation in eighths of a degree: one notch = 15° = 120. */
export const WHEEL_NOTCH = 120;

/** The button a press or release is about. */
export function qtButton(b: number): MouseButton {
  if (b & QT_LEFT) return 'left';
  if (b & QT_MIDDLE) return 'middle';
  if (b & QT_RIGHT) return 'right';
  return 'none';
}

/** The button a move reports as held, from the buttons down (left wins, then middle). */
export function heldButton(buttonsDown: number): MouseButton {
  return buttonsDown & QT_LEFT ? 'left' : buttonsDown & QT_MIDDLE ? 'middle' : buttonsDown & QT_RIGHT ? 'right' : 'none';
}

/** The modifiers mouse reports carry; Ctrl is Cmd on macOS (where Qt calls Cmd Control). */
export function mouseMods(modifiers: number, macOS: boolean): { shift: boolean; alt: boolean; ctrl: boolean } {
  return {
    shift: (modifiers & QtMod.shift) !== 0,
    alt: (modifiers & QtMod.alt) !== 0,
    ctrl: (modifiers & (macOS ? QtMod.meta : QtMod.control)) !== 0,
  };
}

/** Counts quick clicks on one cell: 1, 2, 3, then 1 again (char, word, line selection). */
export class ClickCounter {
  private count = 0;
  private last = { at: 0, col: -1, row: -1 };

  click(col: number, row: number, now: number): 1 | 2 | 3 {
    const same = col === this.last.col && row === this.last.row && now - this.last.at < MULTI_CLICK_MS;
    this.count = same ? (this.count % 3) + 1 : 1;
    this.last = { at: now, col, row };
    return this.count as 1 | 2 | 3;
  }
}

/** Turns wheel deltas into whole notches, carrying the rest (touchpads send small deltas). */
export class WheelNotches {
  private remainder = 0;

  /** Whole notches in this delta plus what was left over; positive = away from the user (up). */
  add(delta: number): number {
    this.remainder += delta;
    const notches = Math.trunc(this.remainder / WHEEL_NOTCH);
    this.remainder -= notches * WHEEL_NOTCH;
    // Math.trunc gives -0 for a small upward rest; callers and tests expect a plain 0.
    return notches === 0 ? 0 : notches;
  }
}
