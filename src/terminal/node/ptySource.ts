// Where a Session's bytes come from and its input goes: a pty this process opened (node-pty) or
// one a session holder keeps for it (holderSource.ts). Both deliver the program's output in order,
// pause and resume reading for flow control, and report the exit after the last byte.
import * as pty from 'node-pty';
import { Emitter, type Disposable, type Event } from '../../protocol/events';
import { installExitDrain } from './ptyDrain';
import { PtyInput } from './ptyInput';

export interface ExitStatus {
  exitCode: number;
  signal?: number;
}

export interface PtySource extends Disposable {
  /** The program's pid (the session leader on its terminal). */
  readonly pid: number;
  /** Output, in order; chunks are not reused once delivered. */
  readonly onData: Event<Uint8Array>;
  /** Once, after the last onData. */
  readonly onExit: Event<ExitStatus>;
  /** False: refused, nothing written (the program already has MAX_PENDING_INPUT_BYTES unread). */
  write(data: string | Uint8Array): boolean;
  /** Input written that the program has not read yet (as far as this process can see). */
  readonly pendingInput: number;
  resize(cols: number, rows: number): void;
  /** Stop reading the pty (the program blocks in write once the kernel buffer is full). */
  pause(): void;
  resume(): void;
  /** The emulator has parsed the stream up to `offset` (a source that reads ahead by credit uses it). */
  parsed?(offset: number): void;
  /** A signal to the program (a hang-up, an interrupt from `termio sessions signal`...). */
  kill(signal: NodeJS.Signals): void;
  /** Ends the program: hang-up now, SIGKILL after graceMs if it is still there. No more data is delivered. */
  hangUp(graceMs: number): void;
}

/** node-pty's pty, with the output a program writes just before it exits recovered (ptyDrain.ts). */
export class NodePtySource implements PtySource {
  private readonly data = new Emitter<Uint8Array>();
  private readonly exit = new Emitter<ExitStatus>();
  private readonly subs: Disposable[] = [];
  private paused = false;
  private killTimer: NodeJS.Timeout | null = null;
  private exited = false;
  private exitSub: Disposable | null = null;
  readonly onData: Event<Uint8Array> = this.data.event;
  readonly onExit: Event<ExitStatus> = this.exit.event;

  private readonly input: PtyInput;

  constructor(private readonly proc: pty.IPty) {
    this.input = new PtyInput(proc);
    // With encoding: null node-pty hands out Buffers (its typings say string).
    const deliver = (chunk: Buffer): void => this.data.fire(chunk);
    this.subs.push(proc.onData((chunk) => deliver(chunk as unknown as Buffer)));
    installExitDrain(proc, deliver);
    // Kept past dispose() while a hang-up's kill is pending: the exit cancels it.
    this.exitSub = proc.onExit(({ exitCode, signal }) => {
      this.exited = true;
      // What the program never read is let go with it.
      this.input.drop();
      if (this.killTimer) clearTimeout(this.killTimer);
      this.killTimer = null;
      this.exitSub?.dispose();
      this.exitSub = null;
      this.exit.fire(signal ? { exitCode, signal } : { exitCode });
      this.exit.dispose();
    });
  }

  static spawn(file: string, args: string[], opts: { cwd: string; env: Record<string, string>; cols: number; rows: number }): NodePtySource {
    return new NodePtySource(pty.spawn(file, args, { name: 'xterm-256color', cols: opts.cols, rows: opts.rows, cwd: opts.cwd, env: opts.env, encoding: null }));
  }

  get pid(): number {
    return this.proc.pid;
  }

  get pendingInput(): number {
    return this.input.pending();
  }

  write(data: string | Uint8Array): boolean {
    return this.input.write(typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.length));
  }

  resize(cols: number, rows: number): void {
    this.proc.resize(cols, rows);
  }

  pause(): void {
    this.paused = true;
    this.proc.pause();
  }

  resume(): void {
    this.paused = false;
    this.proc.resume();
  }

  kill(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }

  hangUp(graceMs: number): void {
    if (this.exited) return this.dispose();
    try {
      this.proc.kill('SIGHUP');
    } catch {
      // Already gone.
    }
    this.killTimer = setTimeout(() => {
      this.killTimer = null;
      try {
        this.proc.kill('SIGKILL');
      } catch {
        // Exited during the grace period.
      }
    }, graceMs);
    this.killTimer.unref();
    // Keep draining so node-pty sees the hang-up and reaps the child; the data is discarded.
    if (this.paused) this.proc.resume();
    this.data.dispose();
  }

  dispose(): void {
    // The tab is closing: what the program never read is let go now, not at its exit.
    this.input.drop();
    for (const s of this.subs.splice(0)) s.dispose();
    this.data.dispose();
    if (this.killTimer) return;
    this.exitSub?.dispose();
    this.exitSub = null;
    this.exit.dispose();
  }
}

/** The source of a session whose program had ended before this process started (a finished
 *  command's tab kept through a host restart): nothing flows, nothing runs, nothing is signalled. */
export class EndedSource implements PtySource {
  private readonly exit = new Emitter<ExitStatus>();
  readonly onData: Event<Uint8Array> = new Emitter<Uint8Array>().event;
  readonly onExit: Event<ExitStatus> = this.exit.event;
  readonly pendingInput = 0;

  constructor(readonly pid: number) {}

  /** Reports the exit it was restored with (once the session listens). */
  ended(status: ExitStatus): void {
    this.exit.fire(status);
    this.exit.dispose();
  }

  write(): boolean {
    return false;
  }

  resize(): void {}
  pause(): void {}
  resume(): void {}
  kill(): void {}
  hangUp(): void {}
  dispose(): void {
    this.exit.dispose();
  }
}
