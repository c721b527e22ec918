// Cell widths for the emulator, per current Unicode: East Asian Wide/Fullwidth and emoji with
// default emoji presentation take two cells, combining marks and format characters none.
// xterm.js ships only Unicode 6 widths (emoji one cell), which misaligns every modern TUI.
// Also joins emoji ZWJ sequences and regional-indicator flag pairs into one cell.
import type { IUnicodeVersionProvider } from '@xterm/headless';

export const UNICODE_VERSION = 'termio-15';

/** East Asian Wide and Fullwidth blocks (EastAsianWidth.txt W/F) not already covered by the
 *  Emoji_Presentation property below. */
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x16ff0, 0x16ff1],
  [0x17000, 0x18cff],
  [0x18d00, 0x18d08],
  [0x1aff0, 0x1b2ff],
  [0x1f200, 0x1f202],
  [0x1f210, 0x1f23b],
  [0x1f240, 0x1f248],
  [0x1f250, 0x1f251],
  [0x1f260, 0x1f265],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

const ZERO_WIDTH_CLASS = '[\\p{Mn}\\p{Me}\\p{Cf}]';
const EMOJI_PRESENTATION_CLASS = '\\p{Emoji_Presentation}';
const ZERO_WIDTH = new RegExp(`^${ZERO_WIDTH_CLASS}$`, 'u');
const EMOJI_PRESENTATION = new RegExp(`^${EMOJI_PRESENTATION_CLASS}$`, 'u');
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const ZWJ = 0x200d;
const SOFT_HYPHEN = 0xad;
/** Hangul medial vowels and final consonants compose with the preceding syllable start. */
const HANGUL_JAMO_TAIL: readonly [number, number] = [0x1160, 0x11ff];

/** The width rule for one code point (the BMP's table is built by the same rule, all at once). */
export function computeWidth(cp: number): 0 | 1 | 2 {
  if (cp === SOFT_HYPHEN) return 1;
  const ch = String.fromCodePoint(cp);
  if ((cp >= HANGUL_JAMO_TAIL[0] && cp <= HANGUL_JAMO_TAIL[1]) || ZERO_WIDTH.test(ch)) return 0;
  if (EMOJI_PRESENTATION.test(ch)) return 2;
  for (const [lo, hi] of WIDE_RANGES) if (cp >= lo && cp <= hi) return 2;
  return 1;
}

/**
 * Every BMP code point's width, by computeWidth's rule but with each property class matched once
 * over a string of the whole plane: a regular expression per code point took 13 ms (now 6, on a
 * 2-core machine) of the host's loop at the first character past U+02FF any session printed
 * (the first box-drawing line of an agent's TUI). The string has a space where each surrogate
 * is, so that index = code point and a pair of them never reads as one astral character; alone
 * a surrogate is one cell, as computeWidth says.
 */
export function buildBmpTable(): Uint8Array {
  const units = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) units[c] = c >= 0xd800 && c <= 0xdfff ? 0x20 : c;
  let plane = '';
  for (let i = 0; i < 0x10000; i += 4096) plane += String.fromCharCode(...units.subarray(i, i + 4096));
  const table = new Uint8Array(0x10000).fill(1);
  for (const [lo, hi] of WIDE_RANGES) if (lo < 0x10000) table.fill(2, lo, Math.min(hi, 0xffff) + 1);
  for (const m of plane.matchAll(new RegExp(EMOJI_PRESENTATION_CLASS, 'gu'))) table[m.index] = 2;
  for (const m of plane.matchAll(new RegExp(ZERO_WIDTH_CLASS, 'gu'))) table[m.index] = 0;
  table.fill(0, HANGUL_JAMO_TAIL[0], HANGUL_JAMO_TAIL[1] + 1);
  table[SOFT_HYPHEN] = 1;
  return table;
}

let bmpTable: Uint8Array | null = null;
const astralCache = new Map<number, 0 | 1 | 2>();

/** Width of one code point in cells. */
export function wcwidth(cp: number): 0 | 1 | 2 {
  if (cp < 0x300) return cp === SOFT_HYPHEN || cp >= 0x20 ? 1 : 0;
  if (cp < 0x10000) {
    bmpTable ??= buildBmpTable();
    return bmpTable[cp] as 0 | 1 | 2;
  }
  let w = astralCache.get(cp);
  if (w === undefined) {
    w = computeWidth(cp);
    astralCache.set(cp, w);
  }
  return w;
}

// xterm's packed character properties: kind << 3 | width << 1 | shouldJoin.
const pack = (kind: number, width: number, join: boolean): number => ((kind & 0xffffff) << 3) | ((width & 3) << 1) | (join ? 1 : 0);
const widthOf = (props: number): number => (props >> 1) & 3;
const kindOf = (props: number): number => props >> 3;
/** Kinds we track between code points: after a ZWJ, after a lone regional indicator. */
const KIND_AFTER_ZWJ = 1;
const KIND_LONE_REGIONAL = 2;
const isRegional = (cp: number): boolean => cp >= 0x1f1e6 && cp <= 0x1f1ff;

export const unicodeWidthProvider: IUnicodeVersionProvider = {
  version: UNICODE_VERSION,
  wcwidth,
  charProperties(cp: number, preceding: number): number {
    const w = wcwidth(cp);
    if (preceding === 0) return pack(isRegional(cp) ? KIND_LONE_REGIONAL : 0, w, false);
    const pw = widthOf(preceding);
    const pk = kindOf(preceding);
    if (pw === 0) return pack(isRegional(cp) ? KIND_LONE_REGIONAL : 0, w, false);
    if (cp === ZWJ) return pack(KIND_AFTER_ZWJ, pw, true);
    if (pk === KIND_AFTER_ZWJ && PICTOGRAPHIC.test(String.fromCodePoint(cp))) return pack(0, Math.max(pw, w), true);
    if (pk === KIND_LONE_REGIONAL && isRegional(cp)) return pack(0, 2, true);
    if (w === 0) return pack(pk === KIND_AFTER_ZWJ ? KIND_AFTER_ZWJ : 0, pw, true);
    return pack(isRegional(cp) ? KIND_LONE_REGIONAL : 0, w, false);
  },
};
