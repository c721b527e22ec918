// A Session: one process on a pty, parsed by an @xterm/headless emulator, exposed as a render
// model plus input encoding. The pty is a PtySource: node-pty's, or a session holder's (then the
// process outlives this host, and a later host adopts it from a checkpoint plus the holder's
// bytes since). Owns the emulator, its parser hooks and timers, and releases them all in
// dispose(). Emits the in-band signals: title, bell, OSC 9/777 notifications.
import type { Terminal } from '@xterm/headless';
import { findAll, type BufferRange } from '../common/bufferSearch';
import { createEmulator } from './createEmulator';
import { EmulatorFeed } from './emulatorFeed';
import { DisposableStore, Emitter, toDisposable, type Disposable, type Event } from '../../protocol/events';
import { boundedSize } from '../../protocol/hostFrameFormat';
import { FlowController } from '../common/flowControl';
import { HolderSource, startHolder, type HolderStart } from './holderSource';
import { DEFAULT_SCROLLBACK, KILL_GRACE_MS, resolveLaunch, type LaunchError, type SpawnOptions } from './launch';
import { EndedSource, NodePtySource, type ExitStatus, type PtySource } from './ptySource';
import { HistoryCache, serializeScreen, serializeScreenBytes, serializeScreenSteps } from './screenSerializer';
import { linesSince, outputMark, screenLines } from '../common/screenText';
import { Utf8Splitter } from '../common/utf8Splitter';
import { InBandSignals, type Notification, type Progress } from '../common/inBandSignals';
import { encodeFocus, encodeKey, encodeMouse, encodePaste, type InputModes, type KeyInput, type MouseInput } from '../common/inputEncoding';
import { RenderModel, SYNC_OUTPUT_TIMEOUT_MS } from './renderModel';
import { TerminalModes, type CursorShape } from '../common/terminalModes';

export { SYNC_OUTPUT_TIMEOUT_MS, KILL_GRACE_MS, type SpawnOptions, type LaunchError, type ExitStatus };

/** How a Session starts: its identity, its size, and (adopting a holder) the screen to start from. */
interface SessionInit {
  id: string;
  cwd: string;
  argv: string[];
  cols: number;
  rows: number;
  opts: SpawnOptions;
  holder?: HolderSource;
  /** Escape sequences that rebuild the screen and scrollback a checkpoint saved. */
  restore?: string | Uint8Array;
  /** Stream offset of the first byte the source delivers (what the checkpoint covers). */
  startOffset?: number;
}

/** What adopting a running holder needs besides the holder itself. */
export interface AdoptOptions extends SpawnOptions {
  id: string;
  argv: string[];
  /** The host's last checkpoint of the session, if one was saved. */
  checkpoint?: { offset: number; cols: number; rows: number; screen: Uint8Array };
}

export class Session implements Disposable {
  readonly id: string;
  readonly pid: number;
  readonly cwd: string;
  readonly argv: string[];
  /** The emulator (for tests, benches and features the render model does not cover). */
  readonly emulator: Terminal;
  readonly renderModel: RenderModel;
  readonly terminalModes: TerminalModes;
  /** The holder keeping the session's pty, or null when this process opened it. */
  readonly holder: HolderSource | null;

  private readonly signals: InBandSignals;
  private readonly source: PtySource;
  private readonly flow: FlowController;
  /** Every write into the emulator goes through here, in order (emulatorFeed.ts). */
  private readonly feed: EmulatorFeed;
  private readonly parsedWaiters = new Set<() => void>();
  private readonly store = new DisposableStore();
  /** snapshot()'s rows under an alternate screen, kept while they cannot change. */
  private historyCache: HistoryCache | undefined;
  private readonly shiftEnter: string | undefined;
  private _exited: ExitStatus | null = null;
  private disposed = false;
  private keepRunning = false;
  private syncTimer: NodeJS.Timeout | null = null;
  /** Stream offsets: bytes handed to the emulator, and bytes it has parsed. */
  private fed = 0;
  private parsedTo = 0;
  /** A replay from a holder (bytes a previous host already answered and rang for) ends here. */
  private replayUntil = 0;
  private restoring = false;
  /** Bytes the holder could not keep before this replay (its bound); 0 when the rebuild is exact. */
  lostBytes = 0;

