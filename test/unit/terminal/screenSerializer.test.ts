// serializeScreen: what it writes, fed to a fresh emulator of the same size, must rebuild the
// original cell for cell: every character and width, every colour and flag, the underline style
// and colour, soft wraps, both cursors, the pen, the active screen and the modes. The original is
// read through xterm's public cell API (plus the one internal field that holds the underline
// style), never through the serializer's own reading of the cell arrays.
import type { IBuffer, IBufferCell, Terminal } from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { createEmulator } from '../../../src/terminal/node/createEmulator';
import { HistoryCache, serializeScreen } from '../../../src/terminal/node/screenSerializer';

const write = (t: Terminal, data: string): Promise<void> => new Promise((r) => t.write(data, r));

type Which = 'normal' | 'alternate';

interface ExtendedWord {
  underlineStyle: number;
  underlineColor: number;
}

/** The underline style and colour (xterm keeps them in an internal extended word). */
function underline(t: Terminal, which: Which, y: number, x: number): string {
  const buffers = (
    t as unknown as {
      _core: { buffers: Record<'normal' | 'alt', { lines: { get(i: number): { _extendedAttrs: Record<number, ExtendedWord | undefined> } } }> };
    }
  )._core.buffers;
  const ext = buffers[which === 'normal' ? 'normal' : 'alt'].lines.get(y)?._extendedAttrs[x];
  if (!ext) return '';
  // The colour's mode and its value (a palette index is the low byte; xterm may keep an earlier
  // RGB colour's bits above it, which nothing reads).
  const mode = ext.underlineColor & 0x3000000;
  return `${ext.underlineStyle}/${mode}:${ext.underlineColor & (mode === 0x3000000 ? 0xffffff : 0xff)}`;
}

const bufferOf = (t: Terminal, which: Which): IBuffer => (which === 'normal' ? t.buffer.normal : t.buffer.alternate);

/** Empty cells compared by their background alone (see `roundTrip`). */
let emptyByBackground = false;

function describeCell(t: Terminal, which: Which, y: number, x: number, c: IBufferCell): string {
  // An empty cell, or a right half with no wide character to its left (left over).
  const rightHalf =
    c.getWidth() === 0 &&
    x > 0 &&
    bufferOf(t, which)
      .getLine(y)
      ?.getCell(x - 1)
      ?.getWidth() === 2;
  if (emptyByBackground && c.getChars() === '' && !rightHalf) return `"" bg${c.getBgColorMode()}:${c.getBgColor()}`;
  const flags = [c.isBold(), c.isDim(), c.isItalic(), c.isUnderline(), c.isBlink(), c.isInverse(), c.isInvisible(), c.isStrikethrough(), c.isOverline()]
    .map((f) => (f ? 1 : 0))
    .join('');
  const ul = c.isUnderline() ? underline(t, which, y, x) : '';
  return `${JSON.stringify(c.getChars())}w${c.getWidth()} fg${c.getFgColorMode()}:${c.getFgColor()} bg${c.getBgColorMode()}:${c.getBgColor()} ${flags} ${ul}`;
}

/** Every cell of the last `count` lines of one buffer, and each line's soft-wrap flag. */
function cells(t: Terminal, which: Which, count: number): string[] {
  const buf = bufferOf(t, which);
  const out: string[] = [];
  const cell = buf.getNullCell();
  for (let y = Math.max(0, buf.length - count); y < buf.length; y++) {
    const line = buf.getLine(y)!;
    // The first row's wrap continues a row older than the history kept, which is not written.
    const row = [y === Math.max(0, buf.length - count) ? 'first' : line.isWrapped ? 'wrapped' : 'new'];
    for (let x = 0; x < t.cols; x++) row.push(describeCell(t, which, y, x, line.getCell(x, cell)!));
    out.push(`${y - (buf.length - count)}: ${row.join(' | ')}`);
  }
  return out;
}

interface State {
  normal: string[];
  alternate: string[] | null;
  cursors: number[];
  modes: unknown;
}

/** The cursor's column; with `emptyByBackground`, a cursor waiting to wrap over an empty last cell
 *  (erased after it was written) counts as on the last column, where it comes back. */
