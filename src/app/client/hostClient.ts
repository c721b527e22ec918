// The typed client of the host's socket, shared by every client (termio attach, the CLI, later the
// Qt app): connects and shakes hands, matches responses to requests by id, and hands frames,
// rows and events to listeners. node:net and the pure protocol only: no pty, no emulator, no zod.
import { createConnection } from 'node:net';
import type { Duplex } from 'node:stream';
import { readFrame, readRows, type FrameHeader, type FrameReader, type FrameDecodeError, type RowsHeader } from '../../protocol/hostFrame';
import { encodeJsonMessage, HOST_PROTOCOL_VERSION, MAX_HOST_MESSAGE_BYTES, MessageDecoder } from '../../protocol/hostFraming';
import type { HostError, HostEvent, HostHello, HostMessage, HostMethod, HostParams, HostResults, InputIntent } from '../../protocol/hostMessages';
import { traceLatency } from '../services/latencyTrace';

/** The host answers in milliseconds; 10 s means it is wedged, and a caller should not hang. */
export const HOST_REQUEST_TIMEOUT_MS = 10_000;

export type HostConnectFailure =
  | { kind: 'notRunning'; message: string }
  | { kind: 'versionMismatch'; message: string; protocol?: number; hostVersion?: string; pid?: number; keepsAgents?: boolean }
  /** notProtocol: what came back was not Termio's host protocol (bytes that do not frame, a first
   *  message that is no hello): something else answers at the other end. */
  | { kind: 'failed'; message: string; notProtocol?: true };

export type HostReply<M extends HostMethod> = { ok: true; result: HostResults[M] } | { ok: false; error: HostError };

export type RowsReply = { ok: true; header: RowsHeader; reader: FrameReader } | { ok: false; error: HostError };

export interface ClientIdentity {
  /** What the client is (termio-attach, termio-cli, termio-app). */
  client: string;
  version: string;
  /** Defaults to HOST_PROTOCOL_VERSION (tests send others). */
  protocol?: number;
  /** Inside a Termio session: its TERMIO_SESSION and TERMIO_SESSION_SECRET. The secret goes with
   *  every request and both go in the hello, so the host knows which session asks (and what it may do). */
  session?: string;
  secret?: string;
}

type RowsMessage = { kind: 'rows'; header: RowsHeader; reader: FrameReader; bytes: Uint8Array };
type Pending = (m: { kind: 'json'; value: HostMessage } | RowsMessage) => void;

export class HostClient {
  private readonly decoder = new MessageDecoder(MAX_HOST_MESSAGE_BYTES);
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private frameListener: ((header: FrameHeader, reader: FrameReader) => void) | null = null;
  private rawFrameListener: ((bytes: Uint8Array) => void) | null = null;
  private eventListener: ((e: HostEvent) => void) | null = null;
  private closeListeners: Array<(why: string) => void> = [];
  private closedWhy: string | null = null;
  /** The host's last error message: the reason given if it then closes the connection. */
  private lastRefusal: string | null = null;
  private helloWaiter: ((m: HostMessage | null, why?: string) => void) | null = null;
  /** The peer sent what is not the host protocol (see protocolError). */
  private garbled = false;
  hello!: HostHello;

  private constructor(
    private readonly socket: Duplex,
    private readonly secret: string | undefined,
  ) {
    socket.on('data', (chunk: Buffer) => this.handleData(chunk));
    socket.on('error', (err) => this.finish(`the connection to the host failed: ${err.message}`));
    socket.on('close', () => this.finish(this.lastRefusal ?? 'the host closed the connection'));
  }

