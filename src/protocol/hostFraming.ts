// Framing of the host's client protocol: every message is a 4-byte big-endian length, then a
// body whose first byte says what it is (JSON text, a screen frame, scrollback rows). Bounded:
// a length past the limit, an unknown kind or bad JSON is an error value, never a throw or a hang.
// Pure (no Node modules): the same codec serves the host, the termio CLI and any future client.

/** Bumped on any change a peer of the previous version would misread (message shapes or bytes). */
export const HOST_PROTOCOL_VERSION = 2;

/** Name of the host's client socket in $TERMIO_HOME/run. */
export const HOST_SOCKET_FILE = 'host.sock';

/**
 * Longest message a client may send, body included: 1 MiB holds a large paste (the control
 * socket allows the same) and keeps what one misbehaving client can make the host buffer small.
 */
export const MAX_CLIENT_MESSAGE_BYTES = 1024 * 1024;

/**
 * Longest message the host sends: the worst screen, 1,000 × 500 cells each its own run of a
 * 4-byte glyph with a link, is about 12 MB; 16 MiB bounds what a broken host can make a client hold.
 */
export const MAX_HOST_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Receive buffer a decoder keeps between messages: a screen frame of an 80×24 terminal is
 *  about 4 KiB, so 64 KiB keeps the common case allocation-free without holding a paste's room. */
const RETAINED_BUFFER_BYTES = 64 * 1024;

/** The length prefix: a u32, big-endian. */
export const LENGTH_BYTES = 4;

/** The first byte of a message body. */
export const MessageKind = {
  /** UTF-8 JSON: hello, requests, responses, events, input, acks. */
  json: 1,
  /** A screen frame (hostFrame.ts). */
  frame: 2,
  /** Buffer rows answering a `rows` request (hostFrame.ts). */
  rows: 3,
} as const;
export type MessageKindValue = (typeof MessageKind)[keyof typeof MessageKind];

export type DecodedMessage = { kind: 'json'; value: unknown } | { kind: 'frame'; bytes: Uint8Array } | { kind: 'rows'; bytes: Uint8Array };

/** A framing failure: the stream cannot be resynchronised, so the connection must end. */
export interface FramingError {
  kind: 'error';
  code: 'oversized' | 'badKind' | 'badJson' | 'empty';
  message: string;
}

interface TextCodecs {
  encoder: { encode(s: string): Uint8Array; encodeInto(s: string, dest: Uint8Array): { read: number; written: number } };
  decoder: { decode(b: Uint8Array): string };
}

/** TextEncoder/TextDecoder exist in every JS runtime we target; the pure layer's lib does not
 *  declare them, so they are looked up once and typed here. */
function textCodecs(): TextCodecs {
  const g = globalThis as unknown as {
    TextEncoder: new () => TextCodecs['encoder'];
    TextDecoder: new (label: string, opts: { fatal: boolean }) => TextCodecs['decoder'];
  };
  return { encoder: new g.TextEncoder(), decoder: new g.TextDecoder('utf-8', { fatal: true }) };
}

export const utf8 = textCodecs();

/** UTF-8 bytes → string; null when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  // Short ASCII strings (most runs of a terminal row) skip the native call.
  if (bytes.length <= 64) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i]! >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }
  try {
    return utf8.decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** One message: length prefix, kind byte, body. */
export function encodeMessage(kind: MessageKindValue, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(LENGTH_BYTES + 1 + body.length);
  new DataView(out.buffer).setUint32(0, body.length + 1);
  out[LENGTH_BYTES] = kind;
  out.set(body, LENGTH_BYTES + 1);
  return out;
}

/** A JSON message (hello, request, response, event, input, ack). */
export function encodeJsonMessage(value: unknown): Uint8Array {
  return encodeMessage(MessageKind.json, utf8.encoder.encode(JSON.stringify(value)));
}

/**
 * Cuts a byte stream into messages. Holds at most one message (bounded by `maxBytes`) plus the
 * chunk being pushed. After the first error it stays failed and returns nothing more: a length
 * prefix that was wrong once makes every later boundary meaningless.
 */
export class MessageDecoder {
  private buf: Uint8Array = new Uint8Array(0);
  private start = 0;
  private end = 0;
  private failed: FramingError | null = null;

  constructor(private readonly maxBytes: number) {
    if (!(maxBytes > 0)) throw new Error(`MessageDecoder: maxBytes must be positive, got ${maxBytes}`);
  }

  /** Bytes received and not yet part of a whole message. */
  get pending(): number {
    return this.end - this.start;
  }

  get error(): FramingError | null {
    return this.failed;
  }

  push(chunk: Uint8Array): Array<DecodedMessage | FramingError> {
    if (this.failed) return [];
    this.append(chunk);
    const out: Array<DecodedMessage | FramingError> = [];
    while (this.end - this.start >= LENGTH_BYTES) {
      const b = this.buf;
      const s = this.start;
      const len = ((b[s]! << 24) >>> 0) + (b[s + 1]! << 16) + (b[s + 2]! << 8) + b[s + 3]!;
      if (len === 0) return this.fail(out, 'empty', 'a message with an empty body (length 0)');
      if (len > this.maxBytes) {
        return this.fail(out, 'oversized', `a message of ${len} bytes is over the limit of ${this.maxBytes} bytes`);
      }
      if (this.end - s - LENGTH_BYTES < len) break;
      const body = b.subarray(s + LENGTH_BYTES, s + LENGTH_BYTES + len);
      this.start = s + LENGTH_BYTES + len;
      const kind = body[0];
      if (kind === MessageKind.json) {
        const text = decodeUtf8(body.subarray(1));
        if (text === null) return this.fail(out, 'badJson', 'a JSON message is not valid UTF-8');
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          return this.fail(out, 'badJson', `a JSON message does not parse: ${(err as Error).message}`);
        }
        out.push({ kind: 'json', value });
      } else if (kind === MessageKind.frame || kind === MessageKind.rows) {
        // Copied: the receive buffer is reused for the next messages.
        out.push({ kind: kind === MessageKind.frame ? 'frame' : 'rows', bytes: body.slice(1) });
      } else {
        return this.fail(out, 'badKind', `unknown message kind ${kind} (expected 1 json, 2 frame or 3 rows)`);
      }
    }
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
      // A large message came and went: give its room back so an idle connection stays small.
      if (this.buf.length > RETAINED_BUFFER_BYTES) this.buf = new Uint8Array(0);
    }
    return out;
  }

  private fail(out: Array<DecodedMessage | FramingError>, code: FramingError['code'], message: string): Array<DecodedMessage | FramingError> {
    this.failed = { kind: 'error', code, message };
    this.buf = new Uint8Array(0);
    this.start = 0;
    this.end = 0;
    out.push(this.failed);
    return out;
  }

  private append(chunk: Uint8Array): void {
    const held = this.end - this.start;
    if (this.buf.length - this.end >= chunk.length) {
      this.buf.set(chunk, this.end);
      this.end += chunk.length;
      return;
    }
    // Grow to what is held plus the chunk (compacting first); never past one message + one chunk.
    const need = held + chunk.length;
    const next = need <= this.buf.length ? this.buf : new Uint8Array(Math.max(need, this.buf.length * 2));
    if (next === this.buf) this.buf.copyWithin(0, this.start, this.end);
    else next.set(this.buf.subarray(this.start, this.end), 0);
    next.set(chunk, held);
    this.buf = next;
    this.start = 0;
    this.end = need;
  }
}
