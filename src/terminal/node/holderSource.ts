// A pty kept by a session holder (native/termio-holder), spoken to over its Unix socket with the
// protocol in docs/holder.md: startHolder() starts one for a new program, HolderSource.connect()
// reaches one that is running (this host's or a previous host's), and the source then behaves as
// a local pty would, plus checkpoint acks, replay offsets and a detach that leaves the program running.
import { MAX_PENDING_INPUT_BYTES } from './ptyInput';
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { createConnection, type Socket } from 'node:net';
import { Emitter, type Event } from '../../protocol/events';
import { decodeHolderBody, encodeHolder, HolderDecoder, MAX_HOLDER_INPUT, SignalTarget, type HolderHello } from '../../protocol/holderWire';
import type { ExitStatus, PtySource } from './ptySource';
import { holderPidsProblem } from './holderProof';

/** How long a new holder may take to say it is up: an exec and a bind, well under a second even
 *  on a loaded machine. */
const HOLDER_START_TIMEOUT_MS = 5_000;
/** How long connecting to a holder and reading its hello may take before it counts as gone. */
const HOLDER_CONNECT_TIMEOUT_MS = 2_000;
/** How far past what the emulator parsed the holder may read the pty (parsed()). A Ctrl-C leaves
 *  at most this to parse: ~10 ms of a `yes` flood, the slowest common output, on this 2-core
 *  machine's share of a core. Half of it (64 KiB) kept the parser of fast output (`ls -lR`,
 *  truecolor) waiting for the credit to travel: 0.83-0.96x raw throughput against 0.94-1.13x. */
export const CREDIT_BYTES = 128 * 1024;
/** Credit moves in steps of this many bytes: at most one message per 4 KiB parsed. */
const CREDIT_STEP = 4096;
/** A lost connection to a holder that still runs (another same-uid process connected to it, and
 *  the holder serves one connection at a time) is taken back this many times a minute at most;
 *  past that the session counts as lost, as one whose holder is gone. */
const RECONNECTS_PER_MINUTE = 10;

export interface HolderStart {
  /** The termio-holder binary. */
  binary: string;
  /** Where it listens (in the 0700 run folder). */
  socketPath: string;
  /** File descriptor for the holder's own diagnostics (its stderr); default: none. */
  logFd?: number;
  /** Appends every byte the program writes to this file (tests compare streams with it). */
  tap?: string;
}

/** Starts a holder running `file args` on a fresh pty; resolves with the program's pid once it runs. */
export function startHolder(
  h: HolderStart,
  file: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; cols: number; rows: number },
): Promise<{ agentPid: number; holderPid: number } | { error: string }> {
  const argv = [...(h.tap ? ['--tap', h.tap] : []), h.socketPath, String(opts.cols), String(opts.rows), file, ...args];
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: { agentPid: number; holderPid: number } | { error: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    // Its own session (detached): a signal to the host's process group never reaches it.
    const child = spawn(h.binary, argv, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', h.logFd ?? 'ignore'] });
    const timer = setTimeout(() => done({ error: `the session holder did not start within ${HOLDER_START_TIMEOUT_MS} ms` }), HOLDER_START_TIMEOUT_MS);
    const stdout = child.stdout!;
    let out = '';
    stdout.setEncoding('utf8');
    stdout.on('data', (s: string) => {
      out += s;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      const line = out.slice(0, nl);
      const ok = /^ok (\d+)$/.exec(line);
      done(ok ? { agentPid: Number(ok[1]), holderPid: child.pid ?? 0 } : { error: `the session holder could not start: ${line.replace(/^error /, '')}` });
      stdout.destroy();
    });
    child.on('error', (err) => done({ error: `cannot run the session holder ${h.binary}: ${err.message}` }));
    child.on('exit', (code, signal) => done({ error: `the session holder exited at start (${signal ?? code})` }));
    child.unref();
  });
}

export class HolderSource implements PtySource {
  private readonly data = new Emitter<Uint8Array>();
  private readonly exit = new Emitter<ExitStatus>();
  private readonly size = new Emitter<{ offset: number; cols: number; rows: number }>();
  private readonly gap = new Emitter<{ from: number; to: number }>();
  private readonly reconnected = new Emitter<string>();
  private decoder = new HolderDecoder();
  private next = 0;
  private exited = false;
  private closed = false;
  /** The last credit sent (a stream offset), and the last offset parsed. */
  private creditSent = 0;
  private parsedTo = 0;
  /** Input sent on this connection, and how much of it the holder says went to the pty; null
   *  until it says (a holder that predates TAKEN never does: its socket's queue is then the bound). */
  private inputSent = 0;
  private inputTaken: number | null = null;
  private reconnects: number[] = [];
  /** The holder's process id once proven (it started here, or the system says it listens on the
   *  socket): the only holder process this host ever signals. */
  holderPid: number | null = null;
  readonly onData: Event<Uint8Array> = this.data.event;
  readonly onExit: Event<ExitStatus> = this.exit.event;
  /** The holder's pty took a size at this offset (told during a replay, for a faithful re-layout). */
  readonly onSize = this.size.event;
  /** Bytes the holder had to drop before the replay starts (its bound): the rebuilt screen may differ. */
  readonly onGap = this.gap.event;
  /** The connection was lost and taken back (the reason it was lost; logged by the host). */
  readonly onReconnect: Event<string> = this.reconnected.event;
  /** What went wrong on the connection last (an error, a malformed message, a refusal). */
  private trouble: string | null = null;
  /** Set when the connection ended with no exit and could not be taken back (the holder may still
   *  run): why, logged by the host. */
  lostReason: string | null = null;

