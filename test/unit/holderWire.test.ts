// The session holder's protocol as both sides define it: the C holder's numbers (holder.h) equal
// the host's (src/protocol/holderWire.ts); the decoder gives the same messages however the stream
// is cut, refuses a bad length; the checkpoint file is read back, and a broken one set aside; how
// setup compiles the holder on Linux and on macOS.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holderCompileAttempts } from '../../scripts/lib/holderBuild.mjs';
import { CHECKPOINT_VERSION, readCheckpoint, writeCheckpoint, type CheckpointRecord } from '../../src/app/host/holders/checkpointFile';
import { holderAvailability, shortSocketDir } from '../../src/app/host/holders/holders';
import { termioPaths } from '../../src/app/services/paths';
import { decodeHolderBody, encodeHolder, HOLDER_PROTOCOL_VERSION, HolderDecoder, HolderKind, MAX_HOLDER_BODY } from '../../src/protocol/holderWire';

const header = readFileSync(join(__dirname, '../../native/termio-holder/holder.h'), 'utf8');
const defines = new Map([...header.matchAll(/^#define (\w+) \(?([^\n/]+?)\)?\s*(?:\/\*.*)?$/gm)].map((m) => [m[1]!, m[2]!]));

function frame(kind: number, payload: number[]): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length + 1);
  out[4] = kind;
  out.set(payload, 5);
  return out;
}

describe('the holder protocol', () => {
  it('has the same numbers in the C holder and the host', () => {
    expect(Number(defines.get('HOLDER_PROTOCOL'))).toBe(HOLDER_PROTOCOL_VERSION);
    const names: Record<string, keyof typeof HolderKind> = {
      MSG_HELLO: 'hello',
      MSG_DATA: 'data',
      MSG_SIZE: 'size',
      MSG_GAP: 'gap',
      MSG_EXIT: 'exit',
      MSG_ERROR: 'error',
      MSG_TAKEN: 'taken',
      MSG_ATTACH: 'attach',
      MSG_INPUT: 'input',
      MSG_RESIZE: 'resize',
      MSG_SIGNAL: 'signal',
      MSG_CHECKPOINT: 'checkpoint',
      MSG_PAUSE: 'pause',
      MSG_RESUME: 'resume',
      MSG_CLOSE: 'close',
      MSG_BYE: 'bye',
      MSG_CREDIT: 'credit',
    };
    for (const [c, ts] of Object.entries(names)) expect(Number(defines.get(c)), c).toBe(HolderKind[ts]);
    expect(defines.get('MAX_BODY')).toBe('1024 * 1024 + 64');
    expect(MAX_HOLDER_BODY).toBe(1024 * 1024 + 64);
  });

  it('decodes the same messages however the stream is cut', () => {
    const data = frame(HolderKind.data, [0, 0, 0, 0, 0, 0, 1, 0, 104, 105]);
    const exit = frame(HolderKind.exit, [0, 0, 0, 7, 0]);
    const size = frame(HolderKind.size, [0, 0, 0, 0, 0, 0, 1, 2, 0, 100, 0, 30]);
    const stream = new Uint8Array([...data, ...size, ...exit]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const d = new HolderDecoder();
      const a = d.push(stream.slice(0, cut));
      const b = d.push(stream.slice(cut));
      if ('error' in a || 'error' in b) throw new Error('decode failed');
      const msgs = [...a, ...b].map(decodeHolderBody);
      expect(msgs).toEqual([
        { kind: 'data', offset: 256, bytes: new Uint8Array([104, 105]) },
        { kind: 'size', offset: 258, cols: 100, rows: 30 },
        { kind: 'exit', exitCode: 7, signal: 0 },
      ]);
    }
  });

  it('refuses a length past the bound and an empty body, and says so', () => {
    const d = new HolderDecoder();
    expect(d.push(new Uint8Array([0x7f, 0, 0, 0]))).toEqual({ error: expect.stringContaining('message length of 2130706432') });
    expect(new HolderDecoder().push(new Uint8Array([0, 0, 0, 0]))).toEqual({ error: expect.stringContaining('length of 0') });
    expect(decodeHolderBody(new Uint8Array([HolderKind.hello, 1, 2]))).toEqual({ error: 'holder hello message of 2 bytes, expected at least 36' });
  });

  it('encodes offsets past 32 bits', () => {
    const m = encodeHolder.attach(2 ** 40 + 5);
    expect([...m]).toEqual([0, 0, 0, 11, HolderKind.attach, 0, 1, 0, 0, 1, 0, 0, 0, 0, 5]);
  });
});

describe('checkpoint files', () => {
  const record = (id: string): CheckpointRecord => ({
    version: CHECKPOINT_VERSION,
    id,
    savedAt: new Date(0).toISOString(),
    offset: 12,
    cols: 80,
    rows: 24,
    screen: Buffer.from('hi\r\n'),
    session: {
      agentId: null,
      cwd: '/tmp',
      argv: ['/bin/sh'],
      name: null,
      bypass: false,
      parentId: null,
      createdAt: 1,
      state: 'idle',
      stateWhy: 'started',
      stateSince: 1,
      secret: 's',
    },
  });

  /** A record as a version 1 file: one JSON document, the screen inside as text. */
  const v1 = (r: CheckpointRecord): string => JSON.stringify({ ...r, screen: Buffer.from(r.screen).toString() });

  it('reads back what was written; a missing one is null; a broken one is set aside with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'termio-cp-'));
    try {
      await writeCheckpoint(dir, record('a'));
      expect(readCheckpoint(dir, 'a')).toEqual(record('a'));
      expect(statSync(join(dir, 'a.json')).mode & 0o777).toBe(0o600);
      // A JSON line without the screen, then the screen as it is (escape characters one byte each).
      const screen = '\x1b[31mred\x1b[0m\r\nline two\r\n日本 😀';
      const colour = { ...record('e'), screen: Buffer.from(screen) };
      await writeCheckpoint(dir, colour);
      const [head, ...rest] = readFileSync(join(dir, 'e.json'), 'utf8').split('\n');
      expect(JSON.parse(head!)).not.toHaveProperty('screen');
      expect(rest.join('\n')).toBe(screen);
      expect(readCheckpoint(dir, 'e')).toEqual(colour);
      // A version 1 file (one JSON document, the screen inside), as an older host wrote it.
      const old = { ...record('v1'), version: 1 };
      writeFileSync(join(dir, 'v1.json'), JSON.stringify({ ...old, screen: '\x1b[1mold\x1b[0m\r\n' }));
      expect(readCheckpoint(dir, 'v1')).toEqual({ ...old, screen: Buffer.from('\x1b[1mold\x1b[0m\r\n') });
      writeFileSync(join(dir, 'v9.json'), `${JSON.stringify({ ...record('v9'), version: 9, screen: undefined })}\nscreen`);
      expect(readCheckpoint(dir, 'v9')).toEqual({ problem: expect.stringContaining('version 9 (this Termio reads 1 and 2)') });
      expect(readCheckpoint(dir, 'missing')).toBeNull();
      writeFileSync(join(dir, 'b.json'), v1({ ...record('b'), session: { ...record('b').session, state: 'sleeping' } } as unknown as CheckpointRecord));
      expect(readCheckpoint(dir, 'b')).toEqual({ problem: expect.stringContaining("session.state 'sleeping' is not a state") });
      expect(existsSync(join(dir, 'b.json.unreadable'))).toBe(true);
      writeFileSync(join(dir, 't.json'), v1({ ...record('t'), session: { ...record('t').session, createdAt: 'today' } } as unknown as CheckpointRecord));
      expect(readCheckpoint(dir, 't')).toEqual({ problem: expect.stringContaining('session.createdAt today is not a time in ms') });
      // The status tracker's snapshot is checked too: a bad one sets the whole file aside.
      writeFileSync(
        join(dir, 'd.json'),
        v1({
          ...record('d'),
          session: { ...record('d').session, status: { engine: { startedAt: 0 }, workReports: 0, agentRunner: null } },
        } as unknown as CheckpointRecord),
      );
      expect(readCheckpoint(dir, 'd')).toEqual({ problem: expect.stringContaining('session.status.engine: startedAt or seq is not a number') });
      writeFileSync(join(dir, 'c.json'), '{"version":1,');
      expect(readCheckpoint(dir, 'c')).toEqual({ problem: expect.stringContaining('not JSON') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('holder availability and building', () => {
  it('is off, with the reason, when turned off', () => {
    expect(holderAvailability(termioPaths({ TERMIO_HOME: '/tmp/x' }), { TERMIO_HOLDERS: '0' })).toEqual({
      available: false,
      reason: 'turned off (TERMIO_HOLDERS=0)',
    });
  });

  it('puts the sockets of a home too deep for a socket path in a short folder of the user under /tmp, and refuses one that is not theirs', () => {
    const uid = process.getuid!();
    const deep = termioPaths({ TERMIO_HOME: `/tmp/${'d'.repeat(80)}` });
    const short = shortSocketDir(deep, uid);
    const h = holderAvailability(deep, {}, uid);
    if (!h.available) throw new Error(`holders off: ${h.reason}`);
    expect(h.socketDir).toBe(short);
    expect(short).toMatch(new RegExp(`^/tmp/termio-${uid}/[0-9a-f]{12}$`));
    expect(short.length + 1 + 41).toBeLessThanOrEqual(103);
    for (const d of [short, dirname(short)]) expect(statSync(d).mode & 0o777).toBe(0o700);
    // Another home, another folder; the same home, the same one (the next host finds its holders).
    expect(shortSocketDir(termioPaths({ TERMIO_HOME: `/tmp/${'e'.repeat(80)}` }), uid)).not.toBe(short);
    expect(holderAvailability(deep, {}, uid)).toEqual(h);
    rmSync(short, { recursive: true, force: true });

    // Anyone may make names in /tmp: a folder made by someone else (here: owned by this user, but
    // asked for as another), or a symlink planted there, is refused with the reason.
    const other = uid + 4_000_000;
    const theirs = dirname(shortSocketDir(deep, other));
    mkdirSync(theirs, { recursive: true });
    const planted = dirname(shortSocketDir(deep, other + 1));
    symlinkSync(tmpdir(), planted);
    try {
      expect(holderAvailability(deep, {}, other)).toEqual({
        available: false,
        reason: expect.stringContaining(`${theirs} belongs to another user (uid ${uid})`),
      });
      expect(holderAvailability(deep, {}, other + 1)).toEqual({ available: false, reason: expect.stringContaining(`${planted} is not a folder`) });
    } finally {
      rmSync(theirs, { recursive: true, force: true });
      rmSync(planted, { force: true });
    }
  });

  it('compiles statically on Linux first, and with the system compiler as is on macOS', () => {
    const src = ['a.c', 'b.c'];
    expect(holderCompileAttempts('linux', src, 'out')).toEqual([
      ['-static', '-O2', '-o', 'out', 'a.c', 'b.c'],
      ['-O2', '-o', 'out', 'a.c', 'b.c'],
    ]);
    expect(holderCompileAttempts('darwin', src, 'out')).toEqual([['-O2', '-o', 'out', 'a.c', 'b.c']]);
  });
});
