// A session's screen and scrollback as escape sequences that rebuild them in a fresh emulator,
// taken at an exact stream offset: what a host saves so that a later host can adopt the session
// from the holder's bytes since. @xterm/addon-serialize writes the buffers and xterm's modes; the
// state it leaves out (scroll region, cursor visibility and shape, mouse encoding, keyboard
// modes, title) is appended here.
import type { Terminal } from '@xterm/headless';
import type { Session } from './session';

export interface ScreenCheckpoint {
  /** Every byte of the stream before this offset is reflected in `screen`. */
  offset: number;
  cols: number;
  rows: number;
  screen: string;
}

interface CoreInternals {
  _core?: {
    buffer?: { scrollTop: number; scrollBottom: number };
    _inputHandler?: { _parser?: { currentState: number } };
  };
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
  return out;
}

/**
 * The session's state once everything handed to its emulator so far is parsed, or null when the
 * parser is in the middle of a sequence then (the caller tries again later) or the session is gone.
 */
export function captureCheckpoint(session: Session, scrollback: number): Promise<ScreenCheckpoint | null> {
  const offset = session.streamOffset;
  return new Promise((resolve) => {
    // Runs right after the bytes before `offset` are parsed, before any later chunk is.
    session.emulator.write('', () => {
      try {
        if (!parserAtRest(session.emulator)) return resolve(null);
        resolve({ offset, cols: session.cols, rows: session.rows, screen: session.snapshot(scrollback) + extraState(session) });
      } catch {
        resolve(null); // disposed meanwhile
      }
    });
  });
}
