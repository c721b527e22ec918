// Test helpers for the terminal layer: an emulator with our hooks that returns visible lines,
// byte-at-a-time feeding, and condition waits (never fixed sleeps) for real-pty tests.
import type { Terminal } from '@xterm/headless';
import { createEmulator as createTerminal } from '../../../src/terminal/node/createEmulator';
import { Utf8Splitter } from '../../../src/terminal/common/utf8Splitter';
import { RenderModel } from '../../../src/terminal/node/renderModel';
import { TerminalModes } from '../../../src/terminal/common/terminalModes';
import type { Session } from '../../../src/terminal/node/session';

export interface TestEmulator {
  term: Terminal;
  modes: TerminalModes;
  model: RenderModel;
  /** What the emulator answered (DA, CPR, kitty flag queries…). */
  replies: string[];
  write(data: string | Uint8Array): Promise<void>;
  /** Writes one byte (one UTF-16 unit for strings) per write() call. */
  writeBytewise(data: string | Uint8Array): Promise<void>;
  /** Visible rows, right-trimmed, trailing empty rows dropped. */
  lines(): string[];
  dispose(): void;
}

export function createEmulator(cols = 80, rows = 24, scrollback = 1000): TestEmulator {
  const term = createTerminal({ cols, rows, scrollback });
  const replies: string[] = [];
  const modes = new TerminalModes(term, (d) => replies.push(d));
  const model = new RenderModel(term, modes);
  term.onData((d) => replies.push(d));
  const write = (data: string | Uint8Array): Promise<void> => new Promise((r) => term.write(data, r));
  return {
    term,
    modes,
    model,
    replies,
    write,
    async writeBytewise(data) {
      // Through the same UTF-8 boundary stage a Session puts in front of the emulator.
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      const splitter = new Utf8Splitter();
      for (const b of bytes) {
        const whole = splitter.push(Uint8Array.of(b));
        if (whole.length) term.write(whole);
      }
      await write('');
    },
    lines() {
      const buf = term.buffer.active;
      const out: string[] = [];
      for (let y = 0; y < term.rows; y++) out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
      while (out.length && out[out.length - 1] === '') out.pop();
      return out;
    },
    dispose() {
      model.dispose();
      modes.dispose();
      term.dispose();
    },
  };
}

/** Polls a condition until it holds; throws with `what` after timeoutMs. */
export async function waitFor<T>(cond: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

let sentinelCounter = 0;

/** Runs a shell command line in a session and waits for a sentinel printed after it, so the
 *  command's output is on screen when this resolves. Output typed ahead of the first prompt
 *  follows that prompt on the same row, hence endsWith. */
export async function runAndWait(session: Session, commandLine: string, timeoutMs = 10_000): Promise<string[]> {
  const n = ++sentinelCounter;
  // The sentinel is printed by printf from two parts, so the echoed command line never matches.
  session.write(`${commandLine}; printf 'SENTINEL%s\\n' ${n}\r`);
  await waitFor(() => session.screenLines().some((l) => l.endsWith(`SENTINEL${n}`)), `sentinel ${n} after: ${commandLine}`, timeoutMs);
  await session.whenParsed();
  return session.screenLines({ lines: session.rows });
}
