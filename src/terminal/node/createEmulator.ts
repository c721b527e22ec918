// Builds the headless emulator every session uses: proposed API on (parser hooks, unicode),
// current Unicode cell widths active.
import { Terminal } from '@xterm/headless';
import { unicodeWidthProvider, UNICODE_VERSION } from '../common/unicodeWidth';

export function createEmulator(opts: { cols: number; rows: number; scrollback: number }): Terminal {
  const term = new Terminal({ ...opts, allowProposedApi: true });
  term.unicode.register(unicodeWidthProvider);
  term.unicode.activeVersion = UNICODE_VERSION;
  return term;
}
