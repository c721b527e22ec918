// The host protocol's pure codec: message framing (split anywhere, bounded, garbage refused with
// a clear error) and the binary screen frame (every field round-trips; malformed frames are
// error values naming what is wrong, never a throw).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  collectRows,
  decodeFrame,
  encodeFrameMessage,
  encodeRow,
  encodeRowsMessage,
  MAX_COLS,
  readFrame,
  readRows,
  rowText,
  type FrameHeader,
  type WireRun,
} from '../../src/protocol/hostFrame';
import { encodeJsonMessage, encodeMessage, LENGTH_BYTES, MessageDecoder, MessageKind } from '../../src/protocol/hostFraming';
import { ClientMessageSchema, readFrequentClientMessage } from '../../src/protocol/hostMessages';

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

function run(col: number, text: string, extra: Partial<WireRun> = {}): WireRun {
  return { col, cells: text.length, text, cellWidth: 1, fg: { kind: 'default' }, bg: { kind: 'default' }, ...plain, ...extra };
}

const header: Omit<FrameHeader, 'view' | 'seq' | 'full'> = {
  cols: 80,
  rows: 24,
  cursor: { x: 5, y: 3, shape: 'bar', blinking: true, visible: true },
  modes: { applicationCursorKeys: true, applicationKeypad: false, bracketedPaste: true, sendFocus: false, altScreen: true, mouseTracking: 'drag' },
  state: 'attention',
  exit: { exitCode: 130, signal: 2 },
  scrollbackLength: 12345,
  scrollOffset: 40,
  selection: [
    { row: 2, start: 4, end: 80 },
    { row: 3, start: 0, end: 7 },
  ],
  hasSelection: true,
  title: 'vim — ünïcode ✓',
};

/** The body MessageDecoder would hand out for a whole message. */
function bodyOf(message: Uint8Array): Uint8Array {
  const out = new MessageDecoder(1 << 24).push(message);
  expect(out).toHaveLength(1);
  const m = out[0]!;
  if (m.kind !== 'frame' && m.kind !== 'rows') throw new Error(`expected a binary message, got ${m.kind}`);
  return m.bytes;
}

