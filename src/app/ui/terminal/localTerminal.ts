// A TerminalSource over a Session in this same process, for benchmarks that time the view and its
// painter without the host in between (bench/terminal.mjs). The app itself never holds a Session:
// its views are fed by the host (remote/remoteTerminal.ts). Types only from the terminal layer, so
// loading this file loads no pty and no emulator.
import type { BufferRange, KeyInput, MouseInput } from '../../../terminal/common';
import type { Session } from '../../../terminal/node';
import type { SelectionMode, TerminalSource } from '../../client/terminalSource';

export class LocalTerminal implements TerminalSource {
  constructor(private readonly s: Session) {}

  get cols(): number {
    return this.s.cols;
  }

  get rows(): number {
    return this.s.rows;
  }

  get viewport(): TerminalSource['viewport'] {
    return this.s.viewport;
  }

  get mouseTracking(): TerminalSource['mouseTracking'] {
    return this.s.inputModes.mouseTracking;
  }

  get exited(): TerminalSource['exited'] {
    return this.s.exited;
  }

  get frame(): TerminalSource['frame'] {
    return this.s.renderModel.frame;
  }

  get hasSelection(): boolean {
    return this.s.renderModel.hasSelection;
  }

  get onRender(): TerminalSource['onRender'] {
    return this.s.onRender;
  }

  get onBell(): TerminalSource['onBell'] {
    return this.s.onBell;
  }

  get onExit(): TerminalSource['onExit'] {
    return this.s.onExit;
  }

  update(): ReturnType<TerminalSource['update']> {
    return this.s.renderModel.update();
  }

  painted(): void {
    // Nothing to acknowledge: the session is in this process.
  }

  invalidate(): void {
    this.s.renderModel.invalidate();
  }

  selectionText(): Promise<string> {
    return Promise.resolve(this.s.renderModel.selectionText());
  }

  private select(op: Parameters<Session['renderModel']['select']>[0]): void {
    this.s.renderModel.select(op);
    this.s.requestRender();
  }

  startSelection(col: number, row: number, mode: SelectionMode): void {
    this.select({ action: 'start', at: this.s.renderModel.viewportToBuffer(col, row), mode });
  }

  extendSelection(col: number, row: number): void {
    this.select({ action: 'extend', at: this.s.renderModel.viewportToBuffer(col, row) });
  }

  extendSelectionFromStart(col: number, row: number): void {
    this.select({ action: 'extendFromStart', at: this.s.renderModel.viewportToBuffer(col, row) });
  }

  clearSelection(): void {
    this.select({ action: 'clear' });
  }

  sendKey(key: KeyInput): void {
    this.s.sendKey(key);
  }

  sendText(text: string): void {
    this.s.write(text);
  }

  paste(text: string): void {
    this.s.paste(text);
  }

  sendMouse(e: MouseInput): void {
    this.s.sendMouse(e);
  }

  sendFocus(focused: boolean): void {
    this.s.sendFocus(focused);
  }

  scrollLines(n: number): void {
    this.s.scrollLines(n);
  }

  scrollTo(end: 'top' | 'bottom'): void {
    if (end === 'bottom') this.s.scrollToBottom();
    else this.s.scrollLines(-this.s.viewport.length);
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.s.cols || rows !== this.s.rows) this.s.resize(cols, rows);
  }

  find(query: string): Promise<BufferRange[]> {
    return Promise.resolve(this.s.find(query));
  }
}