  /** Connects and shakes hands, or says why not (no host running, another protocol version). */
  static connect(socketPath: string, who: ClientIdentity): Promise<HostClient | HostConnectFailure> {
    return new Promise((resolve) => {
      const socket = createConnection(socketPath);
      const onError = (err: NodeJS.ErrnoException): void => {
        const gone = err.code === 'ENOENT' || err.code === 'ECONNREFUSED';
        resolve(
          gone
            ? { kind: 'notRunning', message: `no Termio host is running (${err.code === 'ENOENT' ? 'no socket at' : 'nobody listens on'} ${socketPath})` }
            : { kind: 'failed', message: `cannot reach the Termio host at ${socketPath}: ${err.message}` },
        );
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        void HostClient.over(socket, who, `the host at ${socketPath}`).then(resolve);
      });
    });
  }

  /**
   * Shakes hands over a stream that is already open (a socket, or the stdio of `ssh … termio host
   * --stdio`): resolves with the client once the host said hello, or with why not.
   */
  static over(stream: Duplex, who: ClientIdentity, label: string, timeoutMs = HOST_REQUEST_TIMEOUT_MS): Promise<HostClient | HostConnectFailure> {
    return new Promise((resolve) => {
      const client = new HostClient(stream, who.secret || undefined);
      const timer = setTimeout(() => client.helloWaiter?.(null, `${label} did not answer the hello within ${timeoutMs} ms`), timeoutMs);
      client.helloWaiter = (m, why) => {
        clearTimeout(timer);
        client.helloWaiter = null;
        if (m?.t === 'hello') {
          client.hello = m;
          resolve(client);
          return;
        }
        client.close();
        if (m?.t === 'error' && m.code === 'versionMismatch') {
          resolve({
            kind: 'versionMismatch',
            message: m.message,
            protocol: m.protocol,
            hostVersion: m.hostVersion,
            pid: m.pid,
            keepsAgents: m.keepsAgents ? true : undefined,
          });
        } else if (m?.t === 'error') {
          resolve({ kind: 'failed', message: m.message });
        } else if (client.garbled || m) {
          resolve({ kind: 'failed', message: m ? `${label} sent a message that is not a hello` : (why ?? `${label} sent a bad message`), notProtocol: true });
        } else {
          resolve({ kind: 'failed', message: why ?? `${label} did not answer the hello` });
        }
      };
      const inside = { session: who.session, secret: who.secret };
      stream.write(encodeJsonMessage({ t: 'hello', protocol: who.protocol ?? HOST_PROTOCOL_VERSION, client: who.client, version: who.version, ...inside }));
    });
  }

  get closed(): boolean {
    return this.closedWhy !== null;
  }

  request<M extends Exclude<HostMethod, 'rows'>>(method: M, params: HostParams<M>, timeoutMs = HOST_REQUEST_TIMEOUT_MS): Promise<HostReply<M>> {
    return this.call(method, params, timeoutMs).then((m) => {
      if (m.kind === 'error') return { ok: false, error: m.error };
      if (m.kind === 'rows') return { ok: false, error: { code: 'badMessage', message: `rows in answer to ${method}` } };
      const v = m.value;
      if (v.t === 'res' && v.ok) return { ok: true, result: v.result as HostResults[M] };
      if (v.t === 'res') return { ok: false, error: v.error };
      return { ok: false, error: { code: 'badMessage', message: `unexpected answer to ${method}` } };
    });
  }

  /** Buffer rows [first, first + count): scrollback paging. */
  rows(params: HostParams<'rows'>, timeoutMs = HOST_REQUEST_TIMEOUT_MS): Promise<RowsReply> {
    return this.call('rows', params, timeoutMs).then((m) => {
      if (m.kind === 'error') return { ok: false, error: m.error };
      if (m.kind === 'rows') return { ok: true, header: m.header, reader: m.reader };
      const v = m.value;
      if (v.t === 'res' && !v.ok) return { ok: false, error: v.error };
      return { ok: false, error: { code: 'badMessage', message: 'unexpected answer to rows' } };
    });
  }

  /** Rows as the host sent them (a hub passes them on with the request id its own client used). */
  rowsRaw(params: HostParams<'rows'>, timeoutMs = HOST_REQUEST_TIMEOUT_MS): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; error: HostError }> {
    return this.call('rows', params, timeoutMs).then((m) => {
      if (m.kind === 'rows') return { ok: true, bytes: m.bytes };
      if (m.kind === 'error') return { ok: false, error: m.error };
      const v = m.value;
      if (v.t === 'res' && !v.ok) return { ok: false, error: v.error };
      return { ok: false, error: { code: 'badMessage', message: 'unexpected answer to rows' } };
    });
  }

  /** Any method with its answer as sent (a hub relays answers it does not read). */
  requestAny(
    method: HostMethod,
    params: unknown,
    timeoutMs = HOST_REQUEST_TIMEOUT_MS,
  ): Promise<{ ok: true; result: unknown } | { ok: false; error: HostError }> {
    return this.call(method, params, timeoutMs).then((m) => {
      if (m.kind === 'error') return { ok: false, error: m.error };
      if (m.kind === 'rows') return { ok: false, error: { code: 'badMessage', message: `rows in answer to ${method}` } };
      const v = m.value;
      if (v.t === 'res') return v.ok ? { ok: true, result: v.result } : { ok: false, error: v.error };
      return { ok: false, error: { code: 'badMessage', message: `unexpected answer to ${method}` } };
    });
  }

  private call(
    method: HostMethod,
    params: unknown,
    timeoutMs: number,
  ): Promise<{ kind: 'json'; value: HostMessage } | RowsMessage | { kind: 'error'; error: HostError }> {
    if (this.closedWhy) return Promise.resolve({ kind: 'error', error: { code: 'busy', message: this.closedWhy } });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ kind: 'error', error: { code: 'busy', message: `no answer to ${method} within ${timeoutMs} ms` } });
      }, timeoutMs);
      this.pending.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.socket.write(encodeJsonMessage(this.secret ? { t: 'req', id, method, params, secret: this.secret } : { t: 'req', id, method, params }));
    });
  }

  input(view: number, input: InputIntent): void {
    if (!this.closedWhy) this.socket.write(encodeJsonMessage({ t: 'input', view, input }));
  }

  /** Tells the host frame `seq` of `view` is painted: the next one may come. */
  ack(view: number, seq: number): void {
    if (!this.closedWhy) this.socket.write(encodeJsonMessage({ t: 'ack', view, seq }));
  }

  /** Frames of every view on this connection. Register before attaching: the first frame may
   *  arrive in the same read as the attach answer. The reader stays valid (it owns its bytes). */
  onFrame(listener: (header: FrameHeader, reader: FrameReader) => void): void {
    this.frameListener = listener;
  }

  /** Frames as the host sent them, undecoded (a hub passes them on); replaces onFrame. */
  onRawFrame(listener: (bytes: Uint8Array) => void): void {
    this.rawFrameListener = listener;
  }

  onEvent(listener: (e: HostEvent) => void): void {
    this.eventListener = listener;
  }

  onClose(listener: (why: string) => void): void {
    if (this.closedWhy) listener(this.closedWhy);
    else this.closeListeners.push(listener);
  }

  close(): void {
    this.finish('closed by the client');
    this.socket.destroy();
  }

  private handleData(chunk: Buffer): void {
    traceLatency('frameIn');
    for (const m of this.decoder.push(chunk)) {
      if (m.kind === 'error') {
        this.protocolError(`the host sent a bad message: ${m.message}`);
        return;
      }
      if (m.kind === 'frame') {
        if (this.rawFrameListener) {
          this.rawFrameListener(m.bytes);
          continue;
        }
        const f = readFrame(m.bytes);
        if ('kind' in f) return this.protocolError(f.message);
        this.frameListener?.(f.header, f.reader);
        continue;
      }
      if (m.kind === 'rows') {
        const r = readRows(m.bytes);
        if ('kind' in r) return this.protocolError((r as FrameDecodeError).message);
        const p = this.pending.get(r.header.id);
        this.pending.delete(r.header.id);
        p?.({ kind: 'rows', header: r.header, reader: r.reader, bytes: m.bytes });
        continue;
      }
      const v = m.value as HostMessage;
      if (this.helloWaiter) {
        this.helloWaiter(v);
        continue;
      }
      if (v?.t === 'res') {
        const p = this.pending.get(v.id);
        this.pending.delete(v.id);
        p?.({ kind: 'json', value: v });
      } else if (v?.t === 'event') {
        this.eventListener?.(v);
      } else if (v?.t === 'error') {
        // After a framing error the host ends the connection: its words become the reason when
        // the socket closes. Other errors (input for a view that went away) leave it open.
        this.lastRefusal = `the host refused: ${v.message}`;
      }
    }
  }

  private protocolError(message: string): void {
    this.garbled = true;
    this.finish(message);
    this.socket.destroy();
  }

  private finish(why: string): void {
    if (this.closedWhy) return;
    this.closedWhy = why;
    this.helloWaiter?.(null, why);
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p({ kind: 'json', value: { t: 'res', id, ok: false, error: { code: 'busy', message: why } } });
    }
    for (const l of this.closeListeners.splice(0)) l(why);
  }
}
