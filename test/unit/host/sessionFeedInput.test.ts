// A session's frames after the user types, on a real pty under a `yes` flood: no frame is built
// from output the host read before the key until the emulator has parsed all of it, so the first
// frame after a Ctrl-C is the emulator's state after the key, not a stale screen in flight. And
// while the user types, the frame of an echo is sent from inside the parse that produced it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SessionFeed, type FeedView } from '../../../src/app/host/sessions/sessionFeed';
import type { SessionRecord } from '../../../src/app/host/sessions/sessionRegistry';
import { Session } from '../../../src/terminal/node/session';
import { waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

const holderBinary = join(__dirname, '../../../native/termio-holder/build/termio-holder');
let home: string;
let session: Session | null = null;
let feed: SessionFeed | null = null;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-feedinput-'));
});

afterEach(async () => {
  feed?.dispose();
  if (session) {
    const pid = session.pid;
    session.dispose();
    await waitForExit(pid);
  }
  session = feed = null;
  rmSync(home, { recursive: true, force: true });
});

/** An 80x24 view that records each frame with `sent` and acknowledges it a loop turn later. */
function ackingView(f: SessionFeed, sent: () => void): FeedView {
  const view: FeedView = {
    id: 1,
    cols: 80,
    rows: 24,
    seenTick: -1,
    seq: 0,
    inFlight: false,
    congested: () => false,
    send: () => {
      sent();
      setImmediate(() => f.ack(view, view.seq));
    },
    holding: () => undefined,
  };
  return view;
}

it('builds no frame of the output read before a key until it is parsed, then sends the next one', async () => {
  // On a holder, as the host runs sessions: its output comes in large messages, so a key finds
  // some of it read and not parsed yet.
  const s = await Session.spawnHeld(
    { cwd: home, env: { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ', ENV: '' }, argv: ['/bin/sh'], cols: 80, rows: 24 },
    { binary: holderBinary, socketPath: join(home, 's.sock') },
  );
  if (!(s instanceof Session)) throw new Error(s.message);
  session = s;
  const record = { id: 'feed-input', session: s, state: 'idle', title: '' } as unknown as SessionRecord;
  const f = (feed = new SessionFeed(record));
  // Each frame: how far the emulator had parsed when it was sent. The view acknowledges at once.
  const sentAt: number[] = [];
  const view = ackingView(f, () => sentAt.push(s.parsedOffset));
  f.attach(view);
  s.write('yes\r');
  // The key comes while there is output read and not parsed yet.
  await waitFor(() => s.streamOffset - s.parsedOffset > 4096, { what: 'a backlog in the flood', interval: 1 });
  const hold = s.streamOffset;
  const before = sentAt.length;
  f.typed();
  s.sendKey({ key: 'c', ctrl: true });
  await waitFor(() => sentAt.length > before && s.screenLines().some((l) => l.startsWith('$')), { what: 'frames after the Ctrl-C and the prompt' });
  expect(sentAt[before]).toBeGreaterThanOrEqual(hold);
});

it('sends the frame of an echo from inside the parse while the user types, and on the frame schedule otherwise', async () => {
  const s = Session.spawn({
    cwd: home,
    env: { HOME: home, PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ', ENV: '' },
    argv: ['/bin/sh'],
    cols: 80,
    rows: 24,
  });
  if (!(s instanceof Session)) throw new Error(s.message);
  session = s;
  // Listeners run in the order they subscribed: one before the feed's and one after bracket it.
  let inRender = false;
  s.onRender(() => (inRender = true));
  const record = { id: 'feed-echo', session: s, state: 'idle', title: '' } as unknown as SessionRecord;
  const f = (feed = new SessionFeed(record));
  s.onRender(() => (inRender = false));
  const frames: { inRender: boolean; screen: string }[] = [];
  const view = ackingView(f, () => frames.push({ inRender, screen: s.screenLines().join('\n') }));
  f.attach(view);
  await waitFor(() => frames.some((fr) => fr.screen.includes('$')) && !view.inFlight, { what: 'the prompt in a frame' });
  const echoed = async (text: string): Promise<{ inRender: boolean }> => {
    const before = frames.length;
    s.write(text);
    await waitFor(() => frames.slice(before).some((fr) => fr.screen.includes(text)) && !view.inFlight, { what: `the echo of ${text}` });
    return frames.slice(before).find((fr) => fr.screen.includes(text))!;
  };
  expect((await echoed('idle')).inRender).toBe(false);
  f.typed();
  // typed() asks for a frame in the next turn (the screen after a Ctrl-C); the echo comes later.
  await new Promise((r) => setImmediate(r));
  expect((await echoed('typed')).inRender).toBe(true);
});