  private constructor(
    private socket: Socket,
    readonly hello: HolderHello,
    readonly socketPath: string,
  ) {}

  /** Reaches a running holder and reads its hello; nothing flows until attach(). */
  static connect(socketPath: string, timeoutMs = HOLDER_CONNECT_TIMEOUT_MS): Promise<HolderSource | { error: string; stale: boolean }> {
    return new Promise((resolve) => {
      const socket = createConnection(socketPath);
      let source: HolderSource | null = null;
      const fail = (error: string, stale: boolean): void => {
        clearTimeout(timer);
        socket.destroy();
        if (!source) resolve({ error, stale });
      };
      const timer = setTimeout(() => fail(`no hello from ${socketPath} within ${timeoutMs} ms`, false), timeoutMs);
      socket.once('error', (err: NodeJS.ErrnoException) =>
        fail(`cannot reach ${socketPath}: ${err.message}`, err.code === 'ECONNREFUSED' || err.code === 'ENOENT'),
      );
      const decoder = new HolderDecoder();
      const first = (chunk: Buffer): void => {
        const bodies = decoder.push(chunk);
        if ('error' in bodies) return fail(bodies.error, false);
        if (bodies.length === 0) return;
        const msg = decodeHolderBody(bodies[0]!);
        if ('error' in msg || msg.kind !== 'hello') return fail(`${socketPath} did not start with a hello`, false);
        clearTimeout(timer);
        socket.off('data', first);
        socket.pause();
        source = new HolderSource(socket, msg.hello, socketPath);
        // A hello and more in one chunk cannot happen: the holder sends nothing before attach.
        resolve(source);
      };
      socket.on('data', first);
    });
  }

  get pid(): number {
    return this.hello.agentPid;
  }

  /** Checks the pids the hello names against the system (holderProof.ts), or against the holder
   *  this process started (`started`); null and holderPid set when they hold, else the problem. */
  prove(started?: { holderPid: number; agentPid: number }): string | null {
    const h = this.hello;
    const problem = started
      ? h.holderPid === started.holderPid && h.agentPid === started.agentPid
        ? null
        : `its hello names pids ${h.holderPid}/${h.agentPid}, not the ${started.holderPid}/${started.agentPid} started`
      : holderPidsProblem(this.socketPath, h.holderPid, h.agentPid, h.exited !== null);
    if (problem === null) this.holderPid = h.holderPid;
    return problem;
  }

  /** The offset the next delivered byte has. */
  get offset(): number {
    return this.next;
  }

  /** Starts the stream at `from` (what a checkpoint covers; 0 for everything kept). */
  attach(from: number): void {
    this.next = from;
    this.parsedTo = from;
    this.listen(this.socket, from);
  }

  private listen(socket: Socket, from: number): void {
    socket.removeAllListeners('error');
    socket.on('error', (err) => socket === this.socket && (this.trouble ??= err.message));
    socket.on('data', (chunk: Buffer) => socket === this.socket && this.receive(chunk));
    socket.on('close', () => socket === this.socket && void this.closedByPeer());
    this.inputSent = 0;
    this.inputTaken = null;
    this.creditSent = 0;
    socket.write(encodeHolder.attach(from));
    this.parsed(this.parsedTo);
    socket.resume();
  }

  private receive(chunk: Buffer): void {
    const bodies = this.decoder.push(chunk);
    if ('error' in bodies) {
      this.trouble = bodies.error;
      this.socket.destroy();
      return;
    }
    for (const body of bodies) {
      const m = decodeHolderBody(body);
      if ('error' in m) {
        this.trouble = m.error;
        this.socket.destroy();
        return;
      }
      switch (m.kind) {
        case 'data':
          this.next = m.offset + m.bytes.length;
          this.data.fire(m.bytes);
          break;
        case 'size':
          this.size.fire(m);
          break;
        case 'gap':
          this.next = m.to;
          this.gap.fire(m);
          break;
        case 'exit':
          this.exited = true;
          this.socket.end(encodeHolder.bye());
          this.exit.fire(m.signal ? { exitCode: m.exitCode, signal: m.signal } : { exitCode: m.exitCode });
          break;
        case 'error':
          this.trouble = `the holder refused: ${m.message}`;
          break;
        case 'taken':
          this.inputTaken = m.count;
          break;
        default:
          break;
      }
    }
  }

