// The D-Bus wire format, as much of it as notifications need: a message's header and a body of
// the basic types, strings, arrays, structs, dict entries and variants, in little-endian, from
// and to bytes. Signatures drive both directions (the D-Bus specification, "Message Protocol").

export type DbusValue = string | number | boolean | DbusValue[] | { signature: string; value: DbusValue };

/** Message types. */
export const METHOD_CALL = 1;
export const METHOD_RETURN = 2;
export const ERROR = 3;
export const SIGNAL = 4;

const FIELD = { path: 1, interface: 2, member: 3, errorName: 4, replySerial: 5, destination: 6, sender: 7, signature: 8 } as const;
const FIELD_TYPE: Record<number, string> = { 1: 'o', 2: 's', 3: 's', 4: 's', 5: 'u', 6: 's', 7: 's', 8: 'g' };

export interface DbusMessage {
  type: number;
  serial: number;
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  replySerial?: number;
  destination?: string;
  sender?: string;
  signature?: string;
  body: DbusValue[];
}

const ALIGN: Record<string, number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, s: 4, o: 4, g: 1, a: 4, '(': 8, '{': 8, v: 1 };

/** The complete types of a signature, one by one ("sa{sv}i" → s, a{sv}, i). */
export function splitSignature(sig: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < sig.length) {
    const end = typeEnd(sig, i);
    out.push(sig.slice(i, end));
    i = end;
  }
  return out;
}

function typeEnd(sig: string, i: number): number {
  const c = sig[i];
  if (c === 'a') return typeEnd(sig, i + 1);
  if (c === '(' || c === '{') {
    const close = c === '(' ? ')' : '}';
    let j = i + 1;
    while (sig[j] !== close) {
      if (j >= sig.length) throw new Error(`unbalanced signature ${sig}`);
      j = typeEnd(sig, j);
    }
    return j + 1;
  }
  if (c === undefined || !(c in ALIGN)) throw new Error(`unsupported type ${c ?? '(end)'} in ${sig}`);
  return i + 1;
}

