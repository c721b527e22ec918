// What a view paints, as plain data: rows of same-style runs, the cursor, the selection and the
// scroll position (the render model in node/ builds them from the emulator). Clients import these
// types; nothing here runs.
import type { SelectionMode } from '../../protocol/selectionMode';
import type { Color, Run, UnderlineStyle } from '../../protocol/cellRun';
import type { CursorShape } from './terminalModes';

export type { Color, Run, UnderlineStyle, SelectionMode };

export interface RenderRow {
  /** Runs in column order; blank default-style cells at the end of the row are left out. */
  runs: Run[];
  /** The row's text, right-trimmed. */
  text: string;
  /** This row continues the previous one (soft wrap). */
  wrapped: boolean;
}

export interface BufferPoint {
  /** Column. */
  x: number;
  /** Absolute buffer line (0 = oldest scrollback line). */
  y: number;
}

/** Selected columns [start, end) of one viewport row. */
export interface RowSelection {
  row: number;
  start: number;
  end: number;
}

/** A selection's anchor, head and mode, or null: what save and restore carry. */
export type SelectionState = { anchor: BufferPoint; head: BufferPoint; mode: SelectionMode } | null;

export interface CursorState {
  /** Column and viewport row. */
  x: number;
  y: number;
  shape: CursorShape;
  blinking: boolean;
  /** False when hidden by the application (DECTCEM) or scrolled out of the viewport. */
  visible: boolean;
}

export interface Frame {
  cols: number;
  rows: number;
  lines: readonly RenderRow[];
  cursor: CursorState;
  selection: readonly RowSelection[];
  /** Lines scrolled back from the bottom (0 = following the output). */
  scrollOffset: number;
  /** Lines of scrollback above the screen. */
  scrollbackLength: number;
  altScreen: boolean;
}

export type SelectOp =
  { action: 'start'; at: BufferPoint; mode: SelectionMode } | { action: 'extend' | 'extendFromStart'; at: BufferPoint } | { action: 'clear' };
