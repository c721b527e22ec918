// Turns one emulator row into same-style runs: cells whose raw style words are equal share a run,
// wide characters get runs of their own, and the blank default-style tail is dropped. Runs are
// plain data a view paints without asking the emulator anything.
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import type { Color, Run, UnderlineStyle } from '../../protocol/cellRun';

export type { RenderRow } from '../common/renderTypes';
import type { RenderRow } from '../common/renderTypes';

const DEFAULT_COLOR: Color = Object.freeze({ kind: 'default' }) as Color;
const UNDERLINE_STYLES: UnderlineStyle[] = ['none', 'single', 'double', 'curly', 'dotted', 'dashed'];

/** xterm's internal cell (CellData): raw attribute words make style comparison cheap. */
interface RawCell {
  fg: number;
  bg: number;
  extended?: { underlineStyle?: number; urlId?: number };
  hasExtendedAttrs?(): number;
}

/** The OSC 8 link table inside xterm, read when present. */
export interface XtermLinks {
  _oscLinkService?: { getLinkData(id: number): { uri: string } | undefined };
}

/** The run being scanned: the raw style words it started with and what it holds so far. */
interface OpenRun {
  /** First column; -1 when no run is open. */
  start: number;
  text: string;
  chars: string[];
  /** Every character so far is one UTF-16 unit (then `chars` is left off the run). */
  simple: boolean;
  width: 1 | 2;
  fg: number;
  bg: number;
  underlineStyle: number;
  urlId: number;
  cells: number;
}

export class RowBuilder {
  private readonly cell: IBufferCell;
  /** A second cell so reading a run's style does not clobber the cell being scanned. */
  private readonly styleCell: IBufferCell;
  private readonly open: OpenRun = {
    start: -1,
    text: '',
    chars: [],
    simple: true,
    width: 1,
    fg: 0,
    bg: 0,
    underlineStyle: 0,
    urlId: 0,
    cells: 0,
  };

  constructor(
    term: Terminal,
    private readonly links: XtermLinks,
  ) {
    this.cell = term.buffer.active.getNullCell();
    this.styleCell = term.buffer.active.getNullCell();
  }

  /** The first `cols` cells of a buffer line as runs. */
  build(line: IBufferLine, cols: number): RenderRow {
    const runs: Run[] = [];
    const cell = this.cell;
    const open = this.open;
    open.start = -1;
    let lastContent = -1; // last column whose cell would paint something on a default background
    let text = '';
    for (let x = 0; x < cols; x++) {
      line.getCell(x, cell);
      const w = cell.getWidth();
      if (w === 0) continue;
      const raw = cell as unknown as RawCell;
      let chars = cell.getChars();
      if (chars === '') chars = ' ';
      const ext = raw.hasExtendedAttrs?.() ? raw.extended : undefined;
      const underlineStyle = ext?.underlineStyle ?? 0;
      const urlId = ext?.urlId ?? 0;
      const width = (w === 2 ? 2 : 1) as 1 | 2;
      if (
        open.start < 0 ||
        raw.fg !== open.fg ||
        raw.bg !== open.bg ||
        underlineStyle !== open.underlineStyle ||
        urlId !== open.urlId ||
        width !== open.width
      ) {
        this.close(line, runs);
        openRun(open, x, raw, underlineStyle, urlId, width);
      }
      open.text += chars;
      open.chars.push(chars);
      if (chars.length !== 1) open.simple = false;
      open.cells += width;
      text += chars;
      if (chars !== ' ' || !cell.isBgDefault() || cell.isInverse() || cell.isUnderline() || cell.isStrikethrough()) {
        lastContent = x + width - 1;
      }
    }
    this.close(line, runs);
    return { runs: withoutBlankTail(runs, lastContent), text: text.trimEnd(), wrapped: line.isWrapped };
  }

  /** Ends the open run (if any) and appends it, styled from its first cell. */
  private close(line: IBufferLine, runs: Run[]): void {
    const open = this.open;
    if (open.start < 0) return;
    line.getCell(open.start, this.styleCell);
    const run = styleOf(this.styleCell, this.links, open.width, open.start, open.cells, open.text);
    if (!open.simple) run.chars = open.chars;
    runs.push(run);
    open.start = -1;
  }
}

