// The shared plumbing each concept has exactly one copy of: where Termio is installed, and the
// state palette every status dot is painted with.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installPath, installRoot, packageVersion } from '../../src/app/services/install';
import { darkChrome, lightChrome } from '../../src/app/ui/chromeStyle';
import { darkFailedColor, darkStateColors, lightFailedColor, lightStateColors } from '../../src/app/ui/stateColors';
import { trayIconSvg } from '../../src/app/ui/trayIcon';

describe('install folder', () => {
  it('is the folder holding package.json, the bundled agents and the assets', () => {
    expect(installRoot).toBe(resolve(__dirname, '..', '..'));
    expect(existsSync(installPath('agents', 'claude.json'))).toBe(true);
    expect(existsSync(installPath('assets', 'brand', 'termio-256.png'))).toBe(true);
  });
  it('reports the version package.json declares', () => {
    const declared = (JSON.parse(readFileSync(join(installRoot, 'package.json'), 'utf8')) as { version: string }).version;
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
    expect(packageVersion()).toBe(declared);
  });
});

describe('state palette', () => {
  it('is the one the window chrome uses, per appearance', () => {
    expect(darkChrome.state).toBe(darkStateColors);
    expect(lightChrome.state).toBe(lightStateColors);
  });
  it('colours the menu-bar icon with the same state colours', () => {
    for (const state of ['idle', 'working', 'done', 'attention'] as const) {
      expect(trayIconSvg(state, { count: 1 })).toContain(darkStateColors[state]);
    }
  });
  it('gives each state its own colour', () => {
    for (const p of [darkStateColors, lightStateColors]) expect(new Set(Object.values(p)).size).toBe(4);
  });
  it('gives a failed session a colour of its own: neither needs-you orange nor done green', () => {
    expect(Object.values(darkStateColors)).not.toContain(darkFailedColor);
    expect(Object.values(lightStateColors)).not.toContain(lightFailedColor);
    expect(darkChrome.failed.dot).toBe(darkFailedColor);
    expect(lightChrome.failed.dot).toBe(lightFailedColor);
    expect(darkChrome.failed.border).not.toBe(darkChrome.needsYou.border);
  });
});
