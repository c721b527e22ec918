// A checkpoint's capture of a long scrollback, in steps with a turn of the loop between them
// (real shell, real pty): the session's parsing is held meanwhile, so the capture is the state at
// its offset whatever arrives; a key between two steps (giveWay) or a resize drops the capture,
// and in every case the session parses again afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ROWS_PER_STEP } from '../../../src/terminal/node/screenSerializer';
import { captureCheckpoint, type CaptureTiming } from '../../../src/terminal/node/screenCheckpoint';
import { Session } from '../../../src/terminal/node/session';
import { waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';
import { createEmulator } from './helpers';

const LINES = 3000;
let home: string;
let session: Session | null = null;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-capture-'));
});

afterEach(async () => {
  if (session) {
    const pid = session.pid;
    session.dispose();
    session = null;
    await waitForExit(pid, 'the shell to end');
  }
  rmSync(home, { recursive: true, force: true });
});

const lastLine = (s: Session): string => (s.screenLines({ lines: 1 })[0] ?? '').trimEnd();
const shows = (s: Session, text: string): boolean => s.screenLines().some((l) => l.trimEnd() === text);

/** A shell that has printed LINES numbered lines and its prompt again. */
async function shellWithHistory(): Promise<Session> {
  const s = Session.spawn({ cwd: home, env: { HOME: home, PS1: '$ ', ENV: '' }, argv: ['/bin/sh'], scrollback: 5000 });
  if (!(s instanceof Session)) throw new Error(`spawn failed: ${s.message}`);
  session = s;
  await waitFor(() => lastLine(s) === '$', { what: 'the prompt' });
  s.write(`seq 1 ${LINES}\r`);
  await waitFor(() => shows(s, String(LINES)) && lastLine(s) === '$', { what: 'the numbers and the prompt after them' });
  return s;
}

/** What the session shows after `command` ran: it still parses its output. */
async function stillParses(s: Session, word: string): Promise<void> {
  s.write(`echo ${word}\r`);
  await waitFor(() => shows(s, word), { what: `${word} on the screen` });
}

it('captures in steps, one loop turn apart, the same bytes as in one piece, and the session parses on after it', async () => {
  const s = await shellWithHistory();
  const whole = await captureCheckpoint(s, 5000);
  const timing: CaptureTiming = { serializeMs: 0, slices: 0, longestMs: 0 };
  // A slice of 0 ms: every step is a slice of its own.
  const stepped = captureCheckpoint(s, 5000, { timing, sliceMs: 0 });
  // Typed after the capture began: its echo, when it comes before the last step, waits for it
  // (the feed's hold itself is tested in emulatorFeed.test.ts).
  s.write('echo later\r');
  const cp = await stepped;
  expect(cp).not.toBeNull();
  expect(timing.slices).toBeGreaterThanOrEqual(Math.floor(LINES / ROWS_PER_STEP));
  expect(Buffer.from(cp!.screen).equals(Buffer.from(whole!.screen))).toBe(true);
  expect(cp!.offset).toBe(whole!.offset);
  // The capture rebuilds the screen as it was: the numbers and the prompt.
  const rebuilt = createEmulator(s.cols, s.rows, 5000);
  await rebuilt.write(cp!.screen);
  expect(rebuilt.lines().at(-1)?.trimEnd()).toBe('$');
  expect(rebuilt.lines()).toContain(String(LINES));
  rebuilt.dispose();
  await waitFor(() => shows(s, 'later'), { what: 'the echo typed during the capture' });
});

it('drops a capture when a key comes between two steps, and the session parses on', async () => {
  const s = await shellWithHistory();
  let checks = 0;
  // The first check is before the capture; the next, between its first two steps, is the key.
  const cp = await captureCheckpoint(s, 5000, { giveWay: () => checks++ > 0, sliceMs: 0 });
  expect(cp).toBeNull();
  expect(checks).toBe(2);
  await stillParses(s, 'afterkey');
});

it('drops a capture when the session is resized between two steps, and the session parses on', async () => {
  const s = await shellWithHistory();
  const capture = captureCheckpoint(s, 5000, { sliceMs: 0 });
  // Queued behind the capture's next step: the one after it finds another size.
  setImmediate(() => s.resize(s.cols - 10, s.rows));
  expect(await capture).toBeNull();
  await stillParses(s, 'afterresize');
});
