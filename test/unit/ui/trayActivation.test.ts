// The tray icon's click, per platform: a window comes forward on Linux's left click, and never
// on macOS, where the click that opens the menu is reported as the same activation.
import { describe, expect, it } from 'vitest';
import { TrayActivation, trayActivationShowsWindow } from '../../../src/app/ui/trayActivation';

describe('trayActivationShowsWindow', () => {
  it('on Linux, a left click (Trigger) shows a window; the menu button and others do not', () => {
    expect(trayActivationShowsWindow(TrayActivation.Trigger, 'linux')).toBe(true);
    expect(trayActivationShowsWindow(TrayActivation.Context, 'linux')).toBe(false);
    expect(trayActivationShowsWindow(TrayActivation.MiddleClick, 'linux')).toBe(false);
    expect(trayActivationShowsWindow(TrayActivation.Unknown, 'linux')).toBe(false);
  });

  it('on macOS, the Trigger Qt reports as the menu opens shows nothing', () => {
    for (const reason of Object.values(TrayActivation)) expect(trayActivationShowsWindow(reason, 'darwin')).toBe(false);
  });
});