  private readonly _onRender = this.store.add(new Emitter<void>());
  private readonly _onExit = this.store.add(new Emitter<ExitStatus>());
  private readonly _onOutput = this.store.add(new Emitter<Uint8Array>());
  private readonly _onInput = this.store.add(new Emitter<string>());
  private readonly _onResize = this.store.add(new Emitter<{ cols: number; rows: number }>());
  private readonly _onBell = this.store.add(new Emitter<void>());
  private readonly _onNotification = this.store.add(new Emitter<Notification>());
  readonly onTitle: Event<string>;
  readonly onBell: Event<void> = this._onBell.event;
  /** OSC 9 (iTerm2 style) and OSC 777;notify (urxvt style) notifications. */
  readonly onNotification: Event<Notification> = this._onNotification.event;
  /** OSC 9;4 progress reports (ConEmu style). */
  readonly onProgress: Event<Progress>;
  /** The emulator state changed; views schedule a frame. Held back during synchronized updates. */
  readonly onRender: Event<void> = this._onRender.event;
  /** The process ended; fires after all its output has been parsed. */
  readonly onExit: Event<ExitStatus> = this._onExit.event;
  /** The program's output, in order, each chunk once the emulator has parsed it: a mirror that
   *  starts from snapshot() and then writes every later chunk matches the emulator. */
  readonly onOutput: Event<Uint8Array> = this._onOutput.event;
  /** Text went to the program: typed, pasted or sent (a key's bytes reach write() through the
   *  emulator, as do its replies to the program's queries). */
  readonly onInput: Event<string> = this._onInput.event;
  /** The emulator took a new size; output parsed after this is laid out at that size. */
  readonly onResize: Event<{ cols: number; rows: number }> = this._onResize.event;

  /** Starts the program on a pty of this process (node-pty). */
  static spawn(opts: SpawnOptions): Session | LaunchError {
    const l = resolveLaunch(opts);
    if ('kind' in l) return l;
    let source: PtySource;
    try {
      source = NodePtySource.spawn(l.file, l.argv.slice(1), l);
    } catch (err) {
      return { kind: 'launchError', command: l.argv[0]!, message: `cannot start ${l.argv[0]}: ${(err as Error).message}` };
    }
    return new Session(source, { ...l, opts });
  }

  /** Starts the program under a session holder, which keeps it running if this process goes. */
  static async spawnHeld(opts: SpawnOptions, holder: HolderStart): Promise<Session | LaunchError> {
    const l = resolveLaunch(opts);
    if ('kind' in l) return l;
    const command = l.argv[0]!;
    const started = await startHolder(holder, l.file, l.argv.slice(1), l);
    if ('error' in started) return { kind: 'launchError', command, message: `cannot start ${command}: ${started.error}` };
    const source = await HolderSource.connect(holder.socketPath);
    // The holder that answers must be the one just started (nothing else took its socket first).
    const problem = 'error' in source ? source.error : source.prove(started);
    if ('error' in source || problem !== null) {
      if (!('error' in source)) source.dispose();
      try {
        process.kill(started.holderPid, 'SIGTERM');
      } catch {
        // It went already.
      }
      return { kind: 'launchError', command, message: `cannot start ${command}: ${problem}` };
    }
    source.attach(0);
    return new Session(source, { ...l, opts, holder: source });
  }

  /** Carries on a session a previous host started: its checkpoint, then the holder's bytes since. */
  static adopt(source: HolderSource, opts: AdoptOptions): Session {
    const h = source.hello;
    const cp = opts.checkpoint && opts.checkpoint.offset >= 0 && opts.checkpoint.offset <= h.end ? opts.checkpoint : undefined;
    const startOffset = cp?.offset ?? 0;
    // The holder's and the checkpoint's sizes are what a file or a socket says: bounded as a
    // client's are, or one forged size would build an emulator of gigabytes.
    const size = boundedSize(cp?.cols ?? h.cols, cp?.rows ?? h.rows);
    const session = new Session(source, {
      id: opts.id,
      cwd: opts.cwd,
      argv: opts.argv,
      opts,
      holder: source,
      ...size,
      startOffset,
      restore: cp ? cp.screen : undefined,
    });
    session.replayUntil = h.end;
    source.attach(startOffset);
    // A pty larger than any screen the host shows is brought down to the one it does.
    const held = boundedSize(h.cols, h.rows);
    if (held.cols !== h.cols || held.rows !== h.rows) source.resize(held.cols, held.rows);
    return session;
  }