class Writer {
  private buf = Buffer.alloc(256);
  length = 0;
  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  align(n: number): void {
    const pad = (n - (this.length % n)) % n;
    this.ensure(pad);
    this.buf.fill(0, this.length, this.length + pad);
    this.length += pad;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf.writeUInt8(v, this.length++);
  }
  u32(v: number): void {
    this.align(4);
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.length);
    this.length += 4;
  }
  i32(v: number): void {
    this.align(4);
    this.ensure(4);
    this.buf.writeInt32LE(v, this.length);
    this.length += 4;
  }
  bytes(b: Buffer): void {
    this.ensure(b.length);
    b.copy(this.buf, this.length);
    this.length += b.length;
  }
  setU32(at: number, v: number): void {
    this.buf.writeUInt32LE(v, at);
  }
  done(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function write(w: Writer, type: string, v: DbusValue): void {
  const c = type[0];
  switch (c) {
    case 'y':
      return w.u8(v as number);
    case 'b':
      return w.u32(v ? 1 : 0);
    case 'u':
      return w.u32(v as number);
    case 'i':
      return w.i32(v as number);
    case 's':
    case 'o': {
      const b = Buffer.from(v as string, 'utf8');
      w.u32(b.length);
      w.bytes(b);
      return w.u8(0);
    }
    case 'g': {
      const b = Buffer.from(v as string, 'ascii');
      w.u8(b.length);
      w.bytes(b);
      return w.u8(0);
    }
    case 'v': {
      const x = v as { signature: string; value: DbusValue };
      write(w, 'g', x.signature);
      return write(w, x.signature, x.value);
    }
    case 'a': {
      const inner = type.slice(1);
      w.u32(0);
      const lengthAt = w.length - 4;
      w.align(ALIGN[inner[0]!]!);
      const start = w.length;
      for (const item of v as DbusValue[]) write(w, inner, item);
      return w.setU32(lengthAt, w.length - start);
    }
    case '(':
    case '{': {
      w.align(8);
      const fields = splitSignature(type.slice(1, -1));
      fields.forEach((f, i) => write(w, f, (v as DbusValue[])[i]!));
      return;
    }
    default:
      throw new Error(`cannot write D-Bus type ${type}`);
  }
}

export function encodeMessage(m: DbusMessage): Buffer {
  const body = new Writer();
  const sig = m.signature ?? '';
  splitSignature(sig).forEach((t, i) => write(body, t, m.body[i]!));
  const w = new Writer();
  w.u8(0x6c); // 'l': little-endian
  w.u8(m.type);
  w.u8(0);
  w.u8(1);
  w.u32(body.length);
  w.u32(m.serial);
  const fields: DbusValue[] = [];
  for (const [name, code] of Object.entries(FIELD)) {
    const value = m[name as keyof typeof FIELD];
    if (value !== undefined && value !== '') fields.push([code, { signature: FIELD_TYPE[code]!, value }]);
  }
  write(w, 'a(yv)', fields);
  w.align(8);
  w.bytes(body.done());
  return w.done();
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
    private readonly base = 0,
  ) {}
  align(n: number): void {
    this.pos += (n - ((this.pos - this.base) % n)) % n;
  }
  u8(): number {
    return this.buf.readUInt8(this.pos++);
  }
  u32(): number {
    this.align(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  i32(): number {
    this.align(4);
    const v = this.buf.readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  str(n: number): string {
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n + 1;
    return s;
  }
}

function read(r: Reader, type: string): DbusValue {
  switch (type[0]) {
    case 'y':
      return r.u8();
    case 'b':
      return r.u32() !== 0;
    case 'u':
      return r.u32();
    case 'i':
      return r.i32();
    case 'n':
    case 'q':
      r.align(2);
      r.pos += 2;
      return 0;
    case 'x':
    case 't':
    case 'd':
      r.align(8);
      r.pos += 8;
      return 0;
    case 's':
    case 'o':
      return r.str(r.u32());
    case 'g':
      return r.str(r.u8());
    case 'v': {
      const signature = read(r, 'g') as string;
      return { signature, value: read(r, signature) };
    }
    case 'a': {
      const inner = type.slice(1);
      const length = r.u32();
      r.align(ALIGN[inner[0]!]!);
      const end = r.pos + length;
      const items: DbusValue[] = [];
      while (r.pos < end) items.push(read(r, inner));
      return items;
    }
    case '(':
    case '{': {
      r.align(8);
      return splitSignature(type.slice(1, -1)).map((t) => read(r, t));
    }
    default:
      throw new Error(`cannot read D-Bus type ${type}`);
  }
}

/** The length of the message at the start of `buf` once its fixed header is in, else null. */
export function messageLength(buf: Buffer): number | null {
  if (buf.length < 16) return null;
  if (buf[0] !== 0x6c) throw new Error('only little-endian D-Bus messages are read');
  const body = buf.readUInt32LE(4);
  const fields = buf.readUInt32LE(12);
  const header = 16 + fields;
  return header + ((8 - (header % 8)) % 8) + body;
}

export function decodeMessage(buf: Buffer): DbusMessage {
  const r = new Reader(buf, 12);
  const m: DbusMessage = { type: buf[1]!, serial: buf.readUInt32LE(8), body: [] };
  for (const f of read(r, 'a(yv)') as Array<[number, { value: DbusValue }]>) {
    const name = (Object.entries(FIELD).find(([, code]) => code === f[0]) ?? [])[0] as keyof typeof FIELD | undefined;
    if (name) (m as unknown as Record<string, DbusValue>)[name] = f[1].value;
  }
  r.align(8);
  const body = new Reader(buf, r.pos, r.pos);
  m.body = splitSignature(m.signature ?? '').map((t) => read(body, t));
  return m;
}
