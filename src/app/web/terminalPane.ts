// A session's live terminal in the page: an @xterm/xterm mirror of the host's emulator (a
// snapshot, then the output stream and resizes), scaled so its columns fit the screen — or, on
// a narrow phone with a wide session, kept readable and scrolled sideways — and the key bar.
// Typing, pasting and the keys go to the host as this page's input; the first keystroke makes
// the page the session's input holder, and the session then takes the size that fits here.
import { Terminal, type ITheme } from '@xterm/xterm';
import type { CompanionClientMessage } from '../../protocol/companion';
import { isTerminalReply } from './pageText';

/** The font size the page asks the session's size for when it types: readable on a phone. */
export const TYPING_FONT_PX = 13;
/** Below this the terminal is not shrunk further; it scrolls sideways instead. */
export const MIN_FONT_PX = 8;
/** Above this a narrow session on a wide screen is not blown up. */
const MAX_FONT_PX = 15;
const FONT_FAMILY = '"DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace';
/** Cell height as a multiple of the font size (xterm's lineHeight 1, plus its glyph box). */
const LINE_RATIO = 1.2;

/** Width of one cell per pixel of font size, measured once in this browser's monospace font. */
function cellRatio(): number {
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return 0.6;
  ctx.font = `100px ${FONT_FAMILY}`;
  return ctx.measureText('M'.repeat(10)).width / 1000;
}

export class TerminalPane {
  private term: Terminal | null = null;
  private readonly ratio = cellRatio();
  private ctrl = false;
  private cols = 80;
  private rows = 24;

  constructor(
    private readonly host: HTMLElement,
    private readonly scroller: HTMLElement,
    private readonly send: (m: CompanionClientMessage) => void,
    private readonly theme: () => ITheme,
  ) {
    for (const b of document.querySelectorAll<HTMLButtonElement>('#keys button[data-key]')) {
      // pointerdown + preventDefault: the soft keyboard stays open and focus stays in the terminal.
      b.addEventListener('pointerdown', (e) => e.preventDefault());
      b.addEventListener('click', () => this.key(b.dataset.key!));
    }
    const ctrl = document.getElementById('ctrl')!;
    ctrl.addEventListener('pointerdown', (e) => e.preventDefault());
    ctrl.addEventListener('click', () => this.setCtrl(!this.ctrl));
  }

  /** The size this screen fits at the typing font: what the session takes when the page types. */
  fitSize(): { cols: number; rows: number } {
    const w = this.scroller.clientWidth - 4;
    const h = this.scroller.clientHeight - 4;
    return {
      cols: Math.max(20, Math.min(500, Math.floor(w / (this.ratio * TYPING_FONT_PX)))),
      rows: Math.max(5, Math.min(300, Math.floor(h / (LINE_RATIO * TYPING_FONT_PX)))),
    };
  }

  /** A fresh snapshot: the terminal starts over at the session's size. The same terminal is
   *  reused when there is one (a reconnect, or catching up after a flood): cheaper than a new one. */
  start(cols: number, rows: number, snapshot: string): void {
    this.cols = cols;
    this.rows = rows;
    if (this.term) {
      this.term.reset();
      this.term.resize(cols, rows);
      this.term.options.fontSize = this.fontSize();
      this.term.write(snapshot);
      this.layout();
      return;
    }
    const term = new Terminal({
      cols,
      rows,
      fontFamily: FONT_FAMILY,
      fontSize: this.fontSize(),
      scrollback: 5000,
      theme: this.theme(),
      allowProposedApi: false,
      cursorBlink: false,
      convertEol: false,
    });
    term.open(this.host);
    term.onData((data) => this.typed(data));
    term.onBinary((data) => this.send({ t: 'input', data }));
    term.write(snapshot);
    this.term = term;
    this.layout();
  }

  output(bytes: Uint8Array): void {
    this.term?.write(bytes);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    if (!this.term) return;
    this.term.resize(cols, rows);
    this.term.options.fontSize = this.fontSize();
    this.layout();
  }

  /** Colours follow the system's dark or light appearance. */
  retheme(): void {
    if (this.term) this.term.options.theme = this.theme();
  }

  /** The screen changed size (rotation, window): refit the font. */
  relayout(): void {
    if (!this.term) return;
    this.term.options.fontSize = this.fontSize();
    this.layout();
  }

  focus(): void {
    this.term?.focus();
  }

  /** Fits the session's columns to the width, between the readable minimum and a maximum. */
  private fontSize(): number {
    const fit = Math.floor(((this.scroller.clientWidth - 4) / (this.cols * this.ratio)) * 2) / 2;
    return Math.max(MIN_FONT_PX, Math.min(MAX_FONT_PX, fit));
  }

  private layout(): void {
    // Scrolled sideways when the minimum font is still too wide: keep the cursor's column in view.
    const el = this.term?.element;
    if (!el || !this.term) return;
    const over = el.scrollWidth - this.scroller.clientWidth;
    if (over > 0) {
      const x = this.term.buffer.active.cursorX / this.cols;
      this.scroller.scrollLeft = Math.max(0, x * el.scrollWidth - this.scroller.clientWidth / 2);
    }
  }

  private typed(data: string): void {
    if (isTerminalReply(data)) return;
    if (this.ctrl && data.length === 1 && /[\x20-\x7e]/.test(data)) {
      this.setCtrl(false);
      this.send({ t: 'key', key: data.toLowerCase(), ctrl: true });
      return;
    }
    this.send({ t: 'input', data });
  }

  private key(key: string): void {
    const ctrl = this.ctrl;
    this.setCtrl(false);
    this.send({ t: 'key', key, ctrl: ctrl ? true : undefined });
    this.term?.focus();
  }

  private setCtrl(on: boolean): void {
    this.ctrl = on;
    document.getElementById('ctrl')?.setAttribute('aria-pressed', String(on));
  }

  dispose(): void {
    this.term?.dispose();
    this.term = null;
    this.host.replaceChildren();
  }
}
