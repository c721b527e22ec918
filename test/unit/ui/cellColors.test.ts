// Colour resolution as data: what RGB a run's attributes give under the dark and light themes.
import { describe, expect, it } from 'vitest';
import { blend, matchBackground, runColors } from '../../../src/app/ui/terminal/cellColors';
import type { Color, Run } from '../../../src/terminal/node/renderModel';
import { darkTheme, lightTheme } from '../../../src/terminal/common/theme';

const def: Color = { kind: 'default' };
const pal = (index: number): Color => ({ kind: 'palette', index });

function run(over: Partial<Run> = {}): Run {
  return {
    col: 0,
    cells: 1,
    text: 'x',
    cellWidth: 1,
    fg: def,
    bg: def,
    bold: false,
    italic: false,
    dim: false,
    underline: 'none',
    strikethrough: false,
    overline: false,
    inverse: false,
    invisible: false,
    blink: false,
    ...over,
  };
}

describe('runColors', () => {
  it('resolves default colours to the theme and leaves the default background unfilled', () => {
    expect(runColors(darkTheme, run())).toEqual({ fg: darkTheme.foreground, bg: darkTheme.background, bgIsDefault: true });
    expect(runColors(lightTheme, run())).toEqual({ fg: lightTheme.foreground, bg: lightTheme.background, bgIsDefault: true });
  });

  it('resolves palette and true colours; an explicit background is filled even when it equals the default', () => {
    const c = runColors(darkTheme, run({ fg: pal(1), bg: { kind: 'rgb', value: darkTheme.background } }));
    expect(c).toEqual({ fg: 0xcc6666, bg: darkTheme.background, bgIsDefault: false });
    expect(runColors(darkTheme, run({ fg: pal(196) })).fg).toBe(0xff0000);
  });

  it('brightens bold text in the 8 base colours only', () => {
    expect(runColors(darkTheme, run({ bold: true, fg: pal(1) })).fg).toBe(darkTheme.ansi[9]);
    expect(runColors(darkTheme, run({ bold: true, fg: pal(9) })).fg).toBe(darkTheme.ansi[9]);
    expect(runColors(darkTheme, run({ bold: true, fg: pal(100) })).fg).toBe(runColors(darkTheme, run({ fg: pal(100) })).fg);
    expect(runColors(darkTheme, run({ bold: true })).fg).toBe(darkTheme.foreground);
  });

  it('swaps colours for inverse, which then always fills its background', () => {
    expect(runColors(darkTheme, run({ inverse: true }))).toEqual({ fg: darkTheme.background, bg: darkTheme.foreground, bgIsDefault: false });
  });

  it('dims towards the background and hides invisible text in it', () => {
    const dim = runColors(lightTheme, run({ dim: true, fg: { kind: 'rgb', value: 0x000000 } }));
    expect(dim.fg).toBe(0x7e7e7e);
    expect(runColors(darkTheme, run({ invisible: true, bg: pal(4) })).fg).toBe(darkTheme.ansi[4]);
  });
});

describe('matchBackground', () => {
  it('is the theme yellow for the current match and a faint wash of it for the others', () => {
    expect(matchBackground(darkTheme, true)).toBe(darkTheme.ansi[3]);
    expect(matchBackground(darkTheme, false)).toBe(blend(darkTheme.ansi[3]!, darkTheme.background, 0.35));
    expect(matchBackground(lightTheme, false)).not.toBe(matchBackground(lightTheme, true));
  });
});

describe('blend', () => {
  it('mixes each channel by alpha', () => {
    expect(blend(0xffffff, 0x000000, 0.5)).toBe(0x808080);
    expect(blend(0xff0000, 0x0000ff, 1)).toBe(0xff0000);
    expect(blend(0xff0000, 0x0000ff, 0)).toBe(0x0000ff);
    expect(blend(0x102030, 0x302010, 0.25)).toBe(0x282018);
  });
});
