// A run of terminal cells in one style: what the render model makes of an emulator row, what the
// host's frames carry to clients, and what painters draw. One definition for all three, here in the
// pure layer, so the terminal layer and the wire format cannot drift apart.

export type Color = { kind: 'default' } | { kind: 'palette'; index: number } | { kind: 'rgb'; value: number };
export type UnderlineStyle = 'none' | 'single' | 'double' | 'curly' | 'dotted' | 'dashed';

export interface Run {
  /** First column of the run. */
  col: number;
  /** Columns the run covers (characters × cellWidth). */
  cells: number;
  text: string;
  /** Every character of the run covers this many cells (2 = CJK/emoji wide characters). */
  cellWidth: 1 | 2;
  /** One string per character when the text is not one UTF-16 unit per character (surrogate
   *  pairs, combining marks); absent otherwise. */
  chars?: string[];
  fg: Color;
  bg: Color;
  bold: boolean;
  italic: boolean;
  dim: boolean;
  underline: UnderlineStyle;
  strikethrough: boolean;
  overline: boolean;
  inverse: boolean;
  invisible: boolean;
  blink: boolean;
  /** OSC 8 hyperlink target. */
  link?: string;
}
