// Cuts the pty byte stream at UTF-8 character boundaries: a read that ends inside a multi-byte
// character keeps those bytes for the next read. xterm.js decodes split characters itself, but
// loses the emoji-joining state (ZWJ sequences) across such a split.

export class Utf8Splitter {
  private pending: Uint8Array | null = null;

  /** The complete characters of pending + chunk; an incomplete tail is held back. */
  push(chunk: Uint8Array): Uint8Array {
    let data = chunk;
    if (this.pending) {
      const joined = new Uint8Array(this.pending.length + chunk.length);
      joined.set(this.pending, 0);
      joined.set(chunk, this.pending.length);
      data = joined;
      this.pending = null;
    }
    const cut = completeLength(data);
    if (cut === data.length) return data;
    this.pending = data.slice(cut);
    return data.subarray(0, cut);
  }

  /** Bytes held back (an incomplete character at the end of the stream). */
  flush(): Uint8Array {
    const rest = this.pending ?? new Uint8Array(0);
    this.pending = null;
    return rest;
  }
}

/** Length of the prefix of `data` that ends on a character boundary. Looks at most 3 bytes
 *  back, the longest incomplete UTF-8 sequence; invalid bytes are passed through. */
export function completeLength(data: Uint8Array): number {
  const n = data.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const b = data[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