function openRun(open: OpenRun, x: number, raw: RawCell, underlineStyle: number, urlId: number, width: 1 | 2): void {
  open.start = x;
  open.text = '';
  open.chars = [];
  open.simple = true;
  open.width = width;
  open.fg = raw.fg;
  open.bg = raw.bg;
  open.underlineStyle = underlineStyle;
  open.urlId = urlId;
  open.cells = 0;
}

/** Drops the blank default-style tail so views do not paint empty cells (runs are cut in place). */
function withoutBlankTail(runs: Run[], lastContent: number): Run[] {
  const kept: Run[] = [];
  for (const run of runs) {
    if (run.col > lastContent) break;
    const end = run.col + run.cells - 1;
    if (end > lastContent) {
      const keep = Math.floor((lastContent - run.col + 1) / run.cellWidth);
      if (run.chars) run.chars = run.chars.slice(0, keep);
      run.text = run.chars ? run.chars.join('') : run.text.slice(0, keep);
      run.cells = keep * run.cellWidth;
    }
    kept.push(run);
  }
  return kept;
}

function colorOf(value: number, isRgb: boolean, isPalette: boolean): Color {
  if (isRgb) return { kind: 'rgb', value };
  if (isPalette) return { kind: 'palette', index: value };
  return DEFAULT_COLOR;
}

function styleOf(cell: IBufferCell, links: XtermLinks, cellWidth: 1 | 2, col: number, cells: number, text: string): Run {
  const raw = cell as unknown as RawCell;
  const ext = raw.hasExtendedAttrs?.() ? raw.extended : undefined;
  const underlined = cell.isUnderline() !== 0;
  let underline: UnderlineStyle = 'none';
  if (underlined) underline = UNDERLINE_STYLES[ext?.underlineStyle ?? 1] ?? 'single';
  if (underlined && underline === 'none') underline = 'single';
  const run: Run = {
    col,
    cells,
    text,
    cellWidth,
    fg: colorOf(cell.getFgColor(), cell.isFgRGB(), cell.isFgPalette()),
    bg: colorOf(cell.getBgColor(), cell.isBgRGB(), cell.isBgPalette()),
    bold: cell.isBold() !== 0,
    italic: cell.isItalic() !== 0,
    dim: cell.isDim() !== 0,
    underline,
    strikethrough: cell.isStrikethrough() !== 0,
    overline: cell.isOverline() !== 0,
    inverse: cell.isInverse() !== 0,
    invisible: cell.isInvisible() !== 0,
    blink: cell.isBlink() !== 0,
  };
  const urlId = ext?.urlId ?? 0;
  if (urlId) {
    const uri = links._oscLinkService?.getLinkData(urlId)?.uri;
    if (uri) run.link = uri;
  }
  return run;
}

function colorsEqual(a: Color, b: Color): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'rgb') return a.value === (b as { value: number }).value;
  if (a.kind === 'palette') return a.index === (b as { index: number }).index;
  return true;
}

function runsEqual(a: Run, b: Run): boolean {
  return (
    a.col === b.col &&
    a.cells === b.cells &&
    a.text === b.text &&
    a.cellWidth === b.cellWidth &&
    colorsEqual(a.fg, b.fg) &&
    colorsEqual(a.bg, b.bg) &&
    a.bold === b.bold &&
    a.italic === b.italic &&
    a.dim === b.dim &&
    a.underline === b.underline &&
    a.strikethrough === b.strikethrough &&
    a.overline === b.overline &&
    a.inverse === b.inverse &&
    a.invisible === b.invisible &&
    a.blink === b.blink &&
    a.link === b.link
  );
}

/** Two rows paint the same (same runs, text and wrap flag). */
export function rowsEqual(a: RenderRow, b: RenderRow): boolean {
  if (a.runs.length !== b.runs.length || a.wrapped !== b.wrapped || a.text !== b.text) return false;
  for (let i = 0; i < a.runs.length; i++) if (!runsEqual(a.runs[i]!, b.runs[i]!)) return false;
  return true;
}