  /**
   * The connection ended with no exit. Another process of the user may have connected to the
   * holder (which serves one connection at a time), so the connection is taken back when the
   * same holder still answers, and the stream goes on from the last byte received. Otherwise the
   * holder is gone (killed), its pty hung up with it, and the session has ended.
   */
  private async closedByPeer(): Promise<void> {
    if (this.exited || this.closed) return;
    const why = this.trouble ?? 'the session holder closed the connection';
    this.trouble = null;
    const notBack = await this.reconnect();
    if (notBack === null) {
      this.reconnected.fire(why);
      return;
    }
    if (this.exited || this.closed) return;
    this.exited = true;
    this.lostReason = `${why}, and it was not taken back: ${notBack}`;
    this.exit.fire({ exitCode: 0, signal: osConstants.signals.SIGHUP });
  }

  /** Connects again to the same holder: null once the stream goes on, else why not. */
  private async reconnect(): Promise<string | null> {
    const now = Date.now();
    this.reconnects = this.reconnects.filter((t) => now - t < 60_000);
    if (this.holderPid === null) return 'the holder was never proven to be the one started';
    if (this.reconnects.length >= RECONNECTS_PER_MINUTE) return `it was taken back ${RECONNECTS_PER_MINUTE} times in the last minute`;
    this.reconnects.push(now);
    const again = await HolderSource.connect(this.socketPath);
    if ('error' in again) return again.error;
    const h = again.hello;
    const other =
      h.holderPid !== this.holderPid || h.agentPid !== this.hello.agentPid
        ? `the socket now answers for pids ${h.holderPid}/${h.agentPid}, not ${this.holderPid}/${this.hello.agentPid}`
        : this.next > h.end
          ? `the holder's stream ends at ${h.end}, before the ${this.next} bytes received`
          : null;
    if (this.closed || this.exited || other !== null) {
      again.socket.destroy();
      return other ?? 'the session ended meanwhile';
    }
    this.socket = again.socket;
    this.decoder = new HolderDecoder();
    this.listen(this.socket, this.next);
    return null;
  }

  private send(bytes: Uint8Array): void {
    if (!this.closed && !this.socket.destroyed) this.socket.write(bytes);
  }

  /** Input sent that the program has not taken yet: what the holder has not written to the pty
   *  (it says, in TAKEN messages), or for an older holder what its socket has not taken. */
  get pendingInput(): number {
    return this.inputTaken === null ? this.socket.writableLength : this.inputSent - this.inputTaken;
  }

  /** False: refused, nothing sent (MAX_PENDING_INPUT_BYTES sent before are not taken yet). */
  write(data: string | Uint8Array): boolean {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (this.pendingInput + bytes.length > MAX_PENDING_INPUT_BYTES) return false;
    for (let at = 0; at < bytes.length; at += MAX_HOLDER_INPUT) this.send(encodeHolder.input(bytes.subarray(at, at + MAX_HOLDER_INPUT)));
    this.inputSent += bytes.length;
    return true;
  }

  resize(cols: number, rows: number): void {
    this.send(encodeHolder.resize(cols, rows));
  }

  pause(): void {
    this.send(encodeHolder.pause());
  }

  resume(): void {
    this.send(encodeHolder.resume());
  }

  /**
   * The emulator has parsed up to `offset`: the holder may read the pty up to CREDIT_BYTES past
   * it. Everything between the pty and the parser (the holder's ring, both sockets' buffers, this
   * process's stream) then holds at most that much, and it is all a Ctrl-C leaves to show: the
   * pty discards what it still holds. Sent when the credit moved by a step or more.
   */
  parsed(offset: number): void {
    this.parsedTo = offset;
    const until = offset + CREDIT_BYTES;
    if (this.closed || until < this.creditSent + CREDIT_STEP) return;
    this.creditSent = until;
    this.send(encodeHolder.credit(until));
  }

  kill(signal: NodeJS.Signals): void {
    const n = osConstants.signals[signal];
    if (n !== undefined) this.send(encodeHolder.signal(n, SignalTarget.agent));
  }

  /** The host has saved everything before `offset`: the holder may forget it. */
  checkpoint(offset: number): void {
    this.send(encodeHolder.checkpoint(offset));
  }

  hangUp(graceMs: number): void {
    if (!this.exited) this.send(encodeHolder.close(graceMs));
    this.release();
  }

  /** A holder this host lost the connection to, and could not reach again, may still run its
   *  program: disposing of the session (closing it, or the host going) ends it, when it is still
   *  provably the same holder (SIGTERM: it hangs up, then SIGKILLs the program). The proof asks
   *  for the program as the holder's child: on macOS that is all that tells the holder's pid from
   *  a process that took the number since (a holder whose program ended goes by itself, a minute
   *  after its last connection closed). */
  private endLostHolder(): void {
    const pid = this.holderPid;
    if (pid === null || holderPidsProblem(this.socketPath, pid, this.hello.agentPid, false) !== null) return;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // It went already.
    }
  }

  /** Closes the connection and leaves the program running with its holder (a host restart). */
  detach(): void {
    this.release();
  }

  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.end();
    this.data.dispose();
    this.size.dispose();
    this.gap.dispose();
    this.reconnected.dispose();
  }

  dispose(): void {
    if (this.lostReason !== null) this.endLostHolder();
    this.release();
    this.exit.dispose();
  }
}
