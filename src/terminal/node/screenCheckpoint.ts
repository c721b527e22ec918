// A session's screen and scrollback as escape sequences that rebuild them in a fresh emulator,
// taken at an exact stream offset: what a host saves so that a later host can adopt the session
// from the holder's bytes since. serializeScreen (screenSerializer.ts) writes the buffers, the
// cursors, the pen and xterm's modes; the state it leaves out (scroll region, cursor visibility
// and shape, mouse encoding, keyboard modes, title, the G0–G3 charsets and the one shifted in) is
// appended here.
import type { Terminal } from '@xterm/headless';
import { createEmulator } from './createEmulator';
import type { Session } from './session';

export interface ScreenCheckpoint {
  /** Every byte of the stream before this offset is reflected in `screen`. */
  offset: number;
  cols: number;
  rows: number;
  /** The escape sequences, UTF-8. */
  screen: Uint8Array;
}

/** xterm's charset state: the tables designated as G0–G3 (undefined: US ASCII) and which is shifted in. */
interface CharsetService {
  glevel: number;
  _charsets: Array<object | undefined>;
}

interface CoreInternals {
  _core?: {
    buffer?: { scrollTop: number; scrollBottom: number };
    _inputHandler?: { _parser?: { currentState: number }; _charsetService?: CharsetService; parse(data: string): unknown };
  };
}

/** Every final byte of an SCS sequence xterm knows (DEC line drawing, UK, US, the national sets). */
const CHARSET_FINALS = '0AB4C5RQKYE6ZH7=';
/** The introducer that designates G0, G1, G2, G3: ESC ( 0 puts DEC line drawing in G0. */
const DESIGNATE = ['(', ')', '*', '+'] as const;
/** Shifting G0–G3 in: SI, SO, LS2, LS3. */
const SHIFT_IN = ['\x0f', '\x0e', '\x1bn', '\x1bo'] as const;

let designators: Map<object, string> | null = null;

/** Which final byte designates each of xterm's charset tables, learned once from a scratch
 *  emulator (the tables are not exported): a checkpoint names a charset by what selects it. */
function charsetDesignators(): Map<object, string> {
  if (designators) return designators;
  const scratch = createEmulator({ cols: 10, rows: 2, scrollback: 0 });
  const input = (scratch as unknown as CoreInternals)._core?._inputHandler;
  const map = new Map<object, string>();
  for (const final of CHARSET_FINALS) {
    input?.parse(`\x1b(${final}`);
    const table = input?._charsetService?._charsets[0];
    if (table && !map.has(table)) map.set(table, final);
  }
  scratch.dispose();
  designators = map;
  return map;
}

/** The designations and the shift that rebuild the emulator's charset state (empty: all US ASCII, G0 in use). */
function charsetState(term: Terminal): string {
  const cs = (term as unknown as CoreInternals)._core?._inputHandler?._charsetService;
  if (!cs) return '';
  let out = '';
  cs._charsets.forEach((table, g) => {
    const final = table ? charsetDesignators().get(table) : undefined;
    if (final && DESIGNATE[g]) out += `\x1b${DESIGNATE[g]}${final}`;
  });
  if (cs.glevel > 0) out += SHIFT_IN[cs.glevel] ?? '';
  return out;
}

/** The parser is between sequences (its ground state): a checkpoint here replays cleanly. */
function parserAtRest(term: Terminal): boolean {
  const state = (term as unknown as CoreInternals)._core?._inputHandler?._parser?.currentState;
  return state === undefined || state === 0;
}

const MOUSE_ENCODING_MODE = { default: 0, utf8: 1005, sgr: 1006, urxvt: 1015, sgrPixels: 1016 } as const;
const CURSOR_SHAPE_CODE = { block: 1, underline: 3, bar: 5 } as const;

