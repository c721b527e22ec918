// What a terminal view shows and drives: a session's screen as frames, and its input as intent.
// The app's views are fed by the session host (remoteTerminal.ts); a benchmark may feed
// one from a session in its own process (localTerminal.ts). Types only: nothing here loads a pty
// or an emulator.
import type { Event } from '../../protocol/events';
import type { BufferRange, Frame, KeyInput, MouseInput, MouseTrackingMode } from '../../terminal/common';
import type { ExitStatus } from '../../terminal/node';
import type { SelectionMode } from '../../protocol/selectionMode';

export type { SelectionMode };

export interface TerminalSource {
  /** The session's grid size (what the latest frame says). */
  readonly cols: number;
  readonly rows: number;
  /** Where the viewport is in absolute buffer lines: top line shown, top of the live screen, lines in all. */
  readonly viewport: { top: number; bottom: number; length: number; altScreen: boolean };
  readonly mouseTracking: MouseTrackingMode;
  readonly exited: ExitStatus | null;
  /** The newest screen, and the viewport rows that changed since the previous call (one consumer: the view). */
  update(): { frame: Frame; dirtyRows: number[] };
  /** The view painted what update() last returned (a source that held the frame's acknowledgement
   *  until then sends it now). */
  painted(): void;
  /** The frame update() last returned (what an expose repaints). */
  readonly frame: Frame | null;
  /** The next update() reports every row (fonts or size changed in the view). */
  invalidate(): void;
  /** A selection exists (it may lie outside the viewport). */
  readonly hasSelection: boolean;
  selectionText(): Promise<string>;
  /** Selection by viewport cell: start (clears the old one), drag, Shift-click, clear. */
  startSelection(col: number, row: number, mode: SelectionMode): void;
  extendSelection(col: number, row: number): void;
  extendSelectionFromStart(col: number, row: number): void;
  clearSelection(): void;
  sendKey(key: KeyInput): void;
  /** Text as typed (an input method's commit). */
  sendText(text: string): void;
  paste(text: string): void;
  sendMouse(e: MouseInput): void;
  sendFocus(focused: boolean): void;
  scrollLines(n: number): void;
  scrollTo(end: 'top' | 'bottom'): void;
  /** The grid the view has room for. */
  resize(cols: number, rows: number): void;
  /** Every match of `query` in scrollback and screen, oldest first (case-insensitive). */
  find(query: string): Promise<BufferRange[]>;
  /** New output, or anything else that changes what update() returns. */
  readonly onRender: Event<void>;
  readonly onBell: Event<void>;
  readonly onExit: Event<ExitStatus>;
}
