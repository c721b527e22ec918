// `termio attach ID`: shows a session of the session host in this terminal, tmux-style. The
// terminal goes to raw mode and the alternate screen; frames are painted with ANSI escapes and
// acknowledged once written, keys and pastes go to the host as intents. Ctrl-] detaches (the
// session keeps running); the command also ends when the session ends or is closed.
import { parseArgs } from 'node:util';
import type { FrameHeader, FrameReader } from '../../protocol/hostFrame';
import { AnsiPainter } from '../present/ansiPainter';
import { connectHost } from '../client/hostLauncher';
import { ExitCode, type CliIo } from './cliIo';
import { ESCAPE_TIMEOUT_MS, TtyInputDecoder, type TtyEvent } from './ttyInput';
import type { HostClient } from '../client/hostClient';

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

/** The usage error or help exit code, or null when the arguments and terminal are fit to attach. */
function checkArgs(args: string[], io: CliIo, tty: AttachTty): number | null {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch {
    parsed = null;
  }
  if (args.length === 0 || parsed?.values.help) {
    io.out(HELP);
    return args.length === 0 ? ExitCode.usage : ExitCode.ok;
  }
  if (!parsed || parsed.positionals.length !== 1) {
    io.err(`termio attach: expected one session id, got ${args.map((a) => `'${a}'`).join(' ')}\n\n${HELP}`);
    return ExitCode.usage;
  }
  if (!tty.stdin.isTTY || !tty.stdout.isTTY) {
    io.err('termio attach: needs a terminal on stdin and stdout\n');
    return ExitCode.usage;
  }
  return null;
}

type Frame = { h: FrameHeader; reader: FrameReader };

export async function run(args: string[], io: CliIo, tty: AttachTty = { stdin: process.stdin, stdout: process.stdout }): Promise<number> {
  const bad = checkArgs(args, io, tty);
  if (bad !== null) return bad;
  const client = await connectHost(io.env, { client: 'termio-attach', start: true });
  if ('kind' in client) {
    io.err(`termio attach: ${client.message}\n`);
    return ExitCode.failed;
  }
  const { stdout } = tty;
  // The first frame can arrive in the same read as the attach answer, before the code after the
  // await runs: hold it until the painter is set up (pacing means there is never more than one).
  let early: Frame | null = null;
  client.onFrame((h, reader) => (early = { h, reader }));
  const attached = await client.request('attach', { session: args[0]!, view: VIEW, cols: stdout.columns, rows: stdout.rows });
  if (!attached.ok) {
    client.close();
    io.err(`termio attach: ${attached.error.message}\n`);
    // No such session is an error like any other (exit 1), as for every termio command.
    return ExitCode.failed;
  }
  return new Attachment(client, attached.result.session.id, io, tty).run(early as Frame | null);
}

/** One attached session: terminal in raw mode, frames painted, keys sent, until detach or end. */
class Attachment {
  private readonly painter: AnsiPainter;
  private readonly decoder = new TtyInputDecoder();
  private escapeTimer: NodeJS.Timeout | null = null;
  private done = false;
  private resolve: (code: number) => void = () => undefined;

  constructor(
    private readonly client: HostClient,
    private readonly sessionId: string,
    private readonly io: CliIo,
    private readonly tty: AttachTty,
  ) {
    this.painter = new AnsiPainter(tty.stdout.columns, tty.stdout.rows);
  }

  /** Takes over the terminal; resolves with the exit code once detached or ended. `first`: a frame that came early. */
  run(first: Frame | null): Promise<number> {
    const { stdin, stdout } = this.tty;
    return new Promise<number>((resolve) => {
      this.resolve = resolve;
      this.client.onFrame((h, reader) => this.paint(h, reader));
      this.client.onEvent((e) => {
        if (e.event === 'detached' && e.view === VIEW) this.finish(ExitCode.ok, e.reason === 'hostStopping' ? 'the host stopped' : 'the session was closed');
      });
      this.client.onClose((why) => this.finish(ExitCode.failed, `lost the host: ${why}`));
      stdout.write(ENTER);
      stdin.setRawMode(true);
      stdin.resume();
      stdin.on('data', this.onData);
      stdout.on('resize', this.onResize);
      if (first) this.paint(first.h, first.reader);
    });
  }

  private finish(code: number, message: string): void {
    if (this.done) return;
    this.done = true;
    const { stdin, stdout } = this.tty;
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    stdin.off('data', this.onData);
    stdout.off('resize', this.onResize);
    stdout.write(LEAVE);
    stdin.setRawMode(false);
    stdin.pause();
    this.client.close();
    this.io.err(`termio attach: ${message}\n`);
    this.resolve(code);
  }

  private deliver(events: TtyEvent[]): void {
    for (const e of events) {
      if (e.kind === 'detach')
        return this.finish(ExitCode.ok, `detached from ${this.sessionId} (it keeps running; termio attach ${this.sessionId.slice(0, 8)} to come back)`);
      this.client.input(VIEW, e);
    }
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    this.escapeTimer = null;
    this.deliver(this.decoder.push(chunk.toString('utf8')));
    if (this.decoder.pending) this.escapeTimer = setTimeout(() => this.deliver(this.decoder.flush()), ESCAPE_TIMEOUT_MS);
  };

  private readonly onResize = (): void => {
    const { stdout } = this.tty;
    this.painter.outCols = stdout.columns;
    this.painter.outRows = stdout.rows;
    this.painter.invalidate();
    this.client.input(VIEW, { kind: 'resize', cols: stdout.columns, rows: stdout.rows });
  };

  private paint(h: FrameHeader, reader: FrameReader): void {
    if (this.done || h.view !== VIEW) return;
    // Acknowledged once the terminal took the bytes: a slow terminal slows the frames, never the session.
    this.tty.stdout.write(this.painter.paint(h, reader), () => this.client.ack(VIEW, h.seq));
    if (h.exit) this.finish(ExitCode.ok, `the session ended (${h.exit.signal ? `signal ${h.exit.signal}` : `exit code ${h.exit.exitCode}`})`);
  }
}
