// `termio attach ID`: shows a session of the session host in this terminal, tmux-style. The
// terminal goes to raw mode and the alternate screen; frames are painted with ANSI escapes and
// acknowledged once written, keys and pastes go to the host as intents. Ctrl-] detaches (the
// session keeps running); the command also ends when the session ends or is closed.
import type { FrameHeader, FrameReader } from '../../protocol/hostFrame';
import { AnsiPainter } from './ansiPainter';
import { connectHost } from './hostLauncher';
import { ExitCode, type CliIo } from './main';
import { ESCAPE_TIMEOUT_MS, TtyInputDecoder } from './ttyInput';

const HELP = `Usage: termio attach ID

Shows a session of the session host (see \`termio host\`) in this terminal: what it shows, you
see; what you type, it gets. Works over SSH. Several terminals may attach to one session; the
one that attached or typed last holds the input, and the session takes its size.

Detach with Ctrl-] (the session keeps running). ID is a session id or a unique prefix of one
(\`termio host list\` shows them). Mouse input is not passed through.
`;

/** The one view this client attaches (a client picks its own view ids). */
const VIEW = 1;
const ENTER = '\x1b[?1049h\x1b[?2004h\x1b[?1004h';
const LEAVE = '\x1b[?2026l\x1b[0m\x1b[?1004l\x1b[?2004l\x1b[0 q\x1b[?25h\x1b[?1049l';

export interface AttachTty {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

export async function run(args: string[], io: CliIo, tty: AttachTty = { stdin: process.stdin, stdout: process.stdout }): Promise<number> {
  if (args.length === 0 || args[0] === '--help' || args[0] === '-h') {
    io.out(HELP);
    return args.length === 0 ? ExitCode.usage : ExitCode.ok;
  }
  if (args.length !== 1 || args[0]!.startsWith('-')) {
    io.err(`termio attach: expected one session id, got ${args.map((a) => `'${a}'`).join(' ')}\n\n${HELP}`);
    return ExitCode.usage;
  }
  const { stdin, stdout } = tty;
  if (!stdin.isTTY || !stdout.isTTY) {
    io.err('termio attach: needs a terminal on stdin and stdout\n');
    return ExitCode.usage;
  }
  const client = await connectHost(io.env, { client: 'termio-attach', start: true });
  if ('kind' in client) {
    io.err(`termio attach: ${client.message}\n`);
    return ExitCode.failed;
  }
  const painter = new AnsiPainter(stdout.columns, stdout.rows);
  // The first frame can arrive in the same read as the attach answer, before the code after the
  // await runs: hold it until the painter is set up (pacing means there is never more than one).
  let early: { h: FrameHeader; reader: FrameReader } | null = null;
  client.onFrame((h, reader) => (early = { h, reader }));
  const attached = await client.request('attach', { session: args[0]!, view: VIEW, cols: stdout.columns, rows: stdout.rows });
  if (!attached.ok) {
    client.close();
    io.err(`termio attach: ${attached.error.message}\n`);
    // No such session is an error like any other (exit 1), as for every termio command.
    return ExitCode.failed;
  }
  const sessionId = attached.result.session.id;

  return new Promise<number>((resolve) => {
    let done = false;
    const finish = (code: number, message: string): void => {
      if (done) return;
      done = true;
      if (escapeTimer) clearTimeout(escapeTimer);
      stdin.off('data', onData);
      stdout.off('resize', onResize);
      stdout.write(LEAVE);
      stdin.setRawMode(false);
      stdin.pause();
      client.close();
      io.err(`termio attach: ${message}\n`);
      resolve(code);
    };
    const decoder = new TtyInputDecoder();
    let escapeTimer: NodeJS.Timeout | null = null;
    const deliver = (events: ReturnType<TtyInputDecoder['push']>): void => {
      for (const e of events) {
        if (e.kind === 'detach') return finish(ExitCode.ok, `detached from ${sessionId} (it keeps running; termio attach ${sessionId.slice(0, 8)} to come back)`);
        client.input(VIEW, e);
      }
    };
    const onData = (chunk: Buffer): void => {
      if (escapeTimer) clearTimeout(escapeTimer);
      escapeTimer = null;
      deliver(decoder.push(chunk.toString('utf8')));
      if (decoder.pending) escapeTimer = setTimeout(() => deliver(decoder.flush()), ESCAPE_TIMEOUT_MS);
    };
    const onResize = (): void => {
      painter.outCols = stdout.columns;
      painter.outRows = stdout.rows;
      painter.invalidate();
      client.input(VIEW, { kind: 'resize', cols: stdout.columns, rows: stdout.rows });
    };
    const paint = (h: FrameHeader, reader: FrameReader): void => {
      if (done || h.view !== VIEW) return;
      // Acknowledged once the terminal took the bytes: a slow terminal slows the frames, never the session.
      stdout.write(painter.paint(h, reader), () => client.ack(VIEW, h.seq));
      if (h.exit) finish(ExitCode.ok, `the session ended (${h.exit.signal ? `signal ${h.exit.signal}` : `exit code ${h.exit.exitCode}`})`);
    };
    client.onFrame(paint);
    client.onEvent((e) => {
      if (e.event === 'detached' && e.view === VIEW) finish(ExitCode.ok, e.reason === 'hostStopping' ? 'the host stopped' : 'the session was closed');
    });
    client.onClose((why) => finish(ExitCode.failed, `lost the host: ${why}`));
    stdout.write(ENTER);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
    stdout.on('resize', onResize);
    const first = early as { h: FrameHeader; reader: FrameReader } | null;
    if (first) paint(first.h, first.reader);
  });
}
