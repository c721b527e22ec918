// The host frame's wire format: the shapes a frame carries (runs, rows, header) and how their
// fields are packed into bits and bytes. Shared by the writer (host) and the reader (clients).
// Pure (no Node modules).

import type { Color, Run, UnderlineStyle } from './cellRun';
import type { SessionState } from './status/sessionState';

/** The render model's own run types travel as they are (one definition, in cellRun.ts). */
export type WireColor = Color;
export type WireUnderline = UnderlineStyle;
export type WireRun = Run;
export interface WireRow {
  runs: readonly WireRun[];
  wrapped: boolean;
}

export type WireCursorShape = 'block' | 'underline' | 'bar';
export type WireMouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';
export type WireState = SessionState;

/** What a frame says besides its rows. */
export interface FrameHeader {
  /** The client's view id (chosen by the client when it attached). */
  view: number;
  /** Frame number within the view; the client acknowledges it once painted. */
  seq: number;
  /** True: the client drops what it holds and takes these rows as the whole screen. */
  full: boolean;
  cols: number;
  rows: number;
  cursor: { x: number; y: number; shape: WireCursorShape; blinking: boolean; visible: boolean };
  modes: {
    applicationCursorKeys: boolean;
    applicationKeypad: boolean;
    bracketedPaste: boolean;
    sendFocus: boolean;
    altScreen: boolean;
    mouseTracking: WireMouseTracking;
  };
  state: WireState;
  exit: { exitCode: number; signal?: number } | null;
  /** Lines of scrollback above the screen. */
  scrollbackLength: number;
  /** How many lines the session's viewport is scrolled back from the bottom (0 = live). Scroll
   *  position and selection belong to the session, as a pane's copy mode does in tmux: every view
   *  sees the rows the frame carries. */
  scrollOffset: number;
  /** The selection's cells on the rows shown ([start, end) columns), and whether one exists at all
   *  (it may lie outside the viewport). */
  selection: ReadonlyArray<{ row: number; start: number; end: number }>;
  hasSelection: boolean;
  title: string;
}

/** Upper bounds a frame or a size request must stay in: far past any real screen (a 6K monitor at
 *  a 6 px font is about 1,000 × 300 cells) and small enough that a frame stays bounded. */
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;

/** A size within 1..MAX_COLS × 1..MAX_ROWS: what a size said by a peer the host does not control
 *  (a holder's hello or resize, a checkpoint) becomes before an emulator is built for it. */
export function boundedSize(cols: number, rows: number): { cols: number; rows: number } {
  const within = (n: number, max: number): number => (Number.isFinite(n) ? Math.min(max, Math.max(1, Math.floor(n))) : 1);
  return { cols: within(cols, MAX_COLS), rows: within(rows, MAX_ROWS) };
}
/** Titles and links are lines in a tab or a tooltip; 2 KiB of UTF-8 is far past what either shows. */
export const MAX_STRING_BYTES = 2048;

export const CURSOR_SHAPES: WireCursorShape[] = ['block', 'underline', 'bar'];
export const MOUSE_TRACKING: WireMouseTracking[] = ['none', 'x10', 'vt200', 'drag', 'any'];
export const WIRE_STATES: WireState[] = ['idle', 'working', 'attention', 'done'];
export const UNDERLINES: WireUnderline[] = ['none', 'single', 'double', 'curly', 'dotted', 'dashed'];

/** Run attribute bits (FrameReader.attrs). Underline style sits in bits 8-10. */
export const RunAttr = {
  bold: 1 << 0,
  italic: 1 << 1,
  dim: 1 << 2,
  strikethrough: 1 << 3,
  overline: 1 << 4,
  inverse: 1 << 5,
  invisible: 1 << 6,
  blink: 1 << 7,
  underlineShift: 8,
  underlineMask: 7 << 8,
  wide: 1 << 11,
  hasChars: 1 << 12,
  hasLink: 1 << 13,
} as const;

/** Colours on the wire: kind in the top byte (0 default, 1 palette, 2 rgb), value below. */
export const ColorKind = { default: 0, palette: 1, rgb: 2 } as const;

export function packColor(c: WireColor): number {
  if (c.kind === 'rgb') return ((ColorKind.rgb << 24) | (c.value & 0xffffff)) >>> 0;
  if (c.kind === 'palette') return ((ColorKind.palette << 24) | (c.index & 0xff)) >>> 0;
  return 0;
}

export function unpackColor(v: number): WireColor {
  const kind = v >>> 24;
  if (kind === ColorKind.rgb) return { kind: 'rgb', value: v & 0xffffff };
  if (kind === ColorKind.palette) return { kind: 'palette', index: v & 0xff };
  return { kind: 'default' };
}

export const FrameFlag = { full: 1, cursorVisible: 2, cursorBlink: 4, exited: 8, hasSelection: 16 } as const;
export const ModeBit = { appCursor: 1, appKeypad: 2, bracketedPaste: 4, sendFocus: 8, altScreen: 16, mouseShift: 5 } as const;

/** A `rows` message answering a request: buffer lines [first, first + count) at `cols`. */
export interface RowsHeader {
  /** The request's id. */
  id: number;
  /** Absolute buffer line of the first row (0 = oldest scrollback line). */
  first: number;
  /** Lines in the buffer now (scrollback + screen). */
  total: number;
  cols: number;
}
