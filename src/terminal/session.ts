// A Session: one process on a pty, parsed by an @xterm/headless emulator, exposed as a render
// model plus input encoding. Owns the pty, the emulator, its parser hooks and timers, and
// releases them all in dispose(). Emits the in-band signals: title, bell, OSC 9/777 notifications.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import * as pty from 'node-pty';
import type { Terminal } from '@xterm/headless';
import { SerializeAddon } from '@xterm/addon-serialize';
import { findAll, type BufferRange } from './bufferSearch';
import { createEmulator } from './createEmulator';
import { DisposableStore, Emitter, toDisposable, type Disposable, type Event } from '../protocol/events';
import { FlowController } from './flowControl';
import { buildEnv, findExecutable, launchError, type LaunchError } from './launchEnv';
import { PtyInput } from './ptyInput';
import { installExitDrain } from './ptyDrain';
import { Utf8Splitter } from './utf8Splitter';
import { InBandSignals, type Notification, type Progress } from './inBandSignals';
import {
  encodeFocus, encodeKey, encodeMouse, encodePaste, type InputModes, type KeyInput, type MouseInput,
} from './inputEncoding';
import { RenderModel, SYNC_OUTPUT_TIMEOUT_MS } from './renderModel';
import { TerminalModes, type CursorShape } from './terminalModes';

export interface SpawnOptions {
  /** Omitted → the user's login shell ($SHELL -l, fallback /bin/sh). */
  argv?: string[];
  cwd: string;
  /** Merged over baseEnv; TERM/COLORTERM/TERMIO_SESSION are always set. */
  env?: Record<string, string>;
  /** The environment to start from instead of process.env (the login shell's, for a GUI-launched app). */
  baseEnv?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Scrollback lines; default 10,000. */
  scrollback?: number;
  /** TERMIO_SESSION value; default a fresh UUID. */
  id?: string;
  /** Bytes for Shift+Enter when the app enabled no extended keyboard mode (default ESC CR). */
  shiftEnter?: string;
  /** Cursor shape and blink until the application sets its own (DECSCUSR). */
  cursorShape?: CursorShape;
  cursorBlink?: boolean;
}

export type { LaunchError };

export interface ExitStatus {
  exitCode: number;
  signal?: number;
}

const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;
/** Scrollback lines kept per session unless settings say otherwise: about 1.5 MB of text at 150 columns. */
const DEFAULT_SCROLLBACK = 10_000;
export { SYNC_OUTPUT_TIMEOUT_MS };
/** Grace between SIGHUP and SIGKILL when a session is disposed: long enough for a shell or an
 *  agent to save state on hang-up, short enough that closing a tab never leaves a process. */
export const KILL_GRACE_MS = 2000;

export class Session implements Disposable {
  readonly id: string;
  readonly pid: number;
  readonly cwd: string;
  readonly argv: string[];
  /** The emulator (for tests, benches and features the render model does not cover). */
  readonly emulator: Terminal;
  readonly renderModel: RenderModel;
  readonly terminalModes: TerminalModes;

  private readonly signals: InBandSignals;
  private readonly pty: pty.IPty;
  private readonly input: PtyInput;
  private readonly flow: FlowController;
  private readonly store = new DisposableStore();
  private readonly shiftEnter: string | undefined;
  private _exited: ExitStatus | null = null;
  private disposed = false;
  private syncTimer: NodeJS.Timeout | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private ptyExitListener: Disposable | null = null;

  private readonly _onRender = this.store.add(new Emitter<void>());
  private readonly _onExit = this.store.add(new Emitter<ExitStatus>());
  private readonly _onOutput = this.store.add(new Emitter<Uint8Array>());
  private readonly _onResize = this.store.add(new Emitter<{ cols: number; rows: number }>());
  private serializer: SerializeAddon | null = null;
  readonly onTitle: Event<string>;
  readonly onBell: Event<void>;
  /** OSC 9 (iTerm2 style) and OSC 777;notify (urxvt style) notifications. */
  readonly onNotification: Event<Notification>;
  /** OSC 9;4 progress reports (ConEmu style). */
  readonly onProgress: Event<Progress>;
  /** The emulator state changed; views schedule a frame. Held back during synchronized updates. */
  readonly onRender: Event<void> = this._onRender.event;
  /** The process ended; fires after all its output has been parsed. */
  readonly onExit: Event<ExitStatus> = this._onExit.event;
  /** The program's output, in order, each chunk once the emulator has parsed it: a mirror that
   *  starts from snapshot() and then writes every later chunk matches the emulator. */
  readonly onOutput: Event<Uint8Array> = this._onOutput.event;
  /** The emulator took a new size; output parsed after this is laid out at that size. */
  readonly onResize: Event<{ cols: number; rows: number }> = this._onResize.event;

