// The CLI's side of the control socket: finds the running app through $TERMIO_HOME/run/control.json,
// sends requests and reads replies. Kept to node:net + the zod-free framing module, because every
// `termio sessions …` pays for what this file loads (benchmarked round trip ≤ 60 ms with process start).
import { createConnection, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_INFO_FILE, CONTROL_PROTOCOL_VERSION, FrameDecoder, encodeFrame } from '../../protocol/controlFrames';
import type { ControlArgs, ControlError, ControlResult, ControlVerb, WatchEvent } from '../../protocol/control';
import { termioPaths } from '../services/paths';
import { SESSION_SECRET_ENV } from '../services/sessionSecret';

/**
 * Replies can be bigger than requests (a screen of wide glyphs): 16 Mi chars is far above any real
 * reply and still bounds what a broken peer can make the CLI hold.
 */
const MAX_REPLY_CHARS = 16 * 1024 * 1024;
/** The app answers in milliseconds; ten seconds means it is wedged, and a script should not hang forever. */
export const REQUEST_TIMEOUT_MS = 10_000;

export type ConnectFailure = { kind: 'hostNotRunning'; message: string };

/** `lost`: no reply because the connection ended (the app quit or crashed) — as good as "not running". */
export type Reply<V extends ControlVerb = ControlVerb> = { ok: true; result: ControlResult<V> } | { ok: false; error: ControlError; lost?: true };

/** A reply as it comes off the wire, before it is matched to the verb that asked for it. */
type WireReply = { ok: true; result: unknown } | { ok: false; error: ControlError; lost?: true };

interface Pending {
  resolve(reply: WireReply): void;
}

export class ControlClient {
  private readonly decoder = new FrameDecoder(MAX_REPLY_CHARS);
  private readonly pending = new Map<number, Pending>();
  private nextSeq = 1;
  private eventListener: ((e: WatchEvent) => void) | null = null;
  private closeListener: ((why: string) => void) | null = null;
  /** Why the connection ended; set once. */
  private closed: ControlError | null = null;
  /** An error the app sent without seq (e.g. `busy` on connect) before anything was pending. */
  private unsolicited: ControlError | null = null;