function cursorX(t: Terminal, buf: IBuffer): number {
  const x = buf.cursorX;
  if (!emptyByBackground || x < t.cols) return x;
  return buf
    .getLine(buf.baseY + buf.cursorY)
    ?.getCell(t.cols - 1)
    ?.getChars() === ''
    ? t.cols - 1
    : x;
}

function state(t: Terminal, lines: number): State {
  const alt = t.buffer.active.type === 'alternate';
  return {
    normal: cells(t, 'normal', lines),
    alternate: alt ? cells(t, 'alternate', t.rows) : null,
    cursors: [cursorX(t, t.buffer.normal), t.buffer.normal.cursorY, cursorX(t, t.buffer.alternate), t.buffer.alternate.cursorY],
    modes: { ...t.modes, synchronizedOutputMode: false },
  };
}

/**
 * Serializes `original` with `scrollback` lines of history, rebuilds it, and compares the two.
 * With `emptyByBackground`, an empty cell is compared by its background colour only: the other
 * attributes xterm gives an empty cell when a wide character is overwritten by halves are not
 * kept (nor were they by @xterm/addon-serialize), a right half left over where characters were
 * inserted or deleted through a wide one comes back as an empty cell, and random screens make both.
 */
async function roundTrip(original: Terminal, scrollback: number, opts: { emptyByBackground?: boolean } = {}): Promise<void> {
  emptyByBackground = opts.emptyByBackground ?? false;
  const serialized = serializeScreen(original, scrollback);
  const rebuilt = createEmulator({ cols: original.cols, rows: original.rows, scrollback });
  await write(rebuilt, serialized);
  const lines = Math.min(original.buffer.normal.length, scrollback + original.rows);
  const [want, got] = [state(original, lines), state(rebuilt, lines)];
  // The first row that differs, with what was written: a whole screen's diff says less.
  const rowDiff = (a: string[] | null, b: string[] | null): string | null => {
    for (let i = 0; i < Math.max(a?.length ?? 0, b?.length ?? 0); i++) if (a?.[i] !== b?.[i]) return `want ${a?.[i]}\n got ${b?.[i]}`;
    return null;
  };
  const diff = rowDiff(want.normal, got.normal) ?? rowDiff(want.alternate, got.alternate);
  if (diff) throw new Error(`${diff}\nwritten: ${JSON.stringify(serialized)}`);
  // The pen: the attributes the next character gets, in each.
  await Promise.all([write(original, 'P'), write(rebuilt, 'P')]);
  const written = (t: Terminal): string => {
    const buf = t.buffer.active;
    const y = buf.baseY + buf.cursorY;
    const x = Math.max(0, buf.cursorX - 1);
    return describeCell(t, buf.type, y, x, buf.getLine(y)!.getCell(x)!);
  };
  expect(written(rebuilt)).toEqual(written(original));
  expect(got.cursors).toEqual(want.cursors);
  expect(got.modes).toEqual(want.modes);
  expect(rebuilt.buffer.active.type).toBe(original.buffer.active.type);
  rebuilt.dispose();
}

async function screenOf(data: string, cols = 20, rows = 6, scrollback = 50): Promise<Terminal> {
  const t = createEmulator({ cols, rows, scrollback });
  await write(t, data);
  return t;
}