describe('message framing', () => {
  it('cuts a stream split at every byte into the same messages', () => {
    const stream = new Uint8Array([
      ...encodeJsonMessage({ t: 'hello', protocol: 1, client: 'x', version: 'é' }),
      ...encodeFrameMessage({ ...header, view: 1, seq: 1, full: true }, [encodeRow(0, { runs: [run(0, 'hi')], wrapped: false })]),
      ...encodeJsonMessage({ t: 'ack', view: 1, seq: 1 }),
    ]);
    const d = new MessageDecoder(1024);
    const got = [];
    for (const b of stream) got.push(...d.push(new Uint8Array([b])));
    expect(got.map((m) => m.kind)).toEqual(['json', 'frame', 'json']);
    expect(got[0]).toEqual({ kind: 'json', value: { t: 'hello', protocol: 1, client: 'x', version: 'é' } });
    expect(d.pending).toBe(0);
  });

  it('refuses a length over the limit at once, before the body arrives, and stays failed', () => {
    const d = new MessageDecoder(1000);
    const head = new Uint8Array(LENGTH_BYTES);
    new DataView(head.buffer).setUint32(0, 1001);
    expect(d.push(head)).toEqual([{ kind: 'error', code: 'oversized', message: 'a message of 1001 bytes is over the limit of 1000 bytes' }]);
    expect(d.push(encodeJsonMessage({ t: 'ack' }))).toEqual([]);
    expect(d.pending).toBe(0);
  });

  it('names garbage: text where a length belongs, an unknown kind, bad JSON, bad UTF-8, an empty body', () => {
    const text = new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n');
    expect(new MessageDecoder(1 << 20).push(text)[0]).toMatchObject({ code: 'oversized' });
    expect(new MessageDecoder(1 << 20).push(encodeMessage(9 as 1, new Uint8Array([1, 2])))).toEqual([
      { kind: 'error', code: 'badKind', message: 'unknown message kind 9 (expected 1 json, 2 frame or 3 rows)' },
    ]);
    expect(new MessageDecoder(1 << 20).push(encodeMessage(MessageKind.json, new TextEncoder().encode('{"t":')))[0]).toMatchObject({
      code: 'badJson',
      message: expect.stringContaining('a JSON message does not parse'),
    });
    expect(new MessageDecoder(1 << 20).push(encodeMessage(MessageKind.json, new Uint8Array([0x22, 0xff, 0x22])))[0]).toEqual({
      kind: 'error',
      code: 'badJson',
      message: 'a JSON message is not valid UTF-8',
    });
    expect(new MessageDecoder(1 << 20).push(new Uint8Array([0, 0, 0, 0]))[0]).toMatchObject({ code: 'empty' });
  });

  it('never holds more than one message plus the chunk being pushed', () => {
    const d = new MessageDecoder(100_000);
    const big = encodeJsonMessage({ text: 'x'.repeat(90_000) });
    for (let i = 0; i < big.length; i += 1000) d.push(big.subarray(i, i + 1000));
    expect(d.pending).toBe(0);
  });

  it('decodes a run of messages of every kind split at any points (property)', () => {
    const row = encodeRow(0, { runs: [run(0, 'row')], wrapped: false });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ json: fc.jsonValue() }), fc.record({ rows: fc.nat({ max: 5 }) })), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (items, cuts) => {
          // JSON values, and frames with as many rows as the number says.
          const parts = items.map((v) =>
            'rows' in v
              ? encodeFrameMessage(
                  { ...header, view: v.rows, seq: v.rows, full: false },
                  Array.from({ length: v.rows }, () => row),
                )
              : encodeJsonMessage(v.json),
          );
          const stream = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          parts.reduce((at, p) => (stream.set(p, at), at + p.length), 0);
          const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
          const d = new MessageDecoder(1 << 20);
          const got = [];
          let from = 0;
          for (const p of [...points, stream.length]) {
            got.push(...d.push(stream.subarray(from, p)));
            from = p;
          }
          expect(got.map((m) => (m.kind === 'json' ? m.value : m.kind === 'frame' ? decodeFrame(m.bytes) : m))).toEqual(
            items.map((v) =>
              'rows' in v
                ? {
                    header: { ...header, view: v.rows, seq: v.rows, full: false },
                    rows: Array.from({ length: v.rows }, () => ({ y: 0, wrapped: false, runs: [run(0, 'row')] })),
                  }
                : JSON.parse(JSON.stringify(v.json)),
            ),
          );
          expect(d.pending).toBe(0);
        },
      ),
    );
  });

  it('decodes any JSON value split at any points (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 8 }), (value, cuts) => {
        const bytes = encodeJsonMessage(value);
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const d = new MessageDecoder(1 << 20);
        const got = [];
        let from = 0;
        for (const p of [...points, bytes.length]) {
          got.push(...d.push(bytes.subarray(from, p)));
          from = p;
        }
        expect(got).toEqual([{ kind: 'json', value: JSON.parse(JSON.stringify(value)) }]);
      }),
    );
  });
});

