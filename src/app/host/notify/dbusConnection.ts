// One connection to the D-Bus session bus (DBUS_SESSION_BUS_ADDRESS): EXTERNAL authentication
// as this user, Hello, method calls answered by serial, and signals to whoever listens. What the
// notification sink needs and nothing more (no introspection, no file descriptors).
import { connect, type Socket } from 'node:net';
import { decodeMessage, encodeMessage, ERROR, messageLength, METHOD_CALL, METHOD_RETURN, SIGNAL, type DbusMessage, type DbusValue } from './dbusWire';

/** The bus answers a call in milliseconds; a call unanswered this long has failed. */
const CALL_TIMEOUT_MS = 5_000;
/** The longest message a notification server sends us is tiny; far past this is a broken peer. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The socket a bus address names: `unix:path=…` or (Linux) `unix:abstract=…`; null otherwise. */
export function busSocketPath(address: string | undefined): string | null {
  for (const a of (address ?? '').split(';')) {
    if (!a.startsWith('unix:')) continue;
    const kv = Object.fromEntries(
      a
        .slice(5)
        .split(',')
        .map((p) => p.split('=') as [string, string]),
    );
    const unescape = (s: string): string => s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    if (kv.path) return unescape(kv.path);
    if (kv.abstract) return `\0${unescape(kv.abstract)}`;
  }
  return null;
}

export class DbusConnection {
  private serial = 0;
  private buf = Buffer.alloc(0);
  private authed = false;
  private readonly calls = new Map<number, { resolve: (m: DbusMessage) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly signalListeners: Array<(m: DbusMessage) => void> = [];
  closed = false;

  private constructor(private readonly socket: Socket) {}

  /** Connects, authenticates and says Hello; rejects with why it could not. */
  static open(address: string | undefined): Promise<DbusConnection> {
    const path = busSocketPath(address);
    if (!path) return Promise.reject(new Error(`no usable session bus address (DBUS_SESSION_BUS_ADDRESS is ${address ? JSON.stringify(address) : 'not set'})`));
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      // The host's lifetime is its own business: an open bus connection never holds it up.
      socket.unref();
      const c = new DbusConnection(socket);
      socket.once('error', (e) => reject(new Error(`cannot reach the session bus at ${path}: ${e.message}`)));
      socket.on('close', () => c.close(new Error('the session bus closed the connection')));
      socket.on('data', (d) => c.data(d, (err) => (err ? reject(err) : c.hello().then(() => resolve(c), reject))));
      socket.once('connect', () => {
        const uid = (process.getuid?.() ?? 0).toString();
        socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid, 'ascii').toString('hex')}\r\n`);
      });
    });
  }

  private async hello(): Promise<void> {
    await this.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'Hello' });
  }

  private data(d: Buffer, authDone: (err?: Error) => void): void {
    this.buf = Buffer.concat([this.buf, d]);
    if (!this.authed) {
      const nl = this.buf.indexOf('\r\n');
      if (nl < 0) return;
      const line = this.buf.subarray(0, nl).toString('ascii');
      this.buf = this.buf.subarray(nl + 2);
      if (!line.startsWith('OK ')) return authDone(new Error(`the session bus refused us: ${line}`));
      this.authed = true;
      this.socket.write('BEGIN\r\n');
      authDone();
    }
    for (;;) {
      const n = messageLength(this.buf);
      if (n === null || this.buf.length < n) return;
      if (n > MAX_MESSAGE_BYTES) return this.close(new Error(`a ${n}-byte message from the bus`));
      const m = decodeMessage(this.buf.subarray(0, n));
      this.buf = this.buf.subarray(n);
      this.dispatch(m);
    }
  }

  private dispatch(m: DbusMessage): void {
    if (m.type === SIGNAL) {
      for (const l of this.signalListeners) l(m);
      return;
    }
    if ((m.type === METHOD_RETURN || m.type === ERROR) && m.replySerial !== undefined) {
      const pending = this.calls.get(m.replySerial);
      if (!pending) return;
      this.calls.delete(m.replySerial);
      clearTimeout(pending.timer);
      if (m.type === ERROR) pending.reject(new Error(`${m.errorName ?? 'error'}: ${String(m.body[0] ?? '')}`));
      else pending.resolve(m);
    }
  }

  /** Calls a method; resolves with the return's body. */
  call(m: Omit<DbusMessage, 'type' | 'serial' | 'body'> & { body?: DbusValue[] }): Promise<DbusMessage> {
    if (this.closed) return Promise.reject(new Error('the session bus connection is closed'));
    const serial = ++this.serial;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.calls.delete(serial);
        reject(new Error(`${m.member} got no answer within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      timer.unref();
      this.calls.set(serial, { resolve, reject, timer });
      this.socket.write(encodeMessage({ ...m, type: METHOD_CALL, serial, body: m.body ?? [] }));
    });
  }

  onSignal(listener: (m: DbusMessage) => void): void {
    this.signalListeners.push(listener);
  }

  close(err = new Error('closed')): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.calls.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.calls.clear();
    this.socket.destroy();
  }
}
