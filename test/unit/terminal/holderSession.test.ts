// Sessions on real session holders (native/termio-holder, built by scripts/setup.mjs) and real
// ptys: a shell through the holder, its exit status and last output, flow control under a flood
// with Ctrl-C, and a session handed from one Session object to a new one (a host restart): the
// same process, the same screen and scrollback, rebuilt from a checkpoint plus the holder's bytes.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDIT_BYTES, HolderSource, startHolder } from '../../../src/terminal/node/holderSource';
import { captureCheckpoint, type ScreenCheckpoint } from '../../../src/terminal/node/screenCheckpoint';
import { Session, type ExitStatus } from '../../../src/terminal/node/session';
import { isAlive, waitForExit } from '../../helpers/processes';
import { waitFor } from '../../helpers/waitFor';
import { createEmulator } from './helpers';

const binary = join(__dirname, '../../../native/termio-holder/build/termio-holder');
let home: string;
const sessions: Session[] = [];
const pids: number[] = [];

async function spawnHeld(argv: string[], opts: { tap?: string; name?: string; scrollback?: number } = {}): Promise<Session> {
  const socketPath = join(home, `${opts.name ?? 's'}.sock`);
  const s = await Session.spawnHeld(
    { cwd: home, env: { HOME: home, PS1: '$ ', ENV: '' }, argv, ...(opts.scrollback ? { scrollback: opts.scrollback } : {}) },
    { binary, socketPath, ...(opts.tap ? { tap: opts.tap } : {}) },
  );
  if (!(s instanceof Session)) throw new Error(`spawn failed: ${s.message}`);
  sessions.push(s);
  pids.push(s.pid);
  return s;
}

async function adopt(before: Session, checkpoint: ScreenCheckpoint | undefined, socketPath: string, scrollback = 2000): Promise<Session> {
  const source = await HolderSource.connect(socketPath);
  if ('error' in source) throw new Error(source.error);
  const s = Session.adopt(source, { id: before.id, cwd: before.cwd, argv: before.argv, scrollback, ...(checkpoint ? { checkpoint } : {}) });
  sessions.push(s);
  return s;
}

/** Waits for the shell's prompt: a line typed ahead of it is echoed before the prompt, which then
 *  shares a line with the command's first output ("$ 30 100"). */
async function atPrompt(s: Session): Promise<void> {
  await waitFor(() => s.screenLines().some((l) => l.startsWith('$')), { what: 'the prompt' });
}

function exitOf(s: Session): Promise<ExitStatus> {
  return new Promise((resolve) => (s.exited ? resolve(s.exited) : s.onExit(resolve)));
}

/** Every line of scrollback and screen, right-trimmed, and the cursor. */
function bufferText(s: { emulator: Session['emulator'] }): string {
  const b = s.emulator.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < b.length; y++) lines.push(b.getLine(y)?.translateToString(true) ?? '');
  return `${lines.join('\n')}\n[cursor ${b.cursorX},${b.cursorY} base ${b.baseY} ${b.type}]`;
}

beforeEach(() => {
  expect(existsSync(binary), `${binary} is missing: run node scripts/setup.mjs`).toBe(true);
  home = mkdtempSync(join(tmpdir(), 'termio-holder-'));
});

afterEach(async () => {
  for (const s of sessions.splice(0)) s.dispose();
  for (const pid of pids.splice(0)) await waitForExit(pid);
  rmSync(home, { recursive: true, force: true });
});