/** What the serializer leaves out, as the sequences that set it again. */
function extraState(session: Session): string {
  const term = session.emulator;
  const modes = session.terminalModes;
  let out = '';
  const core = (term as unknown as CoreInternals)._core?.buffer;
  if (core && (core.scrollTop !== 0 || core.scrollBottom !== term.rows - 1)) {
    // DECSTBM homes the cursor: put it back (relative to the margins under origin mode).
    const buf = term.buffer.active;
    const y = term.modes.originMode ? buf.cursorY - core.scrollTop : buf.cursorY;
    out += `\x1b[${core.scrollTop + 1};${core.scrollBottom + 1}r\x1b[${y + 1};${buf.cursorX + 1}H`;
  }
  if (!modes.cursorVisible) out += '\x1b[?25l';
  if (modes.mouseEncoding !== 'default') out += `\x1b[?${MOUSE_ENCODING_MODE[modes.mouseEncoding]}h`;
  if (modes.cursorShape) out += `\x1b[${CURSOR_SHAPE_CODE[modes.cursorShape] + (modes.cursorBlink ? 0 : 1)} q`;
  if (modes.modifyOtherKeys > 0) out += `\x1b[>4;${modes.modifyOtherKeys}m`;
  if (modes.kittyFlags > 0) out += `\x1b[=${modes.kittyFlags};1u`;
  // Control characters would end the sequence early; a title never needs them.
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const title = session.title.replace(/[\x00-\x1f\x7f-\x9f]/g, '');
  if (title) out += `\x1b]2;${title}\x07`;
  return out + charsetState(term);
}

/** Longest stretch a capture holds the loop: about a parse slice (EmulatorFeed's SLICE_MS), so a
 *  key typed meanwhile is read and written to the pty as soon as during a flood. */
export const CAPTURE_SLICE_MS = 3;

/** How long a capture held the loop: in all, in how many pieces, the longest piece. */
export interface CaptureTiming {
  serializeMs: number;
  slices: number;
  longestMs: number;
}

/** What a capture cannot carry on across: the emulator resized or switched buffers between steps. */
function shapeOf(term: Terminal): string {
  return `${term.cols}x${term.rows} ${term.buffer.active.type} ${term.buffer.normal.length}`;
}

/**
 * The session's state once everything handed to its emulator so far is parsed, or null when the
 * parser is in the middle of a sequence then (the caller tries again later), when `giveWay` says
 * so (checked before the capture and between its steps), or when the session is gone. A long
 * scrollback is serialized in steps of about `sliceMs` with a turn of the loop between
 * them, parsing held meanwhile so the state stays that of the offset. In one piece, a host's first
 * long checkpoint (before V8 has optimized the serializer) held the loop 25-60 ms on a 2-core
 * machine, and a Ctrl-C typed into a flood just then waited behind it. A key that comes between
 * steps (giveWay) drops the capture and parsing goes on, as does a resize. `timing` receives how
 * long the steps held the loop.
 */
export function captureCheckpoint(
  session: Session,
  scrollback: number,
  opts: { giveWay?: () => boolean; timing?: CaptureTiming; sliceMs?: number } = {},
): Promise<ScreenCheckpoint | null> {
  const { giveWay = () => false, timing, sliceMs = CAPTURE_SLICE_MS } = opts;
  const offset = session.streamOffset;
  return new Promise((resolve) => {
    // Runs right after the bytes before `offset` are parsed, before any later chunk is.
    session.afterParsed(() => {
      if (giveWay() || !parserAtRest(session.emulator)) return resolve(null);
      const release = session.holdParsing();
      const end = (cp: ScreenCheckpoint | null): void => {
        release?.();
        resolve(cp);
      };
      let steps: Generator<void, Uint8Array[], void>;
      let shape: string;
      try {
        steps = session.snapshotSteps(scrollback);
        shape = shapeOf(session.emulator);
      } catch {
        return end(null); // disposed meanwhile
      }
      if (timing) timing.serializeMs = timing.slices = timing.longestMs = 0;
      const slice = (): void => {
        try {
          const start = performance.now();
          let r = steps.next();
          // Without a hold (the emulator parses on its own), the whole capture is one piece.
          while (!r.done && (!release || performance.now() - start < sliceMs)) r = steps.next();
          if (timing) {
            const ms = performance.now() - start;
            timing.serializeMs += ms;
            timing.slices++;
            timing.longestMs = Math.max(timing.longestMs, ms);
          }
          if (!r.done) return void setImmediate(next);
          const screen = Buffer.concat([...r.value, Buffer.from(extraState(session))]);
          end({ offset, cols: session.cols, rows: session.rows, screen });
        } catch {
          end(null); // disposed meanwhile
        }
      };
      const next = (): void => {
        if (session.isDisposed || giveWay() || shapeOf(session.emulator) !== shape) end(null);
        else slice();
      };
      slice();
    });
  });
}
