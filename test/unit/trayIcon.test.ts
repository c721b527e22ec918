import { describe, expect, it } from 'vitest';
import { TRAY_FRAMES, trayIconSvg } from '../../src/app/ui/trayIcon';

describe('tray icon', () => {
  it('is a distinct picture per state', () => {
    const svgs = (['idle', 'working', 'done', 'attention'] as const).map((s) => trayIconSvg(s));
    expect(new Set(svgs).size).toBe(4);
    for (const svg of svgs) expect(svg).toMatch(/^<svg [^>]*viewBox="0 0 64 64".*<\/svg>$/s);
  });

  it('animates only while working, and wraps its frames', () => {
    expect(trayIconSvg('working', { frame: 1 })).not.toBe(trayIconSvg('working', { frame: 2 }));
    expect(trayIconSvg('working', { frame: 1 })).toBe(trayIconSvg('working', { frame: 1 + TRAY_FRAMES }));
    expect(trayIconSvg('idle', { frame: 1 })).toBe(trayIconSvg('idle', { frame: 2 }));
  });

  it('counts the sessions that need you, capped at 9+', () => {
    expect(trayIconSvg('attention', { count: 3 })).toContain('>3</text>');
    expect(trayIconSvg('attention', { count: 12 })).toContain('>9+</text>');
  });
});
