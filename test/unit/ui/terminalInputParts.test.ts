// The terminal view's pure input rules: which keys are the view's shortcuts on each platform,
// how Qt's mouse bits, clicks and wheel deltas become terminal input, and which link is under a cell.
import { describe, expect, it } from 'vitest';
import { QtMod } from '../../../src/app/ui/terminal/keyMapping';
import {
  ClickCounter,
  MULTI_CLICK_MS,
  QT_LEFT,
  QT_MIDDLE,
  QT_RIGHT,
  WheelNotches,
  heldButton,
  mouseMods,
  qtButton,
} from '../../../src/app/ui/terminal/pointerInput';
import { isOpenableLink, linkAt } from '../../../src/app/ui/terminal/terminalLinks';
import { shortcutFor } from '../../../src/app/ui/terminal/terminalShortcuts';
import type { KeyInput } from '../../../src/terminal/common/inputEncoding';
import type { RenderRow, Run } from '../../../src/terminal/node/renderModel';

describe('shortcutFor', () => {
  const key = (k: string, mods: Partial<KeyInput> = {}): KeyInput => ({ key: k, shift: false, ctrl: false, alt: false, meta: false, ...mods });

  it('uses Ctrl+Shift on Linux and leaves plain Ctrl keys to the session', () => {
    expect(shortcutFor(key('f', { ctrl: true, shift: true }), false)).toBe('find');
    expect(shortcutFor(key('c', { ctrl: true, shift: true }), false)).toBe('copy');
    expect(shortcutFor(key('v', { ctrl: true, shift: true }), false)).toBe('paste');
    expect(shortcutFor(key('c', { ctrl: true }), false)).toBeNull();
    expect(shortcutFor(key('v', { ctrl: true }), false)).toBeNull();
    expect(shortcutFor(key('f', { meta: true }), false)).toBeNull();
    expect(shortcutFor(key('Insert', { shift: true }), false)).toBe('paste');
  });

  it('uses Cmd on macOS, where Ctrl keys and Shift+Insert go to the session', () => {
    expect(shortcutFor(key('f', { meta: true }), true)).toBe('find');
    expect(shortcutFor(key('c', { meta: true }), true)).toBe('copy');
    expect(shortcutFor(key('v', { meta: true }), true)).toBe('paste');
    expect(shortcutFor(key('c', { ctrl: true, shift: true }), true)).toBeNull();
    expect(shortcutFor(key('c', { meta: true, ctrl: true }), true)).toBeNull();
    expect(shortcutFor(key('Insert', { shift: true }), true)).toBeNull();
  });

  it('pages through scrollback with Shift+PageUp/PageDown, and Cmd+arrows/Home/End on macOS', () => {
    expect(shortcutFor(key('PageUp', { shift: true }), false)).toBe('pageUp');
    expect(shortcutFor(key('PageDown', { shift: true }), true)).toBe('pageDown');
    expect(shortcutFor(key('PageUp'), false)).toBeNull();
    expect(shortcutFor(key('PageUp', { shift: true, ctrl: true }), false)).toBeNull();
    expect(shortcutFor(key('Home', { meta: true }), true)).toBe('scrollToTop');
    expect(shortcutFor(key('ArrowUp', { meta: true }), true)).toBe('scrollToTop');
    expect(shortcutFor(key('End', { meta: true }), true)).toBe('scrollToBottom');
    expect(shortcutFor(key('ArrowDown', { meta: true }), true)).toBe('scrollToBottom');
    expect(shortcutFor(key('Home', { meta: true }), false)).toBeNull();
  });
});

describe('pointer input', () => {
  it('names the button of a press and the one a move holds (left, then middle, then right)', () => {
    expect(qtButton(QT_LEFT)).toBe('left');
    expect(qtButton(QT_MIDDLE)).toBe('middle');
    expect(qtButton(QT_RIGHT)).toBe('right');
    expect(qtButton(0)).toBe('none');
    expect(heldButton(QT_RIGHT | QT_MIDDLE)).toBe('middle');
    expect(heldButton(QT_RIGHT | QT_LEFT)).toBe('left');
    expect(heldButton(0)).toBe('none');
  });

  it('reports Cmd as Ctrl on macOS and Ctrl as Ctrl elsewhere', () => {
    expect(mouseMods(QtMod.control | QtMod.shift, false)).toEqual({ shift: true, alt: false, ctrl: true });
    expect(mouseMods(QtMod.control, true)).toEqual({ shift: false, alt: false, ctrl: false });
    expect(mouseMods(QtMod.meta | QtMod.alt, true)).toEqual({ shift: false, alt: true, ctrl: true });
  });

  it('counts quick clicks on one cell up to three, then starts again', () => {
    const clicks = new ClickCounter();
    expect(clicks.click(3, 1, 1000)).toBe(1);
    expect(clicks.click(3, 1, 1100)).toBe(2);
    expect(clicks.click(3, 1, 1200)).toBe(3);
    expect(clicks.click(3, 1, 1300)).toBe(1);
    expect(clicks.click(4, 1, 1350)).toBe(1);
    expect(clicks.click(4, 1, 1350 + MULTI_CLICK_MS)).toBe(1);
  });

  it('turns wheel deltas into whole notches and carries the rest', () => {
    const wheel = new WheelNotches();
    expect(wheel.add(240)).toBe(2);
    expect(wheel.add(60)).toBe(0);
    expect(wheel.add(60)).toBe(1);
    expect(wheel.add(-100)).toBe(0);
    expect(wheel.add(-30)).toBe(-1);
    expect(wheel.add(10)).toBe(0);
  });
});

describe('terminal links', () => {
  const run = (col: number, text: string, link?: string): Run => ({
    col,
    cells: text.length,
    text,
    cellWidth: 1,
    fg: { kind: 'default' },
    bg: { kind: 'default' },
    bold: false,
    italic: false,
    dim: false,
    underline: 'none',
    strikethrough: false,
    overline: false,
    inverse: false,
    invisible: false,
    blink: false,
    link,
  });
  const row = (runs: Run[]): RenderRow => ({ runs, text: runs.map((r) => r.text).join(''), wrapped: false });

  it('finds an OSC 8 link first, then a URL in the row text', () => {
    const line = row([run(0, 'docs ', 'https://example.com/docs'), run(5, 'see https://a.example/x.')]);
    expect(linkAt(line, 0)).toBe('https://example.com/docs');
    expect(linkAt(line, 4)).toBe('https://example.com/docs');
    expect(linkAt(line, 9)).toBe('https://a.example/x');
    expect(linkAt(line, 27)).toBe('https://a.example/x');
    expect(linkAt(line, 28)).toBeNull();
    expect(linkAt(line, 6)).toBeNull();
    expect(linkAt(undefined, 0)).toBeNull();
  });

  it('opens only web, file and mail links by default', () => {
    expect(isOpenableLink('https://example.com')).toBe(true);
    expect(isOpenableLink('HTTP://example.com')).toBe(true);
    expect(isOpenableLink('mailto:a@b.c')).toBe(true);
    expect(isOpenableLink('file:///tmp/x')).toBe(true);
    expect(isOpenableLink('/Applications/Calculator.app')).toBe(false);
    expect(isOpenableLink('javascript:alert(1)')).toBe(false);
    expect(isOpenableLink('ssh://host')).toBe(false);
  });
});