  /** A session whose program had ended when the previous host went: its last screen from the
   *  checkpoint taken at the exit, and its exit status. Nothing runs under it. */
  static finished(opts: AdoptOptions & { pid: number; exited: ExitStatus; checkpoint: NonNullable<AdoptOptions['checkpoint']> }): Session {
    const cp = opts.checkpoint;
    const source = new EndedSource(opts.pid);
    const session = new Session(source, {
      id: opts.id,
      cwd: opts.cwd,
      argv: opts.argv,
      opts,
      ...boundedSize(cp.cols, cp.rows),
      startOffset: cp.offset,
      restore: cp.screen,
    });
    source.ended(opts.exited);
    return session;
  }

  private constructor(source: PtySource, init: SessionInit) {
    const opts = init.opts;
    this.source = source;
    this.holder = init.holder ?? null;
    this.id = init.id;
    this.pid = source.pid;
    this.cwd = init.cwd;
    this.argv = init.argv;
    this.shiftEnter = opts.shiftEnter;
    this.fed = this.parsedTo = init.startOffset ?? 0;
    const term = createEmulator({ cols: init.cols, rows: init.rows, scrollback: opts.scrollback ?? DEFAULT_SCROLLBACK });
    this.emulator = term;
    this.store.add(toDisposable(() => term.dispose()));
    this.feed = new EmulatorFeed(term, () => this.handleParsed());
    this.store.add(toDisposable(() => this.feed.dispose()));
    this.terminalModes = this.store.add(new TerminalModes(term, (d) => this.reply(d)));
    this.renderModel = this.store.add(new RenderModel(term, this.terminalModes, { cursorShape: opts.cursorShape, cursorBlink: opts.cursorBlink }));
    this.flow = new FlowController(
      () => source.pause(),
      () => source.resume(),
    );

    // The emulator's own replies (device attributes, cursor position reports) go to the app.
    this.store.add(term.onData((d) => this.reply(d)));
    this.store.add(term.onBinary((d) => !this.replaying && this.writeBinary(d)));
    this.signals = this.store.add(new InBandSignals(term));
    this.onTitle = this.signals.onTitle;
    this.onProgress = this.signals.onProgress;
    // A replay's bells and notifications already reached the user from the host that parsed them first.
    this.store.add(this.signals.onBell(() => !this.replaying && this._onBell.fire()));
    this.store.add(this.signals.onNotification((n) => !this.replaying && this._onNotification.fire(n)));
    if (init.restore !== undefined) {
      this.restoring = true;
      this.feed.write(init.restore, () => (this.restoring = false));
    }
    this.wireSource(source);
  }

  private get replaying(): boolean {
    return this.restoring || this.parsedTo < this.replayUntil;
  }

  private wireSource(source: PtySource): void {
    const splitter = new Utf8Splitter();
    this.store.add(
      source.onData((chunk) => {
        if (this.disposed) return;
        const bytes = splitter.push(chunk);
        const n = bytes.length;
        if (n === 0) return;
        this.flow.received(n);
        const end = (this.fed += n);
        this.feed.write(bytes, () => {
          this.parsedTo = end;
          this.flow.parsed(n);
          source.parsed?.(end);
          this._onOutput.fire(bytes);
        });
      }),
    );
    if (this.holder) this.wireReplay(this.holder);
    this.store.add(
      source.onExit((status) => {
        if (this.disposed) return;
        // The exit comes once the pty is drained; wait for the emulator to catch up.
        void this.whenParsed().then(() => {
          if (this.disposed) return;
          this._exited = status;
          this._onExit.fire(status);
          this._onRender.fire();
        });
      }),
    );
  }

  /** During a replay the holder says at which offsets the pty changed size, and what it had to drop. */
  private wireReplay(holder: HolderSource): void {
    const term = this.emulator;
    this.store.add(
      holder.onSize((told) => {
        if (told.offset >= this.replayUntil) return;
        const { cols, rows } = boundedSize(told.cols, told.rows);
        // Queued behind the bytes before it, so the text after is laid out at the new size.
        this.feed.whenParsed(() => {
          if (this.disposed || (cols === term.cols && rows === term.rows)) return;
          term.resize(cols, rows);
          this._onResize.fire({ cols, rows });
        });
      }),
    );
    this.store.add(
      holder.onGap(({ from, to }) => {
        this.lostBytes += to - from;
        this.fed = to;
        this.feed.write(`\r\n\x1b[2m[termio: ${to - from} bytes of output were not kept]\x1b[0m\r\n`, () => (this.parsedTo = Math.max(this.parsedTo, to)));
      }),
    );
  }

  /** Offset of the last byte handed to the emulator; once whenParsed() resolves, its state is exactly the stream up to here. */
  get streamOffset(): number {
    return this.fed;
  }

