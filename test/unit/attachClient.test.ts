// termio attach's two pure halves: the raw-mode bytes of the outer terminal → input intents (fed
// whole and one byte at a time), and frames → ANSI escapes, checked by painting into a real
// emulator and reading back its lines and cell styles.
import { describe, expect, it } from 'vitest';
import { AnsiPainter } from '../../src/app/present/ansiPainter';
import { TtyInputDecoder, type TtyEvent } from '../../src/app/cli/ttyInput';
import { encodeFrameMessage, encodeRow, readFrame, type FrameHeader, type WireRun } from '../../src/protocol/hostFrame';
import { MessageDecoder } from '../../src/protocol/hostFraming';
import { createEmulator } from '../../src/terminal/node';

function decodeAll(input: string): TtyEvent[] {
  const d = new TtyInputDecoder();
  return [...d.push(input), ...d.flush()];
}

/** One read per byte, as a slow link may deliver them; flush as the escape timer would at the end. */
function decodeBytewise(input: string): TtyEvent[] {
  const d = new TtyInputDecoder();
  return [...[...input].flatMap((ch) => d.push(ch)), ...d.flush()];
}

describe('tty input → intents', () => {
  const cases: Array<[string, string, TtyEvent[]]> = [
    [
      'text',
      'hi',
      [
        { kind: 'key', key: 'h', text: 'h' },
        { kind: 'key', key: 'i', text: 'i' },
      ],
    ],
    [
      'Enter, Tab, Backspace, Ctrl-C',
      '\r\t\x7f\x03',
      [
        { kind: 'key', key: 'Enter' },
        { kind: 'key', key: 'Tab' },
        { kind: 'key', key: 'Backspace' },
        { kind: 'key', key: 'c', ctrl: true },
      ],
    ],
    [
      'arrows in normal and application mode',
      '\x1b[A\x1bOB',
      [
        { kind: 'key', key: 'ArrowUp' },
        { kind: 'key', key: 'ArrowDown' },
      ],
    ],
    [
      'Ctrl+Shift+Right, Shift+Tab, Delete, F5, Alt+Home',
      '\x1b[1;6C\x1b[Z\x1b[3~\x1b[15~\x1b[1;3H',
      [
        { kind: 'key', key: 'ArrowRight', shift: true, ctrl: true },
        { kind: 'key', key: 'Tab', shift: true },
        { kind: 'key', key: 'Delete' },
        { kind: 'key', key: 'F5' },
        { kind: 'key', key: 'Home', alt: true },
      ],
    ],
    [
      'Alt+x and an emoji',
      '\x1bx😀',
      [
        { kind: 'key', key: 'x', text: 'x', alt: true },
        { kind: 'key', key: '😀', text: '😀' },
      ],
    ],
    [
      'focus in and out',
      '\x1b[I\x1b[O',
      [
        { kind: 'focus', focused: true },
        { kind: 'focus', focused: false },
      ],
    ],
    [
      'a bracketed paste, newlines and escapes kept',
      '\x1b[200~a\r\n\x1b[Ab\x1b[201~x',
      [
        { kind: 'paste', text: 'a\r\n\x1b[Ab' },
        { kind: 'key', key: 'x', text: 'x' },
      ],
    ],
    ['the detach key', 'a\x1d', [{ kind: 'key', key: 'a', text: 'a' }, { kind: 'detach' }]],
  ];
  for (const [name, input, want] of cases) {
    it(`${name}, whole and byte by byte`, () => {
      expect(decodeAll(input)).toEqual(want);
      expect(decodeBytewise(input)).toEqual(want);
    });
  }

  it('takes an ESC that nothing follows as the Escape key, once the escape timer flushes it', () => {
    const d = new TtyInputDecoder();
    expect(d.push('\x1b')).toEqual([]);
    expect(d.pending).toBe(true);
    expect(d.flush()).toEqual([{ kind: 'key', key: 'Escape' }]);
    expect(d.push('\x1b[')).toEqual([]);
    expect(d.flush()).toEqual([{ kind: 'key', key: '[', text: '[', alt: true }]);
  });

  it('sends a paste past 512 KiB in parts, losing and adding nothing', () => {
    const d = new TtyInputDecoder();
    const text = 'a'.repeat(600 * 1024);
    const first = d.push(`\x1b[200~${text}`);
    // The first part goes before the end marker comes; the rest (with what could be a partial marker) waits.
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ kind: 'paste' });
    expect(d.push('\x1b[201~x')).toEqual([
      { kind: 'paste', text: text.slice((first[0] as { text: string }).text.length) },
      { kind: 'key', key: 'x', text: 'x' },
    ]);
  });
});

