// The host's side of the session holder's protocol (docs/holder.md; native/termio-holder speaks
// the other side): message kinds, their encoders, and a decoder that turns a byte stream into
// messages without copying a data chunk that arrived whole. Pure: no Node modules, no I/O.
import { decodeUtf8 } from './hostFraming';

/** The version this host speaks to holders it starts; it adopts holders of every version since 1. */
export const HOLDER_PROTOCOL_VERSION = 1;

/** Longest message body either side sends: a 64 KiB data chunk with its header, or a 1 MiB paste. */
export const MAX_HOLDER_BODY = 1024 * 1024 + 64;

/** Largest input message the host sends: the holder's bound less room for the header. */
export const MAX_HOLDER_INPUT = 1024 * 1024;

export const HolderKind = {
  hello: 0x01,
  data: 0x02,
  size: 0x03,
  gap: 0x04,
  exit: 0x05,
  error: 0x06,
  taken: 0x07,
  attach: 0x81,
  input: 0x82,
  resize: 0x83,
  signal: 0x84,
  checkpoint: 0x85,
  pause: 0x86,
  resume: 0x87,
  close: 0x88,
  bye: 0x89,
  credit: 0x8a,
} as const;

/** Whom a signal message reaches. */
export const SignalTarget = { agent: 0, group: 1, foreground: 2 } as const;

export interface HolderHello {
  protocol: number;
  holderPid: number;
  agentPid: number;
  cols: number;
  rows: number;
  /** Offset of the oldest byte the holder still has. */
  base: number;
  /** Offset of the next byte the agent writes: the stream's length so far. */
  end: number;
  /** Set when the agent has exited (its last output may still be kept). */
  exited: { exitCode: number; signal: number } | null;
}

export type HolderMessage =
  | { kind: 'hello'; hello: HolderHello }
  | { kind: 'data'; offset: number; bytes: Uint8Array }
  | { kind: 'size'; offset: number; cols: number; rows: number }
  | { kind: 'gap'; from: number; to: number }
  | { kind: 'exit'; exitCode: number; signal: number }
  | { kind: 'error'; message: string }
  | { kind: 'taken'; count: number }
  | { kind: 'unknown'; code: number };

export type DecodeError = { error: string };

function u64(v: DataView, at: number): number {
  return v.getUint32(at) * 2 ** 32 + v.getUint32(at + 4);
}

function setU64(v: DataView, at: number, n: number): void {
  v.setUint32(at, Math.floor(n / 2 ** 32));
  v.setUint32(at + 4, n >>> 0);
}

function message(kind: number, payloadBytes: number, fill?: (v: DataView, bytes: Uint8Array) => void): Uint8Array {
  const out = new Uint8Array(5 + payloadBytes);
  const v = new DataView(out.buffer);
  v.setUint32(0, payloadBytes + 1);
  out[4] = kind;
  fill?.(new DataView(out.buffer, 5), out.subarray(5));
  return out;
}

export const encodeHolder = {
  attach: (from: number, protocol = HOLDER_PROTOCOL_VERSION) =>
    message(HolderKind.attach, 10, (v) => {
      v.setUint16(0, protocol);
      setU64(v, 2, from);
    }),
  input: (bytes: Uint8Array) => {
    if (bytes.length > MAX_HOLDER_INPUT) throw new Error(`holder input of ${bytes.length} bytes is over ${MAX_HOLDER_INPUT}`);
    return message(HolderKind.input, bytes.length, (_v, b) => b.set(bytes));
  },
  resize: (cols: number, rows: number) =>
    message(HolderKind.resize, 4, (v) => {
      v.setUint16(0, cols);
      v.setUint16(2, rows);
    }),
  signal: (signo: number, target: number) =>
    message(HolderKind.signal, 2, (v) => {
      v.setUint8(0, signo);
      v.setUint8(1, target);
    }),
  checkpoint: (offset: number) => message(HolderKind.checkpoint, 8, (v) => setU64(v, 0, offset)),
  pause: () => message(HolderKind.pause, 0),
  resume: () => message(HolderKind.resume, 0),
  close: (graceMs: number) => message(HolderKind.close, 4, (v) => v.setUint32(0, graceMs)),
  bye: () => message(HolderKind.bye, 0),
  /** Read the pty only while the stream is shorter than `until` (a holder that predates it ignores it). */
  credit: (until: number) => message(HolderKind.credit, 8, (v) => setU64(v, 0, until)),
};