  /** Ends this process's hold on the session and leaves the program running in its holder (a
   *  host restart): the next dispose() closes the connection instead of hanging up. */
  keepRunningOnDispose(): boolean {
    if (!this.holder || this._exited) return false;
    this.keepRunning = true;
    return true;
  }

  private reply(data: string): void {
    if (!this.replaying) this.write(data);
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

  /** Input written that the program has not read yet. */
  get pendingInput(): number {
    return this.source.pendingInput;
  }

  /** False when refused: the program has not read MAX_PENDING_INPUT_BYTES sent before (ptyInput.ts). */
  write(data: string): boolean {
    if (this.disposed || this._exited) return false;
    this._onInput.fire(data);
    return this.source.write(data);
  }

  /** Bytes given as a binary string (one char per byte), e.g. legacy mouse reports. */
  private writeBinary(data: string): void {
    if (this.disposed || this._exited) return;
    this.source.write(Buffer.from(data, 'latin1'));
  }

  paste(text: string): boolean {
    return this.write(encodePaste(text, this.inputModes));
  }

  /** Encodes and sends a key press; false when the key sends nothing (a possible shortcut). */
  sendKey(key: KeyInput): boolean {
    const bytes = encodeKey(key, this.inputModes, { shiftEnter: this.shiftEnter });
    if (bytes === null) return false;
    if (this.emulator.buffer.active.viewportY !== this.emulator.buffer.active.baseY) this.scrollToBottom();
    // As user input: the emulator's data event writes it to the pty; the echo is parsed in the loop
    // turn it arrives in (emulatorFeed.ts).
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
        this.source.resize(cols, rows);
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
    return serializeScreen(this.emulator, scrollback, this.history());
  }

  /** snapshot() as UTF-8, in blocks: what a checkpoint writes, with no string between. */
  snapshotBytes(scrollback: number): Uint8Array[] {
    return serializeScreenBytes(this.emulator, scrollback, this.history());
  }

  /** snapshotBytes() in steps (serializeScreenSteps): the caller keeps the emulator still between them (holdParsing). */
  snapshotSteps(scrollback: number): Generator<void, Uint8Array[], void> {
    return serializeScreenSteps(this.emulator, scrollback, this.history());
  }

  /** Stops parsing the session's output until the release is called (EmulatorFeed.hold); null
   *  when the emulator parses on its own and cannot be held. */
  holdParsing(): (() => void) | null {
    return this.disposed ? null : this.feed.hold();
  }

  /** Disposed: its emulator is gone (not the same as exited, whose screen stays). */
  get isDisposed(): boolean {
    return this.disposed;
  }

  private history(): HistoryCache {
    return (this.historyCache ??= this.store.add(new HistoryCache(this.emulator)));
  }

  /** Rows of the screen (not the scrolled-back viewport) as text, right-trimmed. With lines=N,
   *  the last N rows after dropping trailing empty rows. */
  screenLines(opts: { lines?: number; viewport?: boolean } = {}): string[] {
    return screenLines(this.emulator, opts);
  }

  /** Where output goes next, as a line of scrollback + screen: a mark for linesSince (-1 on the alternate screen). */
  get outputMark(): number {
    return outputMark(this.emulator);
  }

  /** The lines written since a mark (screenText.ts). */
  linesSince(mark: number): string[] {
    return linesSince(this.emulator, mark);
  }

  whenParsed(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return new Promise((resolveParsed) => {
      // Disposing drops what was not parsed yet: a waiter is let go then, not left hanging.
      this.parsedWaiters.add(resolveParsed);
      this.feed.whenParsed(() => {
        this.parsedWaiters.delete(resolveParsed);
        resolveParsed();
      });
    });
  }

  /** Runs `done` right after everything handed to the emulator so far is parsed, before any
   *  later chunk is (a checkpoint's moment). Never runs once the session is disposed. */
  afterParsed(done: () => void): void {
    this.feed.whenParsed(done);
  }

  /** Offset of the last byte the emulator has parsed (at most streamOffset). */
  get parsedOffset(): number {
    return this.parsedTo;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = null;
    if (this.keepRunning && this.holder) this.holder.detach();
    else if (!this._exited) this.source.hangUp(KILL_GRACE_MS);
    this.source.dispose();
    this.store.dispose();
    for (const resolveParsed of this.parsedWaiters) resolveParsed();
    this.parsedWaiters.clear();
  }
}
