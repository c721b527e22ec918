// The emulator feed: bytes reach the emulator in order, each chunk's callback right after it, in
// slices with a loop turn between them; a small write into an idle feed parses inside the write,
// and what a callback writes waits for the slice it is in but is never left behind; a large chunk parses in pieces that cut sequences and
// UTF-8 characters anywhere, with the same screen as one write; and the installed xterm still has
// the synchronous write the slices are made of.
import { describe, expect, it } from 'vitest';
import { EmulatorFeed, INLINE_BYTES, PIECE_BYTES } from '../../../src/terminal/node/emulatorFeed';
import { createEmulator as createTerminal } from '../../../src/terminal/node/createEmulator';
import { createEmulator } from './helpers';
import { waitFor } from '../../helpers/waitFor';

function screen(term: ReturnType<typeof createTerminal>): string {
  const b = term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < b.length; y++) {
    const line = b.getLine(y)!;
    let row = '';
    for (let x = 0; x < term.cols; x++) {
      const c = line.getCell(x)!;
      row += `${c.getChars() || ' '}${c.getFgColor()}${c.isBold()}`;
    }
    out.push(row);
  }
  return `${out.join('\n')}\n${b.cursorX},${b.cursorY},${b.baseY}`;
}

describe('EmulatorFeed', () => {
  it('slices with the installed xterm (its synchronous write is there)', () => {
    const term = createTerminal({ cols: 80, rows: 24, scrollback: 100 });
    const feed = new EmulatorFeed(term, () => undefined);
    const version = (require('@xterm/headless/package.json') as { version: string }).version;
    expect(feed.sliced, `@xterm/headless ${version} has no WriteBuffer.writeSync: the feed falls back to xterm's 12 ms slices`).toBe(true);
    feed.dispose();
    term.dispose();
  });

  it('parses chunks in order, runs each callback right after its chunk, and says when a slice ended', async () => {
    const term = createTerminal({ cols: 40, rows: 5, scrollback: 100 });
    let slices = 0;
    const feed = new EmulatorFeed(term, () => slices++);
    const seen: string[] = [];
    const row = () => term.buffer.active.getLine(term.buffer.active.baseY + term.buffer.active.cursorY)!.translateToString(true);
    // Padded past the inline size with sequences that print nothing, so both wait for one slice.
    const pad = '\x1b[m'.repeat(Math.ceil(INLINE_BYTES / 3));
    feed.write(`one${pad}`, () => seen.push(row()));
    feed.write(Buffer.from(` two${pad}`), () => seen.push(row()));
    expect(seen).toEqual([]);
    await new Promise<void>((r) => feed.whenParsed(r));
    expect(seen).toEqual(['one', 'one two']);
    // Once per slice: one here, unless the first parse of a fresh emulator (its code not yet
    // compiled) ran past the slice's 3 ms on a loaded machine and took two.
    expect(slices).toBeGreaterThan(0);
    expect(slices).toBe(feed.slices);
    feed.dispose();
    term.dispose();
  });

  it('parses a small write into an idle feed inside the write, and a larger one a loop turn later', async () => {
    const term = createTerminal({ cols: 40, rows: 5, scrollback: 100 });
    let slices = 0;
    const feed = new EmulatorFeed(term, () => slices++);
    const row = () => term.buffer.active.getLine(term.buffer.active.baseY + term.buffer.active.cursorY)!.translateToString(true);
    let done = false;
    feed.write('echo', () => (done = true));
    expect([row(), done, slices]).toEqual(['echo', true, 1]);
    // Not idle any more once something waits: order wins over speed.
    feed.write(` big${'\x1b[m'.repeat(Math.ceil(INLINE_BYTES / 3))}`);
    feed.write(' after');
    expect(row()).toBe('echo');
    await new Promise<void>((r) => feed.whenParsed(r));
    // Parsed in later slices: one, unless parsing the big write ran past a slice's SLICE_MS on a
    // loaded machine and took more.
    expect(row()).toBe('echo big after');
    expect(slices).toBeGreaterThanOrEqual(2);
    expect(slices).toBe(feed.slices);
    feed.dispose();
    term.dispose();
  });

  it('queues what a callback or the slice hook writes behind the slice it is in, and parses it', async () => {
    const term = createTerminal({ cols: 40, rows: 5, scrollback: 100 });
    const row = () => term.buffer.active.getLine(term.buffer.active.baseY + term.buffer.active.cursorY)!.translateToString(true);
    const seen: string[] = [];
    let hookWrote = false;
    const feed = new EmulatorFeed(term, () => {
      if (hookWrote) return;
      hookWrote = true;
      feed.write('C', () => seen.push(`C:${row()}`));
    });
    feed.write('A', () => {
      feed.write('B', () => seen.push(`B:${row()}`));
      seen.push(`A:${row()}`);
    });
    // B runs in A's slice, after A's callback; C, written by the hook once the slice ended, in a
    // later turn of the loop, with no other write to start it.
    expect(seen).toEqual(['A:A', 'B:AB']);
    for (let turn = 0; turn < 10 && seen.length < 3; turn++) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['A:A', 'B:AB', 'C:ABC']);
    feed.dispose();
    term.dispose();
  });

  it('lets the event loop run between slices of a large backlog', async () => {
    const term = createTerminal({ cols: 80, rows: 24, scrollback: 1000 });
    const feed = new EmulatorFeed(term, () => undefined);
    const flood = Buffer.from('y\r\n'.repeat(400_000));
    let done = false;
    feed.write(flood, () => (done = true));
    // What a socket read would do in the middle of the flood: it runs while most is still queued.
    const queuedThen = await new Promise<number>((r) => setImmediate(() => setImmediate(() => r(feed.queued))));
    expect(done).toBe(false);
    expect(queuedThen).toBeGreaterThan(0);
    expect(queuedThen).toBeLessThan(flood.length);
    await new Promise<void>((r) => feed.whenParsed(r));
    expect(done).toBe(true);
    expect(feed.slices).toBeGreaterThan(1);
    feed.dispose();
    term.dispose();
  });

  it('shows the same screen for a chunk cut into pieces as for one write, sequences and characters cut anywhere', async () => {
    // Colours, bold, a wide character and a three-byte character, repeated so the piece boundaries
    // fall inside escape sequences and inside UTF-8 characters.
    const unit = '\x1b[1;38;5;202mbold€\x1b[0m 漢字 \x1b[32mgreen\x1b[0m\r\n';
    let text = '';
    while (Buffer.byteLength(text) < PIECE_BYTES * 5) text += unit;
    const bytes = Buffer.from(text);
    const ref = createEmulator(80, 24, 1000);
    await ref.write(bytes);
    const term = createTerminal({ cols: 80, rows: 24, scrollback: 1000 });
    const feed = new EmulatorFeed(term, () => undefined);
    await new Promise<void>((r) => feed.write(bytes, r));
    expect(screen(term)).toBe(screen(ref.term));
    feed.dispose();
    term.dispose();
    ref.dispose();
  });

  it('holds parsing from a callback until released: what comes meanwhile waits, then parses in order', async () => {
    const term = createTerminal({ cols: 40, rows: 5, scrollback: 100 });
    const feed = new EmulatorFeed(term, () => undefined);
    const row = () => term.buffer.active.getLine(term.buffer.active.baseY + term.buffer.active.cursorY)!.translateToString(true);
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
    };
    let release: (() => void) | null = null;
    // Past the inline size, so both are queued for one slice; the hold ends it after the first.
    const pad = '\x1b[m'.repeat(Math.ceil(INLINE_BYTES / 3));
    feed.write(`one${pad}`, () => (release = feed.hold()));
    feed.write(` two${pad}`);
    await waitFor(() => release !== null, { what: 'the first chunk parsed and the hold taken' });
    feed.write(' three');
    let parsed = false;
    feed.whenParsed(() => (parsed = true));
    // Slices are a loop turn or two apart: in ten, none parses anything.
    await turns(10);
    expect(row()).toBe('one');
    expect(parsed).toBe(false);
    release!();
    await waitFor(() => parsed, { what: 'what waited to be parsed' });
    expect(row()).toBe('one two three');

    // Held with nothing queued: even a small write, which an idle feed parses inside the write, waits.
    release = null;
    feed.whenParsed(() => (release = feed.hold()));
    await waitFor(() => release !== null, { what: 'the hold taken' });
    feed.write(' four');
    await turns(10);
    expect(row()).toBe('one two three');
    release!();
    await new Promise<void>((r) => feed.whenParsed(r));
    expect(row()).toBe('one two three four');
    feed.dispose();
    term.dispose();
  });

  it('drops what was not parsed once disposed, and runs none of its callbacks', async () => {
    const term = createTerminal({ cols: 80, rows: 24, scrollback: 100 });
    const feed = new EmulatorFeed(term, () => undefined);
    let ran = false;
    feed.write(Buffer.from('y\r\n'.repeat(200_000)), () => (ran = true));
    feed.dispose();
    feed.write('more', () => (ran = true));
    await new Promise((r) => setImmediate(() => setImmediate(r)));
    expect(ran).toBe(false);
    expect(feed.queued).toBe(0);
    term.dispose();
  });
});
