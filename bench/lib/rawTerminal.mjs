// The reference every throughput figure is compared with: node-pty feeding @xterm/headless and
// nothing else (no render model, no view), on the same command at the same size.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Runs argv on a pty into a headless emulator; resolves when the output is parsed. */
export async function rawTerminalRun(argv, { cols, rows, cwd }) {
  const pty = require('node-pty');
  const { Terminal } = require('@xterm/headless');
  const term = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  const t0 = performance.now();
  const p = pty.spawn(argv[0], argv.slice(1), { cols, rows, cwd, env: { ...process.env, TERM: 'xterm-256color' }, encoding: null });
  let bytes = 0;
  p.onData((d) => {
    bytes += d.length;
    term.write(d);
  });
  await new Promise((r) => p.onExit(r));
  await new Promise((r) => term.write('', r));
  const ms = performance.now() - t0;
  term.dispose();
  return { ms, bytes };
}