const plain = {
  bold: false,
  italic: false,
  dim: false,
  underline: 'none',
  strikethrough: false,
  overline: false,
  inverse: false,
  invisible: false,
  blink: false,
} as const;
const run = (col: number, text: string, extra: Partial<WireRun> = {}): WireRun => ({
  col,
  cells: text.length,
  text,
  cellWidth: 1,
  fg: { kind: 'default' },
  bg: { kind: 'default' },
  ...plain,
  ...extra,
});

function frame(h: Partial<FrameHeader>, rows: Array<[number, WireRun[]]>): ReturnType<typeof readFrame> {
  const header: FrameHeader = {
    view: 1,
    seq: 1,
    full: true,
    cols: 20,
    rows: 4,
    cursor: { x: 3, y: 1, shape: 'bar', blinking: false, visible: true },
    modes: { applicationCursorKeys: false, applicationKeypad: false, bracketedPaste: false, sendFocus: false, altScreen: false, mouseTracking: 'none' },
    state: 'idle',
    exit: null,
    scrollbackLength: 0,
    scrollOffset: 0,
    selection: [],
    hasSelection: false,
    title: 'painted',
    ...h,
  };
  const msg = encodeFrameMessage(
    header,
    rows.map(([y, runs]) => encodeRow(y, { runs, wrapped: false })),
  );
  const m = new MessageDecoder(1 << 20).push(msg)[0]!;
  if (m.kind !== 'frame') throw new Error('not a frame');
  return readFrame(m.bytes);
}

async function paintInto(term: ReturnType<typeof createEmulator>, painter: AnsiPainter, f: ReturnType<typeof readFrame>): Promise<void> {
  if ('kind' in f) throw new Error(f.message);
  await new Promise<void>((r) => term.write(painter.paint(f.header, f.reader), r));
}

function lines(term: ReturnType<typeof createEmulator>): string[] {
  const b = term.buffer.active;
  return Array.from({ length: term.rows }, (_, y) => b.getLine(b.baseY + y)?.translateToString(true) ?? '');
}

describe('frames → ANSI', () => {
  it('paints rows with their styles, moves the cursor, and repaints only changed rows later', async () => {
    const term = createEmulator({ cols: 20, rows: 4, scrollback: 0 });
    const painter = new AnsiPainter(20, 4);
    await paintInto(
      term,
      painter,
      frame({}, [
        [0, [run(0, '$ ', { fg: { kind: 'palette', index: 2 }, bold: true }), run(2, 'ls', { bg: { kind: 'rgb', value: 0x102030 } })]],
        [1, [run(0, 'a'), run(4, '漢', { cells: 2, cellWidth: 2 })]],
      ]),
    );
    expect(lines(term)).toEqual(['$ ls', 'a   漢', '', '']);
    const cell = term.buffer.active.getLine(0)!.getCell(0)!;
    expect([cell.isBold() !== 0, cell.isFgPalette(), cell.getFgColor()]).toEqual([true, true, 2]);
    const bg = term.buffer.active.getLine(0)!.getCell(2)!;
    expect([bg.isBgRGB(), bg.getBgColor()]).toEqual([true, 0x102030]);
    expect([term.buffer.active.cursorX, term.buffer.active.cursorY]).toEqual([3, 1]);

    await paintInto(term, painter, frame({ full: false, seq: 2 }, [[1, [run(0, 'b')]]]));
    expect(lines(term)).toEqual(['$ ls', 'b', '', '']);
  });

  it('clips a frame larger than the outer terminal, whole wide characters only', async () => {
    const term = createEmulator({ cols: 5, rows: 2, scrollback: 0 });
    const painter = new AnsiPainter(5, 2);
    await paintInto(
      term,
      painter,
      frame({ cursor: { x: 15, y: 3, shape: 'block', blinking: true, visible: true } }, [
        [0, [run(0, 'abc'), run(3, '漢字', { cells: 4, cellWidth: 2 })]],
        [1, [run(0, 'second row')]],
        [3, [run(0, 'not shown')]],
      ]),
    );
    expect(lines(term)).toEqual(['abc漢', 'secon']);
    expect([term.buffer.active.cursorX, term.buffer.active.cursorY]).toEqual([4, 1]);
  });
});