describe('serializeScreen rebuilds the emulator cell for cell', () => {
  it('every colour mode and SGR flag, with history', async () => {
    let s = '';
    for (let i = 0; i < 16; i++) s += `\x1b[${i < 8 ? 30 + i : 82 + i}mF\x1b[${i < 8 ? 40 + i : 92 + i}mB\x1b[0m`;
    s += '\r\n\x1b[38;5;202m256\x1b[48;5;17mbg\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[48;2;250;128;7mRGB\x1b[0m\r\n';
    const flags = [1, 2, 3, 4, 5, 7, 8, 9, 53];
    for (const f of flags) s += `\x1b[${f}m${f}\x1b[0m `;
    s += '\r\n\x1b[1;3;4;9;38;2;9;9;9;48;5;3mall\x1b[0m\r\n';
    for (let i = 0; i < 30; i++) s += `line ${i} \x1b[3${i % 8}mcolour\x1b[0m\r\n`;
    await roundTrip(await screenOf(s, 40, 8), 50);
  });

  it('underline styles and underline colours', async () => {
    const t = await screenOf(
      '\x1b[4:3mcurly\x1b[58;2;255;0;0mred\x1b[4:2;58;5;33mdouble\x1b[0m \x1b[4mplain\x1b[0m \x1b[4:4;58;2;0;0;255mdot\x1b[24mno',
      60,
      4,
    );
    await roundTrip(t, 10);
  });

  it('wide, combining and astral characters, and a wide one that did not fit at the margin', async () => {
    const t = await screenOf('日本語のテキスト\r\ne\u0301 a\u0308 😀🎉👍🏽\r\n123456789日本\r\nabcdefghi日x', 10, 6);
    await roundTrip(t, 10);
    // The column the wide character left blank keeps its style (here a visible inverse block).
    await roundTrip(await screenOf('\x1b[7;4;31mabcdefghi日x\x1b[0m\r\n\x1b[44;1mabcdefghi日\x1b[0m', 10, 3), 10);
  });

  it('soft wraps: plain, into a coloured cell, after erased cells, and into an empty first cell', async () => {
    let s = 'a'.repeat(25) + '\r\n';
    s += 'b'.repeat(10) + '\x1b[41mc\x1b[0m' + 'd'.repeat(5) + '\r\n';
    // A wrapped row whose end was erased afterwards: the wrap flag stays, the cells are empty.
    s += 'e'.repeat(15) + '\x1b[A\x1b[8G\x1b[K\x1b[B\r\n';
    // A wrapped row whose next row starts empty (erased) and one ending in a coloured erase.
    s += 'f'.repeat(14) + '\x1b[D\x1b[D\x1b[D\x1b[D\x1b[X\r\n';
    s += 'g'.repeat(12) + '\x1b[A\x1b[9G\x1b[44m\x1b[K\x1b[0m\x1b[B\r\n';
    await roundTrip(await screenOf(s, 10, 6), 30);
  });

  it('erased regions in a colour (background colour erase) and colour that scrolled in', async () => {
    const s = 'x\x1b[42m\x1b[K\x1b[0m\r\n\x1b[43m\r\n\r\n\r\n\r\n\r\n\r\n\x1b[0mabc\x1b[45m\x1b[3X\x1b[6Cz\x1b[0m\r\n  \x1b[46m \x1b[0m  q';
    await roundTrip(await screenOf(s, 12, 5), 20);
  });

  it('the cursor waiting to wrap at the margin, and a cursor mid-screen with a pen set', async () => {
    await roundTrip(await screenOf('0123456789'.repeat(3) + 'abcdefghij', 10, 4), 10);
    await roundTrip(await screenOf('0123456789'.repeat(3) + 'abcdefgh日', 10, 4), 10);
    await roundTrip(await screenOf('one\r\ntwo\r\nthree\x1b[2;2H\x1b[1;4;38;2;10;20;30m', 10, 4), 10);
  });

  it('the alternate screen with its own cursor, over a normal screen with history', async () => {
    let s = '';
    for (let i = 0; i < 20; i++) s += `shell ${i}\r\n`;
    s += '$ vim\x1b[?1049h\x1b[H\x1b[44m\x1b[2J\x1b[1;1H~\x1b[3;5H\x1b[1mtext\x1b[0m\x1b[5;2H\x1b[7m-- INSERT --\x1b[2;3H\x1b[32m';
    await roundTrip(await screenOf(s, 16, 6), 30);
  });

  it('modes that differ from a fresh emulator', async () => {
    await roundTrip(await screenOf('x\x1b[?1h\x1b[?2004h\x1b[?1003h\x1b[?1004h\x1b[4h\x1b[?7l\x1b[=1hy', 10, 4), 0);
    await roundTrip(await screenOf('\x1b[?9h\x1b[?66h\x1b[?45h', 10, 4), 0);
  });

  it('only the history asked for, and none', async () => {
    let s = '';
    for (let i = 0; i < 40; i++) s += `row ${i}\r\n`;
    const t = await screenOf(s, 10, 4, 100);
    await roundTrip(t, 5);
    await roundTrip(t, 0);
    const rebuilt = createEmulator({ cols: 10, rows: 4, scrollback: 100 });
    await write(rebuilt, serializeScreen(t, 5));
    expect(rebuilt.buffer.normal.length).toBe(9);
    rebuilt.dispose();
  });

  it('random screens: text, wide characters, styles, moves, erases, wraps and scrolling', async () => {
    // A seeded generator: the same screens on every run, many shapes the cases above do not name.
    let seed = 0x2545f491;
    const rand = (n: number): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const pieces = [
      () => 'abcdefghijklmnop'.slice(0, 1 + rand(16)),
      () => '日本語テキ'.slice(0, 1 + rand(5)),
      () => ['e\u0301', '😀', '👍🏽', 'ñ'][rand(4)]!,
      () => `\x1b[${[0, 1, 2, 3, 4, 5, 7, 8, 9, 53, 22, 24, 27][rand(13)]}m`,
      () => `\x1b[${30 + rand(8)};${40 + rand(8)}m`,
      () => `\x1b[38;2;${rand(256)};${rand(256)};${rand(256)}m`,
      () => `\x1b[48;5;${rand(256)}m`,
      () => `\x1b[4:${rand(6)}m\x1b[58;5;${rand(256)}m`,
      () => `\x1b[${1 + rand(8)};${1 + rand(14)}H`,
      () => `\x1b[${rand(3)}K`,
      () => `\x1b[${1 + rand(5)}X`,
      () => `\x1b[${1 + rand(3)}${'ABCD'[rand(4)]}`,
      // Lines inserted, deleted and scrolled in, blank in the pen's background.
      () => `\x1b[${1 + rand(2)}${'LMST@P'[rand(6)]}`,
      () => '\r\n',
      () => '\r\n\r\n\r\n',
      () => ' '.repeat(rand(6)),
    ];
    for (let screen = 0; screen < 200; screen++) {
      const t = createEmulator({ cols: 13, rows: 8, scrollback: 30 });
      let s = '';
      for (let i = 0; i < 120; i++) s += pieces[rand(pieces.length)]!();
      if (rand(4) === 0) s += '\x1b[?1049h' + 'alt ' + pieces[4]!() + 'screen' + pieces[8]!();
      await write(t, s);
      try {
        await roundTrip(t, 30, { emptyByBackground: true });
      } catch (e) {
        throw new Error(`random screen ${screen}, from ${JSON.stringify(s)}: ${(e as Error).message}`);
      }
      t.dispose();
    }
  });

  it('under an alternate screen, writes the history once and again only once it could have changed', async () => {
    let history = '';
    // More than the scrollback keeps: the history is full, and more of it leaves its length as it is.
    for (let i = 0; i < 80; i++) history += `\x1b[3${i % 8}mshell line ${i}\x1b[0m\r\n`;
    const t = await screenOf(history + '$ top\x1b[?1049h\x1b[HPID USER', 20, 6, 50);
    const cache = new HistoryCache(t);
    // The same text as without the cache, and the rows reused while the TUI writes.
    expect(serializeScreen(t, 50, cache)).toBe(serializeScreen(t, 50));
    await write(t, '\x1b[2;1H1 root\x1b[1m*');
    expect(serializeScreen(t, 50, cache)).toBe(serializeScreen(t, 50));
    expect(cache.hits).toBe(1);
    // Each of these may change the rows under the alternate screen: the next call writes them afresh.
    const changes: Array<[string, () => Promise<void>]> = [
      ['the program left, the shell wrote, the program came back', () => write(t, '\x1b[?1049lmore history\r\n$ top\x1b[?1049h')],
      ['a resize (a reflow)', async () => t.resize(16, 6)],
      ['a smaller scrollback', async () => void (t.options.scrollback = 10)],
      ['a reset', () => write(t, '\x1bc\x1b[?1049hafter reset')],
    ];
    for (const [what, change] of changes) {
      serializeScreen(t, 50, cache);
      await change();
      const hits = cache.hits;
      expect(serializeScreen(t, 50, cache), what).toBe(serializeScreen(t, 50));
      expect(cache.hits, what).toBe(hits);
      await roundTrip(t, 50);
    }
    // Back on the normal screen there is nothing to keep.
    await write(t, '\x1b[?1049l');
    const hits = cache.hits;
    serializeScreen(t, 50, cache);
    serializeScreen(t, 50, cache);
    expect(cache.hits).toBe(hits);
    cache.dispose();
  });
});