  static spawn(opts: SpawnOptions): Session | LaunchError {
    const id = opts.id ?? randomUUID();
    const env = buildEnv(opts, id);
    const argv = opts.argv && opts.argv.length > 0 ? [...opts.argv] : [env.SHELL || '/bin/sh', '-l'];
    const command = argv[0]!;
    const cwd = resolve(opts.cwd);
    try {
      if (!statSync(cwd).isDirectory()) return launchError(command, `working directory ${cwd} is not a directory`);
    } catch {
      return launchError(command, `working directory ${cwd} does not exist`);
    }
    let file = findExecutable(command, cwd, env);
    if (!file && !opts.argv?.length && command !== '/bin/sh') {
      // $SHELL points at a shell that is gone: fall back rather than leave the user without one.
      argv[0] = '/bin/sh';
      file = findExecutable('/bin/sh', cwd, env);
    }
    if (!file) return launchError(command, `command not found or not executable: ${command}`);
    const cols = opts.cols ?? DEFAULT_COLS;
    const rows = opts.rows ?? DEFAULT_ROWS;
    if (!(cols > 0 && rows > 0)) throw new Error(`Session.spawn: bad size ${cols}x${rows}`);
    let proc: pty.IPty;
    try {
      proc = pty.spawn(file, argv.slice(1), { name: 'xterm-256color', cols, rows, cwd, env, encoding: null });
    } catch (err) {
      return launchError(command, `cannot start ${command}: ${(err as Error).message}`);
    }
    return new Session(proc, id, cwd, argv, cols, rows, opts);
  }

  private constructor(proc: pty.IPty, id: string, cwd: string, argv: string[], cols: number, rows: number, opts: SpawnOptions) {
    this.pty = proc;
    this.input = new PtyInput(proc);
    this.id = id;
    this.pid = proc.pid;
    this.cwd = cwd;
    this.argv = argv;
    this.shiftEnter = opts.shiftEnter;
    const term = createEmulator({ cols, rows, scrollback: opts.scrollback ?? DEFAULT_SCROLLBACK });
    this.emulator = term;
    this.store.add(toDisposable(() => term.dispose()));
    this.terminalModes = this.store.add(new TerminalModes(term, (d) => this.write(d)));
    this.renderModel = this.store.add(new RenderModel(term, this.terminalModes, { cursorShape: opts.cursorShape, cursorBlink: opts.cursorBlink }));
    this.flow = new FlowController(() => proc.pause(), () => proc.resume());

    // The emulator's own replies (device attributes, cursor position reports) go to the app.
    this.store.add(term.onData((d) => this.write(d)));
    this.store.add(term.onBinary((d) => this.writeBinary(d)));
    this.signals = this.store.add(new InBandSignals(term));
    this.onTitle = this.signals.onTitle;
    this.onBell = this.signals.onBell;
    this.onNotification = this.signals.onNotification;
    this.onProgress = this.signals.onProgress;
    this.store.add(term.onWriteParsed(() => this.handleParsed()));

    const splitter = new Utf8Splitter();
    const handleData = (chunk: Buffer): void => {
      if (this.disposed) return;
      const bytes = splitter.push(chunk);
      const n = bytes.length;
      if (n === 0) return;
      this.flow.received(n);
      term.write(bytes, () => {
        this.flow.parsed(n);
        this._onOutput.fire(bytes);
      });
    };
    // With encoding: null node-pty hands out Buffers (its typings say string).
    this.store.add(proc.onData((chunk) => handleData(chunk as unknown as Buffer)));
    installExitDrain(proc, handleData);
    this.ptyExitListener = proc.onExit(({ exitCode, signal }) => {
      this.ptyExitListener?.dispose();
      this.ptyExitListener = null;
      if (this.killTimer) clearTimeout(this.killTimer);
      this.killTimer = null;
      if (this.disposed) return;
      // node-pty reports the exit once the pty is drained; wait for the emulator to catch up.
      void this.whenParsed().then(() => {
        if (this.disposed) return;
        this.input.drop();
        this._exited = signal ? { exitCode, signal } : { exitCode };
        this._onExit.fire(this._exited);
        this._onRender.fire();
      });
    });
  }