describe('screen frames', () => {
  it('round-trips the header and rows with colours, attributes, wide and combining characters and links', () => {
    const runs: WireRun[] = [
      run(0, '$ ', { fg: { kind: 'palette', index: 2 }, bold: true }),
      run(2, 'ls', { bg: { kind: 'rgb', value: 0x123456 }, underline: 'curly', italic: true }),
      { ...run(5, '漢字'), cells: 4, cellWidth: 2 },
      { ...run(10, 'e\u0301x'), cells: 2, chars: ['e\u0301', 'x'], link: 'https://example.com/ä', inverse: true, strikethrough: true },
    ];
    const msg = encodeFrameMessage({ ...header, view: 7, seq: 42, full: true }, [
      encodeRow(0, { runs, wrapped: false }),
      encodeRow(23, { runs: [run(0, 'last')], wrapped: true }),
    ]);
    const f = decodeFrame(bodyOf(msg));
    if ('kind' in f) throw new Error(f.message);
    expect(f.header).toEqual({ ...header, view: 7, seq: 42, full: true });
    expect(f.rows).toEqual([
      { y: 0, wrapped: false, runs },
      { y: 23, wrapped: true, runs: [run(0, 'last')] },
    ]);
    expect(rowText(f.rows[0]!.runs)).toBe('$ ls 漢字 e\u0301x');
  });

  it('lets a painter walk runs through one reused reader object', () => {
    const msg = encodeFrameMessage({ ...header, view: 1, seq: 1, full: false }, [encodeRow(4, { runs: [run(0, 'ab'), run(3, 'cd')], wrapped: false })]);
    const body = bodyOf(msg);
    const seen: string[] = [];
    const r = readFrame(body);
    if ('kind' in r) throw new Error(r.message);
    while (r.reader.nextRow()) while (r.reader.nextRun()) seen.push(`${r.reader.y}:${r.reader.col}:${r.reader.text}`);
    expect(seen).toEqual(['4:0:ab', '4:3:cd']);
  });

  it('rows messages carry their request id and first line', () => {
    const msg = encodeRowsMessage({ id: 9, first: 100, total: 10_024, cols: 80 }, [encodeRow(0, { runs: [run(0, 'line 100')], wrapped: false })]);
    const r = readRows(bodyOf(msg));
    if ('kind' in r) throw new Error(r.message);
    expect(r.header).toEqual({ id: 9, first: 100, total: 10_024, cols: 80 });
    expect(collectRows(r.reader).map((row) => rowText(row.runs))).toEqual(['line 100']);
  });

  it('reports malformed frames as values that say what is wrong', () => {
    const good = bodyOf(encodeFrameMessage({ ...header, view: 1, seq: 1, full: true }, [encodeRow(0, { runs: [run(0, 'hello')], wrapped: false })]));
    expect(decodeFrame(good.subarray(0, 10))).toEqual({ kind: 'error', message: 'malformed frame: a frame of 10 bytes is shorter than its 32-byte header' });
    expect(decodeFrame(good.subarray(0, good.length - 2))).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/^malformed frame: the text of run 0 of row 0 at byte \d+ runs past the end/),
    });
    expect(decodeFrame(new Uint8Array([...good, 0]))).toEqual({ kind: 'error', message: 'malformed frame: 1 stray bytes after the last row' });
    const wide = bodyOf(encodeFrameMessage({ ...header, view: 1, seq: 1, full: true }, [encodeRow(0, { runs: [run(78, 'xyz')], wrapped: false })]));
    expect(decodeFrame(wide)).toEqual({ kind: 'error', message: 'malformed frame: run 0 of row 0 covers columns 78..80, past 80 columns' });
    const badRow = bodyOf(encodeFrameMessage({ ...header, view: 1, seq: 1, full: true }, [encodeRow(24, { runs: [], wrapped: false })]));
    expect(decodeFrame(badRow)).toEqual({ kind: 'error', message: 'malformed frame: row 0 has index 24, outside 24 rows' });
    const huge = bodyOf(encodeFrameMessage({ ...header, cols: MAX_COLS + 1, view: 1, seq: 1, full: true }, []));
    expect(decodeFrame(huge)).toEqual({ kind: 'error', message: 'malformed frame: bad size 1001x24 (1..1000 x 1..500)' });
  });

  it('never throws on random bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const f = decodeFrame(bytes);
        expect('kind' in f ? f.kind : 'frame').toMatch(/^(error|frame)$/);
        const r = readRows(bytes);
        expect('kind' in r ? r.kind : 'rows').toMatch(/^(error|rows)$/);
      }),
    );
  });
});

