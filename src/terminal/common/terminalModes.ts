// Emulator modes xterm.js does not track (or keeps private): cursor shape (DECSCUSR), cursor
// visibility (DECTCEM), mouse report encoding (?1005/?1006/?1015/?1016), the kitty keyboard
// protocol flag stacks and xterm's modifyOtherKeys. Read from the byte stream with parser hooks.
import type { Terminal } from '@xterm/headless';
import { DisposableStore, type Disposable } from '../../protocol/events';

export type CursorShape = 'block' | 'bar' | 'underline';
export type MouseEncoding = 'default' | 'utf8' | 'sgr' | 'urxvt' | 'sgrPixels';

/** Kitty keyboard protocol flag bits (https://sw.kovidgoyal.net/kitty/keyboard-protocol/). */
export const KittyFlags = {
  disambiguate: 1,
  reportEventTypes: 2,
  reportAlternateKeys: 4,
  reportAllKeysAsEscapes: 8,
  reportAssociatedText: 16,
} as const;

/** The kitty spec asks for a bounded stack; 32 entries is far deeper than any app nests. */
const KITTY_STACK_LIMIT = 32;

type Params = (number | number[])[];
type Parser = Terminal['parser'];

function param(params: Params, i: number, fallback: number): number {
  const p = params[i];
  const v = Array.isArray(p) ? p[0] : p;
  return v === undefined || v < 0 ? fallback : v;
}

export class TerminalModes implements Disposable {
  /** null = the user's configured default shape. */
  cursorShape: CursorShape | null = null;
  cursorBlink: boolean | null = null;
  cursorVisible = true;
  mouseEncoding: MouseEncoding = 'default';
  modifyOtherKeys = 0;
  private kitty = { main: { base: 0, stack: [] as number[] }, alternate: { base: 0, stack: [] as number[] } };
  private readonly store = new DisposableStore();

  /** reply: bytes the emulator answers with (the kitty flags query), written to the pty. */
  constructor(
    private readonly term: Terminal,
    private readonly reply: (data: string) => void,
  ) {
    const p = term.parser;
    // Each hook returns false when xterm should also see the sequence (it keeps its own state).
    this.watchCursor(p);
    this.watchKittyKeyboard(p);
    this.watchModifyOtherKeys(p);
    this.watchResets(p);
  }

  /** DECSCUSR (cursor shape and blink), DECTCEM (visibility) and the mouse report encodings. */
  private watchCursor(p: Parser): void {
    this.store.add(
      p.registerCsiHandler({ intermediates: ' ', final: 'q' }, (params) => {
        const ps = param(params, 0, 0);
        if (ps === 0) {
          this.cursorShape = null;
          this.cursorBlink = null;
        } else if (ps <= 6) {
          this.cursorShape = ps <= 2 ? 'block' : ps <= 4 ? 'underline' : 'bar';
          this.cursorBlink = ps % 2 === 1;
        }
        return false;
      }),
    );
    this.store.add(p.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => this.decPrivate(params, true)));
    this.store.add(p.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => this.decPrivate(params, false)));
  }

  /** The kitty keyboard protocol: push, pop and set flags on the active screen's stack, and the query. */
  private watchKittyKeyboard(p: Parser): void {
    this.store.add(
      p.registerCsiHandler({ prefix: '>', final: 'u' }, (params) => {
        const k = this.kittyState();
        k.stack.push(param(params, 0, 0));
        if (k.stack.length > KITTY_STACK_LIMIT) k.stack.shift();
        return true;
      }),
    );
    this.store.add(
      p.registerCsiHandler({ prefix: '<', final: 'u' }, (params) => {
        const k = this.kittyState();
        const n = Math.max(1, param(params, 0, 1));
        k.stack.splice(Math.max(0, k.stack.length - n));
        return true;
      }),
    );
    this.store.add(
      p.registerCsiHandler({ prefix: '=', final: 'u' }, (params) => {
        const k = this.kittyState();
        const flags = param(params, 0, 0);
        const mode = param(params, 1, 1);
        const cur = k.stack.length ? k.stack[k.stack.length - 1]! : k.base;
        const next = mode === 2 ? cur | flags : mode === 3 ? cur & ~flags : flags;
        if (k.stack.length) k.stack[k.stack.length - 1] = next;
        else k.base = next;
        return true;
      }),
    );
    this.store.add(
      p.registerCsiHandler({ prefix: '?', final: 'u' }, () => {
        this.reply(`\x1b[?${this.kittyFlags}u`);
        return true;
      }),
    );
  }

  /** xterm's modifyOtherKeys (CSI > 4 ; n m sets it, CSI > 4 n resets it). */
  private watchModifyOtherKeys(p: Parser): void {
    this.store.add(
      p.registerCsiHandler({ prefix: '>', final: 'm' }, (params) => {
        if (param(params, 0, -1) === 4) this.modifyOtherKeys = params.length > 1 ? Math.min(2, param(params, 1, 0)) : 0;
        return true;
      }),
    );
    this.store.add(
      p.registerCsiHandler({ prefix: '>', final: 'n' }, (params) => {
        if (param(params, 0, -1) === 4) this.modifyOtherKeys = 0;
        return true;
      }),
    );
  }

  private watchResets(p: Parser): void {
    // RIS (ESC c) and DECSTR (CSI ! p) put every mode back to its power-on value.
    this.store.add(
      p.registerEscHandler({ final: 'c' }, () => {
        this.reset();
        return false;
      }),
    );
    this.store.add(
      p.registerCsiHandler({ intermediates: '!', final: 'p' }, () => {
        this.reset();
        return false;
      }),
    );
  }

  /** The kitty keyboard flags in force on the active screen (0 = legacy encoding). */
  get kittyFlags(): number {
    const k = this.kittyState();
    return k.stack.length ? k.stack[k.stack.length - 1]! : k.base;
  }

  private kittyState(): { base: number; stack: number[] } {
    return this.term.buffer.active.type === 'alternate' ? this.kitty.alternate : this.kitty.main;
  }

  private decPrivate(params: Params, set: boolean): boolean {
    for (let i = 0; i < params.length; i++) {
      switch (param(params, i, -1)) {
        case 25:
          this.cursorVisible = set;
          break;
        case 1005:
          this.mouseEncoding = set ? 'utf8' : 'default';
          break;
        case 1006:
          this.mouseEncoding = set ? 'sgr' : 'default';
          break;
        case 1015:
          this.mouseEncoding = set ? 'urxvt' : 'default';
          break;
        case 1016:
          this.mouseEncoding = set ? 'sgrPixels' : 'default';
          break;
      }
    }
    return false;
  }

  private reset(): void {
    this.cursorShape = null;
    this.cursorBlink = null;
    this.cursorVisible = true;
    this.mouseEncoding = 'default';
    this.modifyOtherKeys = 0;
    this.kitty = { main: { base: 0, stack: [] }, alternate: { base: 0, stack: [] } };
  }

  dispose(): void {
    this.store.dispose();
  }
}