function tooShort(name: string, n: number, need: number): DecodeError | null {
  return n < need ? { error: `holder ${name} message of ${n} bytes, expected at least ${need}` } : null;
}

/** One message body (its kind byte first) as a message, or what is wrong with it. */
export function decodeHolderBody(body: Uint8Array): HolderMessage | DecodeError {
  const kind = body[0]!;
  const n = body.length - 1;
  const v = new DataView(body.buffer, body.byteOffset + 1, n);
  switch (kind) {
    case HolderKind.hello:
      return (
        tooShort('hello', n, 36) ?? {
          kind: 'hello',
          hello: {
            protocol: v.getUint16(0),
            holderPid: v.getUint32(2),
            agentPid: v.getUint32(6),
            cols: v.getUint16(10),
            rows: v.getUint16(12),
            base: u64(v, 14),
            end: u64(v, 22),
            exited: v.getUint8(30) ? { exitCode: v.getInt32(31), signal: v.getUint8(35) } : null,
          },
        }
      );
    case HolderKind.data:
      return tooShort('data', n, 8) ?? { kind: 'data', offset: u64(v, 0), bytes: body.subarray(9) };
    case HolderKind.size:
      return tooShort('size', n, 12) ?? { kind: 'size', offset: u64(v, 0), cols: v.getUint16(8), rows: v.getUint16(10) };
    case HolderKind.gap:
      return tooShort('gap', n, 16) ?? { kind: 'gap', from: u64(v, 0), to: u64(v, 8) };
    case HolderKind.exit:
      return tooShort('exit', n, 5) ?? { kind: 'exit', exitCode: v.getInt32(0), signal: v.getUint8(4) };
    case HolderKind.taken:
      return tooShort('taken', n, 8) ?? { kind: 'taken', count: u64(v, 0) };
    case HolderKind.error:
      return { kind: 'error', message: decodeUtf8(body.subarray(1)) ?? '(a message that is not UTF-8)' };
    default:
      return { kind: 'unknown', code: kind };
  }
}

/** Splits a byte stream into message bodies; a bad length is an error and the stream is done. */
export class HolderDecoder {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private failed: string | null = null;

  /** Bodies completed by this chunk, in order (each the chunk's own bytes when it came whole). */
  push(chunk: Uint8Array): Uint8Array[] | DecodeError {
    if (this.failed) return { error: this.failed };
    let buf = chunk;
    if (this.pendingBytes > 0) {
      buf = new Uint8Array(this.pendingBytes + chunk.length);
      let at = 0;
      for (const p of this.pending) {
        buf.set(p, at);
        at += p.length;
      }
      buf.set(chunk, at);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const out: Uint8Array[] = [];
    let at = 0;
    while (buf.length - at >= 4) {
      const len = ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
      if (len === 0 || len > MAX_HOLDER_BODY) {
        this.failed = `holder sent a message length of ${len} (at most ${MAX_HOLDER_BODY})`;
        return { error: this.failed };
      }
      if (buf.length - at - 4 < len) break;
      out.push(buf.subarray(at + 4, at + 4 + len));
      at += 4 + len;
    }
    if (at < buf.length) {
      // Kept as a copy: the caller may reuse its chunk.
      this.pending.push(buf.slice(at));
      this.pendingBytes = buf.length - at;
    }
    return out;
  }
}
