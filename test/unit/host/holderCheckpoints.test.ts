// The host's checkpoints of held sessions (real holder, real pty, the checkpoint files in a
// temporary folder, the checkpointer's clock in the test's hands): a checkpoint that falls due
// while someone is typing into the session waits until the typing pauses, because a capture holds
// the session's parsing and what the typist waits for is the keys' effect on the screen; a
// session's first checkpoint (what a new host adopts it by) is written as soon as the host has
// registered it, which is a moment after it starts watching it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readCheckpoint, type CheckpointRecord, type HeldSessionMeta } from '../../../src/app/host/holders/checkpointFile';
import { Checkpointer, CheckpointTiming } from '../../../src/app/host/holders/holderCheckpoints';
import { nullLogger } from '../../../src/app/services/log';
import { Session } from '../../../src/terminal/node/session';
import { waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';

const binary = join(__dirname, '../../../native/termio-holder/build/termio-holder');
let home: string;
let session: Session | null = null;
let checkpointer: Checkpointer | null = null;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-checkpoints-'));
});

afterEach(async () => {
  checkpointer?.dispose();
  checkpointer = null;
  if (session) {
    const pid = session.pid;
    session.dispose();
    session = null;
    await waitForExit(pid, 'the session to end');
  }
  rmSync(home, { recursive: true, force: true });
});

function meta(s: Session): HeldSessionMeta {
  return {
    agentId: 'terminal',
    cwd: home,
    argv: s.argv,
    name: null,
    bypass: false,
    parentId: null,
    createdAt: 0,
    state: 'idle',
    stateWhy: '',
    stateSince: 0,
    secret: null,
  };
}

/** A held program that, once a line is typed, prints and then reads what is typed without echoing
 *  it; watched by a checkpointer on the given clock, its first checkpoint (the empty screen) written.
 *  `registeredLate`: as in the host, which watches a session as it spawns and registers it a moment
 *  later, the first look-up of its meta finds nothing. */
async function watched(now: () => number, opts: { registeredLate?: boolean } = {}): Promise<{ s: Session; cp: Checkpointer }> {
  const s = await Session.spawnHeld(
    { cwd: home, env: { HOME: home }, argv: ['/bin/sh', '-c', 'stty -echo; read line; printf ready; exec cat >/dev/null'] },
    { binary, socketPath: join(home, 's.sock') },
  );
  if (!(s instanceof Session)) throw new Error(`spawn failed: ${s.message}`);
  session = s;
  let lookups = 0;
  const cp = new Checkpointer({
    dir: home,
    scrollback: () => 100,
    meta: () => (opts.registeredLate && lookups++ === 0 ? null : meta(s)),
    logger: nullLogger,
    now,
  });
  checkpointer = cp;
  cp.watch(s);
  await waitFor(() => cp.writes === 1, { what: 'the first checkpoint (the empty screen)' });
  return { s, cp };
}

/** Types the line the program waits for, and waits for what it prints then. */
async function printed(s: Session): Promise<void> {
  s.write('go\r');
  await waitFor(() => s.screenLines().some((l) => l.includes('ready')), { what: 'the program to print' });
}

it('puts off a checkpoint due while someone types into the session, and takes it once the typing pauses', async () => {
  // Output goes quiet (a checkpoint is due) while keys keep coming.
  let now = 0;
  const { s, cp } = await watched(() => now);
  await printed(s);

  // Output has been quiet long enough, but a key came just now.
  now = 10_000;
  s.write('typed');
  await waitFor(() => cp.deferrals >= 1, { what: 'the due checkpoint to be put off' });
  expect(cp.writes).toBe(1);

  // The typing paused: the checkpoint follows, with the screen as it is.
  now += CheckpointTiming.inputQuietMs;
  await waitFor(() => cp.writes === 2, { what: 'the checkpoint once the typing paused' });
  const saved = readCheckpoint(home, s.id) as CheckpointRecord;
  expect(saved.offset).toBe(s.streamOffset);
  expect(Buffer.from(saved.screen).toString()).toContain('ready');
});

it('does not put off a checkpoint of a session nobody typed into', async () => {
  let now = 0;
  const { s, cp } = await watched(() => now);
  await printed(s);
  now = 10_000;
  await waitFor(() => cp.writes === 2, { what: 'the checkpoint after the quiet spell' });
  expect(cp.deferrals).toBe(0);
});

it('takes a checkpoint overdue by the longest interval even while someone keeps typing', async () => {
  let now = 0;
  const { s, cp } = await watched(() => now);
  await printed(s);
  now = CheckpointTiming.maxIntervalMs;
  s.write('typed');
  await waitFor(() => cp.writes === 2, { what: 'the overdue checkpoint' });
  expect(cp.deferrals).toBe(0);
});

it("writes a session's first checkpoint once the host has registered it, with no output to wait for", async () => {
  // The program prints nothing until a line is typed: only the checkpointer's own retry writes it.
  const { s } = await watched(() => 0, { registeredLate: true });
  const saved = readCheckpoint(home, s.id) as CheckpointRecord;
  expect(saved.offset).toBe(0);
  expect(saved.session.cwd).toBe(home);
});

it('puts off a checkpoint due while someone types, on a wall clock, when the first one waited for the registration', async () => {
  // A first checkpoint lost that way left the session with none, which counted as overdue by the
  // longest interval (since 0, on a clock reading ~1.8e12): an overdue checkpoint does not wait
  // for typing to pause, and a Ctrl-C typed into a flood a second after the spawn waited for it.
  let now = 1_000_000;
  const { s, cp } = await watched(() => now, { registeredLate: true });
  await printed(s);
  now += 10_000;
  s.write('typed');
  await waitFor(() => cp.deferrals >= 1, { what: 'the due checkpoint to be put off' });
  expect(cp.writes).toBe(1);
});
