// The emulator feed: bytes reach the emulator in order, each chunk's callback right after it, in
// slices with a loop turn between them; a large chunk parses in pieces that cut sequences and
// UTF-8 characters anywhere, with the same screen as one write; and the installed xterm still has
// the synchronous write the slices are made of.
import { describe, expect, it } from 'vitest';
import { EmulatorFeed, PIECE_BYTES } from '../../../src/terminal/emulatorFeed';
import { createEmulator as createTerminal } from '../../../src/terminal/createEmulator';
import { createEmulator } from './helpers';

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
    feed.write('one', () => seen.push(row()));
    feed.write(Buffer.from(' two'), () => seen.push(row()));
    await new Promise<void>((r) => feed.whenParsed(r));
    feed.write(' three', () => seen.push(row()));
    await new Promise<void>((r) => feed.whenParsed(r));
    expect(seen).toEqual(['one', 'one two', 'one two three']);
    expect(slices).toBe(2);
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