describe('a session on a holder', () => {
  it('runs a shell, reports its exit status and shows its last output', async () => {
    const s = await spawnHeld(['/bin/sh']);
    expect(s.holder).not.toBeNull();
    s.write('echo "in $PWD as $TERM"; exit 7\r');
    const exit = await exitOf(s);
    expect(exit).toEqual({ exitCode: 7 });
    expect(s.screenLines().join('\n')).toContain(`in ${home} as xterm-256color`);
    // The holder goes with its agent once the host has the exit.
    await waitFor(() => !existsSync(join(home, 's.sock')), { what: 'the holder to remove its socket' });
  });

  it('shows all of 1 MB printed just before exiting', async () => {
    const s = await spawnHeld(['/bin/sh', '-c', 'head -c 1000000 /dev/zero | tr "\\0" x; echo; echo last-line']);
    await exitOf(s);
    expect(s.screenLines({ lines: 1 })).toEqual(['last-line']);
    expect(s.streamOffset).toBeGreaterThan(1_000_000);
  });

  it('holds a flooding program at the pty, never more than the credit ahead of the parser (all a Ctrl-C leaves to show), and the shell answers after a Ctrl-C', async () => {
    const s = await spawnHeld(['/bin/sh']);
    s.write('yes flood-line-that-is-long-enough-to-fill-the-buffers\r');
    // What was read and not parsed yet is all a Ctrl-C leaves to show: the holder's credit bounds
    // it (one read of the pty may overshoot the credit).
    let most = 0;
    await waitFor(
      () => {
        most = Math.max(most, s.streamOffset - s.parsedOffset);
        return s.streamOffset > 2_000_000;
      },
      { what: '2 MB of the flood', interval: 5 },
    );
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(CREDIT_BYTES + 65_536);
    s.write('\x03');
    // Typed ahead of the prompt, so the echo of the command shows during the flood and its output
    // after the prompt; the tty may also discard it with the interrupt, so it is asked again.
    await waitFor(
      () => {
        if (s.screenLines().some((l) => /after-flood$/.test(l) && !l.includes('echo'))) return true;
        s.write('echo after-flood\r');
        return false;
      },
      { what: 'the shell to answer after Ctrl-C', interval: 300 },
    );
    expect(s.flowState.paused).toBe(false);
  });

  it('reads the pty only up to the credit the host gave, and on as the credit moves', async () => {
    const socketPath = join(home, 'credit.sock');
    const started = await startHolder({ binary, socketPath }, '/usr/bin/yes', [], { cwd: home, env: { HOME: home }, cols: 80, rows: 24 });
    if ('error' in started) throw new Error(started.error);
    pids.push(started.agentPid, started.holderPid);
    const source = await HolderSource.connect(socketPath);
    if ('error' in source) throw new Error(source.error);
    let received = 0;
    source.onData((b) => (received += b.length));
    // Attaching gives the first credit (CREDIT_BYTES from offset 0); nothing is marked parsed.
    source.attach(0);
    // `yes` then waits in write(2) on its terminal: the holder stopped reading.
    await waitFor(() => /tty_write|wait_woken/.test(readFileSync(`/proc/${started.agentPid}/wchan`, 'utf8')) && received > 0, {
      what: 'yes to block writing to its terminal',
      interval: 20,
    });
    const held = received;
    expect(held).toBeLessThanOrEqual(CREDIT_BYTES + 65_536);
    // Parsed it all: the credit moves on, and so does the stream.
    source.parsed(held);
    await waitFor(() => received > held + CREDIT_BYTES / 2, { what: 'the stream to go on after the credit moved' });
    source.hangUp(100);
    await waitForExit(started.agentPid, 'yes to end with the hang-up');
  });

  it('resizes the pty the program sees', async () => {
    const s = await spawnHeld(['/bin/sh']);
    await atPrompt(s);
    s.resize(100, 30);
    s.write('stty size\r');
    await waitFor(() => s.screenLines().includes('30 100'), { what: 'stty to report the new size' });
  });

  it('is carried on by a new Session with the same process, screen and scrollback, and keeps typing', async () => {
    const s = await spawnHeld(['/bin/sh'], { scrollback: 2000 });
    await atPrompt(s);
    s.write('seq 1 300; printf "\\033[31mred\\033[0m\\n"; echo before-handover\r');
    await waitFor(() => s.screenLines().includes('before-handover'), { what: 'the output' });
    const checkpoint = await waitFor(() => captureCheckpoint(s, 2000));
    s.holder!.checkpoint(checkpoint.offset);
    // More output after the checkpoint: the holder keeps it for the next Session.
    s.write('seq 301 320; echo after-checkpoint\r');
    await waitFor(() => s.screenLines().includes('after-checkpoint'), { what: 'output after the checkpoint' });
    await s.whenParsed();
    const before = bufferText(s);
    const pid = s.pid;
    expect(s.keepRunningOnDispose()).toBe(true);
    s.dispose();
    expect(isAlive(pid)).toBe(true);

    const next = await adopt(s, checkpoint, join(home, 's.sock'));
    expect(next.pid).toBe(pid);
    await waitFor(() => next.streamOffset >= s.streamOffset && next.screenLines().includes('after-checkpoint'), { what: 'the replay' });
    await next.whenParsed();
    expect(bufferText(next)).toBe(before);
    next.write('echo typed-after\r');
    await waitFor(() => next.screenLines().includes('typed-after'), { what: 'typing into the adopted session' });
  });

  it('keeps the charsets through a handover: G1 as DEC line drawing shifted in, G0 as the UK set, draw the same after', async () => {
    const s = await spawnHeld(['/bin/sh']);
    await atPrompt(s);
    // G0 = UK (ESC ( A), G1 = DEC line drawing (ESC ) 0), G1 shifted in (SO). Uppercase is the
    // same in every set, so the markers read alike whatever is in use.
    s.write("printf '\\033(A\\033)0\\016'; echo MARK1\r");
    await waitFor(() => s.screenLines().includes('MARK1'), { what: 'the charsets set' });
    const checkpoint = await waitFor(() => captureCheckpoint(s, 2000));
    s.holder!.checkpoint(checkpoint.offset);
    expect(s.keepRunningOnDispose()).toBe(true);
    s.dispose();

    const next = await adopt(s, checkpoint, join(home, 's.sock'));
    // In G1 (line drawing) l q k are a box's top; after SI, G0's UK set draws # as £.
    next.write("printf 'lqk\\017#\\n'; echo MARK2\r");
    await waitFor(() => next.screenLines().includes('MARK2'), { what: 'output after the handover' });
    expect(next.screenLines()).toContain('┌─┐£');
  });

  it('rebuilds, after a handover in the middle of a flood, the screen a fresh emulator fed the whole stream shows', async () => {
    const tap = join(home, 'stream.bin');
    const s = await spawnHeld(['/bin/sh', '-c', 'exec yes 0123456789-flood'], { tap, scrollback: 1000 });
    await waitFor(() => s.streamOffset > 300_000, { what: 'the flood' });
    const checkpoint = await waitFor(() => captureCheckpoint(s, 1000));
    s.holder!.checkpoint(checkpoint.offset);
    await waitFor(() => s.streamOffset > checkpoint.offset + 200_000, { what: 'more flood after the checkpoint' });
    // A host that goes without a last word: the connection is simply dropped.
    s.keepRunningOnDispose();
    s.dispose();
    const next = await adopt(s, checkpoint, join(home, 's.sock'), 1000);
    await waitFor(() => next.streamOffset > s.streamOffset + 100_000, { what: 'the flood to go on after the handover' });
    process.kill(next.pid, 'SIGSTOP');
    try {
      // Once stopped, the stream ends where the tap file does: the holder reading again (flow
      // control not pausing it, so the pty's buffer is drained too), everything parsed, and the
      // same offset on two checks in a row (bytes still in flight would move it).
      let seen = -1;
      await waitFor(
        async () => {
          await next.whenParsed();
          const settled = !next.flowState.paused && next.flowState.unparsed === 0 && statSync(tap).size === next.streamOffset;
          const same = settled && seen === next.streamOffset;
          seen = settled ? next.streamOffset : -1;
          return same;
        },
        { what: 'the adopted session to catch up with the tap' },
      );
      const fresh = createEmulator(80, 24, 1000);
      await fresh.write(readFileSync(tap));
      expect(bufferText(next)).toBe(bufferText({ emulator: fresh.term }));
      expect(next.lostBytes).toBe(0);
      fresh.dispose();
    } finally {
      // Gone already (the test timed out and the session was disposed): the error above is the one to show.
      if (isAlive(next.pid)) process.kill(next.pid, 'SIGCONT');
    }
  });
});
