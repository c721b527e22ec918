// Framing of the control protocol: newline-delimited JSON, one object per line, bounded length.
// Deliberately free of zod so the `termio` CLI can load it without paying zod's start-up cost;
// the schemas of what goes inside a frame live in control.ts.

/** Bumped on any incompatible change to a request or reply; both sides put it in every frame as `v`. */
export const CONTROL_PROTOCOL_VERSION = 1;

/**
 * Longest frame either side accepts, in UTF-16 code units (≈ bytes for ASCII JSON), newline excluded.
 * 1 Mi leaves room for a large `sessions.send` paste or a `sessions.read` of a big screen
 * (500×500 cells of 3-byte glyphs ≈ 750 K) while keeping one connection's buffer small.
 */
export const MAX_FRAME_CHARS = 1_048_576;

/** The longest `sessions.wait`: a wait longer than a day is a script that forgot its timeout; it can wait again. */
export const MAX_WAIT_MS = 86_400_000;

/** Name of the file in $TERMIO_HOME/run that tells clients where the app listens. */
export const CONTROL_INFO_FILE = 'control.json';
/** Name of the control socket in $TERMIO_HOME/run. */
export const CONTROL_SOCKET_FILE = 'control.sock';

export type DecodedFrame = { kind: 'frame'; text: string } | { kind: 'oversized'; chars: number };

/**
 * Cuts a character stream into frames at '\n' (a trailing '\r' is dropped, blank lines skipped).
 * A frame that grows past the limit is reported once as 'oversized' the moment it crosses the
 * limit (not at its newline, so an endless line is answered promptly); the rest of that line is
 * discarded. The decoder therefore never holds more than the limit, whatever the peer sends.
 */
export class FrameDecoder {
  private parts: string[] = [];
  private partsLength = 0;
  private discarding = false;

  constructor(private readonly maxFrameChars: number = MAX_FRAME_CHARS) {
    if (!(maxFrameChars > 0)) throw new Error(`FrameDecoder: maxFrameChars must be positive, got ${maxFrameChars}`);
  }

  /** Characters held for a frame that has not ended yet. */
  get pending(): number {
    return this.partsLength;
  }

  push(chunk: string): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf('\n', start);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.discarding && end > start) {
        if (this.partsLength + (end - start) > this.maxFrameChars) {
          out.push({ kind: 'oversized', chars: this.partsLength + (end - start) });
          this.discarding = true;
          this.parts = [];
          this.partsLength = 0;
        } else {
          this.parts.push(chunk.slice(start, end));
          this.partsLength += end - start;
        }
      }
      if (nl === -1) break;
      if (this.discarding) {
        this.discarding = false;
      } else {
        let text = this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join('');
        this.parts = [];
        this.partsLength = 0;
        if (text.endsWith('\r')) text = text.slice(0, -1);
        if (text.trim()) out.push({ kind: 'frame', text });
      }
      start = nl + 1;
    }
    return out;
  }
}

/** One frame: the value as JSON plus the terminating newline. */
export function encodeFrame(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