  private constructor(
    private readonly socket: Socket,
    /** TERMIO_SESSION_SECRET when this runs inside a Termio session: every request says so. */
    private readonly secret: string | undefined,
  ) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.handleData(chunk));
    socket.on('error', (err) => this.finish(`the connection failed: ${err.message}`));
    socket.on('close', () => this.finish('the app closed the connection'));
  }

  /**
   * Connects to the session host's control socket, starting the host first when none runs (it
   * owns every session, so the command works with no window open).
   */
  static async connectOrStart(env: NodeJS.ProcessEnv): Promise<ControlClient | ConnectFailure> {
    const first = await ControlClient.connect(env);
    if (first instanceof ControlClient) return first;
    // Loaded only when no host runs: every other command skips it.
    const { connectHost } = require('./hostLauncher') as typeof import('./hostLauncher');
    const host = await connectHost(env, { client: 'termio-cli', start: true });
    if ('kind' in host) return { kind: 'hostNotRunning', message: `no Termio session host runs, and starting one failed: ${host.message}` };
    host.close();
    return ControlClient.connect(env);
  }

  /** Connects to the running app, or says why it is not running. */
  static connect(env: NodeJS.ProcessEnv): Promise<ControlClient | ConnectFailure> {
    const runDir = termioPaths(env).runDir;
    const infoFile = join(runDir, CONTROL_INFO_FILE);
    let socketPath: string;
    try {
      const info = JSON.parse(readFileSync(infoFile, 'utf8')) as { socket?: unknown };
      if (typeof info.socket !== 'string') throw new Error('no socket field');
      socketPath = info.socket;
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      return Promise.resolve({
        kind: 'hostNotRunning',
        message: missing ? `Termio is not running (no ${infoFile})` : `Termio is not running (${infoFile} is unreadable: ${(err as Error).message})`,
      });
    }
    return new Promise((resolve) => {
      const socket = createConnection(socketPath);
      const onError = (err: NodeJS.ErrnoException) => {
        resolve({
          kind: 'hostNotRunning',
          message:
            err.code === 'ECONNREFUSED' || err.code === 'ENOENT'
              ? `Termio is not running (${socketPath} is a stale socket left by an app that is gone)`
              : `cannot reach Termio at ${socketPath}: ${err.message}`,
        });
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        resolve(new ControlClient(socket, env[SESSION_SECRET_ENV] || undefined));
      });
    });
  }

  /**
   * Sends one request; resolves with its reply, typed by the verb (never rejects: a lost
   * connection is an error reply). The result is the app's, which speaks the protocol version
   * this client checked in every frame; it is not validated again here, because loading zod
   * would double the start-up time of every `termio` command.
   */
  async request<V extends ControlVerb>(verb: V, args: ControlArgs<V>, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Reply<V>> {
    // The one place a wire reply becomes a typed one: the verb's reply schema is the contract.
    return (await this.send(verb, args, timeoutMs)) as Reply<V>;
  }

  private send(verb: ControlVerb, args: unknown, timeoutMs: number): Promise<WireReply> {
    if (this.closed) return Promise.resolve(this.closedReply(this.closed));
    const seq = this.nextSeq++;
    return new Promise((resolve) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(seq);
              resolve({ ok: false, error: { code: 'internal', message: `no reply to ${verb} within ${timeoutMs} ms` } });
            }, timeoutMs)
          : null;
      this.pending.set(seq, {
        resolve: (reply) => {
          if (timer) clearTimeout(timer);
          resolve(reply);
        },
      });
      this.socket.write(encodeFrame({ v: CONTROL_PROTOCOL_VERSION, seq, verb, args, secret: this.secret || undefined }));
    });
  }

  /** Watch events (after a sessions.watch request). */
  onEvent(listener: (e: WatchEvent) => void): void {
    this.eventListener = listener;
  }

  /** Called once when the connection ends, with why. */
  onClose(listener: (why: string) => void): void {
    this.closeListener = listener;
  }

  close(): void {
    this.closed ??= { code: 'internal', message: 'closed by the client' };
    this.closeListener = null;
    this.socket.destroy();
  }

  private handleData(chunk: string): void {
    for (const frame of this.decoder.push(chunk)) {
      if (frame.kind === 'oversized') {
        this.finish(`the app sent a reply longer than ${MAX_REPLY_CHARS} characters`);
        this.socket.destroy();
        return;
      }
      let msg: { v?: unknown; seq?: unknown; ok?: unknown; result?: unknown; error?: ControlError; event?: WatchEvent };
      try {
        msg = JSON.parse(frame.text) as typeof msg;
      } catch {
        continue;
      }
      if (msg.event && this.eventListener) {
        this.eventListener(msg.event);
        continue;
      }
      if (msg.v !== CONTROL_PROTOCOL_VERSION) {
        this.finish(`the app speaks control protocol ${String(msg.v)}, this termio speaks ${CONTROL_PROTOCOL_VERSION}`);
        this.socket.destroy();
        return;
      }
      const reply: WireReply =
        msg.ok === true ? { ok: true, result: msg.result } : { ok: false, error: msg.error ?? { code: 'internal', message: 'malformed reply' } };
      const seq = typeof msg.seq === 'number' ? msg.seq : undefined;
      // A reply without seq answers a frame the server could not read (e.g. `busy`): it concerns every pending request.
      const targets = seq === undefined ? [...this.pending.keys()] : [seq];
      if (seq === undefined && targets.length === 0 && !reply.ok) this.unsolicited = reply.error;
      for (const s of targets) {
        const p = this.pending.get(s);
        if (!p) continue;
        this.pending.delete(s);
        p.resolve(reply);
      }
    }
  }

  private closedReply(error: ControlError): WireReply {
    return error === this.unsolicited ? { ok: false, error } : { ok: false, error, lost: true };
  }

  private finish(why: string): void {
    if (this.closed) return;
    const error = this.unsolicited ?? { code: 'internal' as const, message: why };
    this.closed = error;
    for (const [s, p] of this.pending) {
      this.pending.delete(s);
      p.resolve(this.closedReply(error));
    }
    this.closeListener?.(error.message);
  }
}
