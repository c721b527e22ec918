// A mirror of a Session (what the web companion builds in a browser): snapshot() taken while the
// program writes, then every later onOutput chunk and onResize, must end on the same screen,
// cursor and modes as the session's own emulator. Real pty, real /bin/sh.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Terminal } from '@xterm/headless';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Session } from '../../../src/terminal/node/session';
import { waitFor } from './helpers';

let home: string;
let session: Session | null = null;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-mirror-'));
});

afterEach(() => {
  session?.dispose();
  session = null;
  rmSync(home, { recursive: true, force: true });
});

function screen(t: Terminal): string[] {
  const buf = t.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < t.rows; y++) out.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
  return out;
}

it('snapshot + later output + resizes rebuild the same screen as the session', async () => {
  const s = Session.spawn({ cwd: home, env: { HOME: home, PS1: '$ ', ENV: '' }, argv: ['/bin/sh'], cols: 60, rows: 12 });
  if (!(s instanceof Session)) throw new Error(s.message);
  session = s;
  // Colours, a scrolled history and the alternate screen's cursor-keys mode, before the snapshot.
  s.write("i=0; while [ $i -lt 40 ]; do printf '\\033[3%dmline %d\\033[0m\\n' $((i % 7)) $i; i=$((i+1)); done; printf '\\033[?1h'\n");
  await waitFor(() => s.screenLines().some((l) => l.includes('line 39')), 'the coloured lines');
  const mirror = new Terminal({ cols: s.cols, rows: s.rows, scrollback: 1000, allowProposedApi: true });
  const pending: Array<Uint8Array | { cols: number; rows: number }> = [];
  s.onOutput((bytes) => pending.push(bytes.slice()));
  s.onResize((size) => pending.push(size));
  mirror.write(s.snapshot(1000));
  // After the snapshot: more output, a resize in the middle of it, and more output again.
  s.write("printf 'after-one\\n'; sleep 0.1; printf 'after-two \\033[1mbold\\033[0m\\n'\n");
  s.resize(50, 10);
  await waitFor(() => s.screenLines().some((l) => l.includes('after-two bold')), 'the output after the snapshot');
  await s.whenParsed();
  for (const item of pending) {
    if (item instanceof Uint8Array) mirror.write(item);
    else mirror.resize(item.cols, item.rows);
  }
  await new Promise<void>((r) => mirror.write('', r));
  expect(screen(mirror)).toEqual(screen(s.emulator));
  expect([mirror.cols, mirror.rows]).toEqual([50, 10]);
  expect([mirror.buffer.active.cursorX, mirror.buffer.active.cursorY]).toEqual([s.emulator.buffer.active.cursorX, s.emulator.buffer.active.cursorY]);
  expect(mirror.modes.applicationCursorKeysMode).toBe(true);
  // The colours came through the snapshot: line 1 was red (palette 1) in both.
  const row = (t: Terminal): number => {
    const buf = t.buffer.active;
    for (let y = 0; y < buf.length; y++) if (buf.getLine(y)?.translateToString(true) === 'line 1') return y;
    return -1;
  };
  expect(row(mirror)).toBeGreaterThanOrEqual(0);
  expect(mirror.buffer.active.getLine(row(mirror))?.getCell(0)?.getFgColor()).toBe(1);
  mirror.dispose();
});

it('fires onOutput after the emulator has parsed the chunk, so a snapshot never repeats it', async () => {
  const s = Session.spawn({ cwd: home, env: { HOME: home, PS1: '$ ', ENV: '' }, argv: ['/bin/sh'] });
  if (!(s instanceof Session)) throw new Error(s.message);
  session = s;
  const seen: string[] = [];
  s.onOutput((bytes) => seen.push(Buffer.from(bytes).toString('utf8')));
  s.onOutput(() => seen.push(`@${s.snapshot(0).includes('marker-xyz') ? 'in' : 'out'}`));
  s.write('echo marker-xyz\n');
  await waitFor(() => seen.join('').includes('marker-xyz\r\n'), 'the echoed marker');
  // The first snapshot taken after the chunk that carried the echoed line already holds it.
  const at = seen.findIndex((x) => x.includes('marker-xyz\r\n'));
  expect(seen[at + 1]).toBe('@in');
});