describe("the frequent messages' own reader", () => {
  // Messages near the two it reads: the right shapes, and each way of being almost right.
  const uint = fc.oneof(fc.nat(), fc.constantFrom(0xffffffff, 0x100000000, -1, 1.5, -0, Number.NaN, Infinity), fc.string(), fc.boolean());
  const mods = fc.record({ shift: fc.boolean(), ctrl: fc.boolean(), alt: fc.boolean(), meta: fc.anything() }, { requiredKeys: [] });
  const key = fc
    .record(
      {
        kind: fc.constantFrom('key', 'text', 'paste', 'mouse', 'Key'),
        key: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
        text: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)),
        extra: fc.anything(),
      },
      { requiredKeys: ['kind'] },
    )
    .chain((k) => mods.map((m) => ({ ...k, ...m })));
  const message = fc.oneof(
    fc.record(
      { t: fc.constantFrom('ack', 'input', 'req', 'ACK'), view: uint, seq: uint, input: fc.oneof(key, fc.anything()), id: uint },
      { requiredKeys: ['t'] },
    ),
    fc.record({ t: fc.constant('input'), view: fc.nat(), input: key }),
    fc.record({ t: fc.constant('ack'), view: fc.nat(), seq: fc.nat() }),
    fc.anything(),
  );

  it('reads a message exactly as ClientMessageSchema does, or leaves it to the schema (property)', () => {
    let read = 0;
    fc.assert(
      fc.property(message, (m) => {
        const value: unknown = JSON.parse(JSON.stringify(m) ?? 'null');
        const fast = readFrequentClientMessage(value);
        if (fast === null) return;
        read++;
        const slow = ClientMessageSchema.safeParse(value);
        expect(slow.success).toBe(true);
        expect(fast).toStrictEqual(slow.data);
      }),
      { numRuns: 5000 },
    );
    // The property is about messages it did read: make sure it read many.
    expect(read).toBeGreaterThan(500);
  });

  it('reads every key press and acknowledgement the app sends', () => {
    const sent = [
      { t: 'ack', view: 1, seq: 4294967295 },
      { t: 'input', view: 3, input: { kind: 'key', key: 'a', text: 'a' } },
      { t: 'input', view: 3, input: { kind: 'key', key: 'ArrowUp', shift: true, ctrl: false, alt: true, meta: false } },
      { t: 'input', view: 3, input: { kind: 'key', key: 'Enter', text: '' } },
      { t: 'input', view: 3, input: { kind: 'key', key: 'x', text: '👨‍👩‍👧' } },
    ];
    for (const m of sent) expect(readFrequentClientMessage(JSON.parse(JSON.stringify(m)))).toStrictEqual(ClientMessageSchema.parse(m));
  });

  it('leaves everything else to the schema', () => {
    const others: unknown[] = [
      { t: 'req', id: 1, method: 'ping' },
      { t: 'input', view: 1, input: { kind: 'text', text: 'hi' } },
      { t: 'input', view: 1, input: { kind: 'key', key: 'a', text: 'a'.repeat(17) } },
      { t: 'input', view: 1, input: { kind: 'key', key: '' } },
      { t: 'input', view: 1, input: { kind: 'key', key: 'a', ctrl: 1 } },
      { t: 'input', view: 1, input: { kind: 'key', key: 'a', extra: true } },
      { t: 'input', view: -1, input: { kind: 'key', key: 'a' } },
      { t: 'ack', view: 1, seq: 2, more: 3 },
      { t: 'ack', view: 1.5, seq: 2 },
      JSON.parse('{"t":"ack","view":1,"seq":2,"__proto__":{}}'),
      [{ t: 'ack' }],
      null,
      'ack',
    ];
    for (const m of others) expect(readFrequentClientMessage(m)).toBeNull();
  });
});