  private handleParsed(): void {
    if (this.emulator.modes.synchronizedOutputMode) {
      if (!this.syncTimer) {
        this.syncTimer = setTimeout(() => {
          this.syncTimer = null;
          if (!this.disposed) this._onRender.fire();
        }, SYNC_OUTPUT_TIMEOUT_MS);
      }
      // An update ended during this parse and its whole frame was kept: that one may be shown.
      if (this.renderModel.hasSnapshot) this._onRender.fire();
      return;
    }
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = null;
    }
    this._onRender.fire();
  }

  get title(): string {
    return this.signals.title;
  }

  get exited(): ExitStatus | null {
    return this._exited;
  }

  get cols(): number {
    return this.emulator.cols;
  }

  get rows(): number {
    return this.emulator.rows;
  }

  /** The modes input encoding honours, read from the emulator and our parser hooks. */
  get inputModes(): InputModes {
    const m = this.emulator.modes;
    return {
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
      mouseTracking: m.mouseTrackingMode,
      mouseEncoding: this.terminalModes.mouseEncoding,
      sendFocus: m.sendFocusMode,
      kittyFlags: this.terminalModes.kittyFlags,
      modifyOtherKeys: this.terminalModes.modifyOtherKeys,
    };
  }

  /** Unparsed bytes and pause state of the pty (for benches and diagnostics). */
  get flowState(): { unparsed: number; paused: boolean; pauses: number } {
    return { unparsed: this.flow.unparsedChars, paused: this.flow.isPaused, pauses: this.flow.pauseCount };
  }

  /** Types into the program; false when it was refused (ended, or MAX_PENDING_INPUT_BYTES unread). */
  write(data: string): boolean {
    return !this.disposed && !this._exited && this.input.write(data);
  }

  /** Input written that the program has not read yet. */
  get pendingInput(): number {
    return this.input.pending();
  }

  /** Bytes given as a binary string (one char per byte), e.g. legacy mouse reports. */
  private writeBinary(data: string): void {
    if (!this.disposed && !this._exited) this.input.write(Buffer.from(data, 'latin1'));
  }

  paste(text: string): boolean {
    return this.write(encodePaste(text, this.inputModes));
  }

  /** Encodes and sends a key press; false when the key sends nothing (a possible shortcut). */
  sendKey(key: KeyInput): boolean {
    const bytes = encodeKey(key, this.inputModes, { shiftEnter: this.shiftEnter });
    if (bytes === null) return false;
    if (this.emulator.buffer.active.viewportY !== this.emulator.buffer.active.baseY) this.scrollToBottom();
    // As user input: the emulator's data event writes it to the pty, and the echo is parsed at once, not a tick later.
    if (!this.disposed && !this._exited) this.emulator.input(bytes, true);
    return true;
  }

  /** Sends a mouse report if the application asked for this kind of event. */
  sendMouse(e: MouseInput): boolean {
    const modes = this.inputModes;
    const bytes = encodeMouse(e, modes);
    if (bytes === null) return false;
    if (modes.mouseEncoding === 'default') this.writeBinary(bytes);
    else this.write(bytes);
    return true;
  }

  sendFocus(focused: boolean): void {
    const bytes = encodeFocus(focused, this.inputModes);
    if (bytes) this.write(bytes);
  }

  /** Scrolls the viewport through scrollback (negative = up) and asks views to repaint. */
  scrollLines(n: number): void {
    this.emulator.scrollLines(n);
    this._onRender.fire();
  }

  scrollToBottom(): void {
    this.emulator.scrollToBottom();
    this._onRender.fire();
  }

  /** The cursor shape and blink from the user's settings (an application's DECSCUSR still wins). */
  setCursorDefaults(shape: CursorShape, blink: boolean): void {
    this.renderModel.setCursorDefaults({ cursorShape: shape, cursorBlink: blink });
    this.requestRender();
  }

  /** Where the viewport is, in absolute buffer lines: views place find matches and scroll with
   *  it without reaching into the emulator. */
  get viewport(): { top: number; bottom: number; length: number; altScreen: boolean } {
    const buf = this.emulator.buffer.active;
    return { top: buf.viewportY, bottom: buf.baseY, length: buf.length, altScreen: buf.type === 'alternate' };
  }

  /** Every match of `query` in the scrollback and screen, oldest first (case-insensitive). */
  find(query: string): BufferRange[] {
    return findAll(this.emulator.buffer.active, this.emulator.cols, query);
  }

  /** Asks views to repaint (after a selection change, for example). */
  requestRender(): void {
    if (!this.disposed) this._onRender.fire();
  }

  resize(cols: number, rows: number): void {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1) {
      throw new Error(`Session.resize: bad size ${cols}x${rows}`);
    }
    if (this.disposed || (cols === this.cols && rows === this.rows)) return;
    if (!this._exited) {
      try {
        this.pty.resize(cols, rows);
      } catch {
        // The pty closed between the exit and this call: only the emulator needs the size.
      }
    }
    this.emulator.resize(cols, rows);
    this._onResize.fire({ cols, rows });
    this._onRender.fire();
  }

  /** The emulator's state as escape sequences (screen, modes, `scrollback` lines of history): all parsed so far. */
  snapshot(scrollback: number): string {
    if (!this.serializer) this.emulator.loadAddon((this.serializer = new SerializeAddon()));
    return this.serializer.serialize({ scrollback });
  }

  /** Rows of the screen (not the scrolled-back viewport) as text, right-trimmed. With lines=N,
   *  the last N rows after dropping trailing empty rows. */
  screenLines(opts: { lines?: number } = {}): string[] {
    const buf = this.emulator.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.emulator.rows; y++) {
      out.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
    }
    if (opts.lines === undefined) return out;
    let end = out.length;
    while (end > 0 && out[end - 1] === '') end--;
    return out.slice(Math.max(0, end - opts.lines), end);
  }

  /** Where output goes next, as a line of scrollback + screen: a mark for linesSince (-1 on the alternate screen). */
  get outputMark(): number {
    const buf = this.emulator.buffer.active;
    return buf.type === 'alternate' ? -1 : buf.baseY + buf.cursorY;
  }

  /**
   * The lines written since a mark, right-trimmed, up to the last non-empty one. A full-screen
   * program (alternate screen) keeps no scrollback, so there it is the screen. Lines that fell off
   * the scrollback limit since the mark are gone.
   */
  linesSince(mark: number): string[] {
    const buf = this.emulator.buffer.active;
    if (buf.type === 'alternate' || mark < 0) return this.screenLines({ lines: this.emulator.rows }).map((l) => l.trimEnd());
    const out: string[] = [];
    for (let y = Math.min(mark, buf.length); y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true).trimEnd() ?? '');
    while (out.length && out[out.length - 1] === '') out.pop();
    return out;
  }

  whenParsed(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return new Promise((resolveParsed) => this.emulator.write('', resolveParsed));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    if (!this._exited && this.ptyExitListener) {
      try {
        this.pty.kill('SIGHUP');
      } catch {
        // Already gone.
      }
      this.killTimer = setTimeout(() => {
        this.killTimer = null;
        try {
          this.pty.kill('SIGKILL');
        } catch {
          // Exited during the grace period.
        }
      }, KILL_GRACE_MS);
      this.killTimer.unref();
    }
    // Keep draining so node-pty sees the hang-up and reaps the child; the data is discarded.
    if (this.flow.isPaused) this.pty.resume();
    this.input.drop();
    this.store.dispose();
  }
}
