// `termio notify [--title T] TEXT`: a desktop notification from a script or an agent. Run inside a
// Termio session ($TERMIO_SESSION set), a click on it brings that session to the front.
import { ControlClient } from '../client/controlClient';
import { ExitCode, parseOrUsage, type CommandHandler } from './cliIo';
import { printError, printOk } from './output';

const HELP = `Usage: termio notify [--title T] [--json] TEXT

Shows TEXT as a desktop notification through the running Termio. Inside a Termio session, a click
on it brings that session to the front; the title defaults to the session's agent and folder.
Exit codes: 0 shown, 1 error, 2 bad usage, 4 Termio not running.
`;

export const run: CommandHandler = async (args, io) => {
  const parsed = parseOrUsage(io, 'notify', HELP, args, { title: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(HELP);
    return ExitCode.ok;
  }
  const json = values.json === true;
  const text = positionals.join(' ');
  if (!text) {
    printError(io, json, 'usage', 'notify: missing TEXT');
    io.err(`\n${HELP}`);
    return ExitCode.usage;
  }
  const client = await ControlClient.connectOrStart(io.env);
  if (!(client instanceof ControlClient)) {
    printError(io, json, 'hostNotRunning', client.message);
    return ExitCode.hostNotRunning;
  }
  try {
    const session = io.env.TERMIO_SESSION;
    const reply = await client.request('app.notify', { text, title: values.title, session: session || undefined });
    if (!reply.ok) {
      printError(io, json, reply.lost ? 'connectionLost' : reply.error.code, reply.error.message);
      return reply.lost ? ExitCode.hostNotRunning : ExitCode.failed;
    }
    if (json) printOk(io, reply.result);
    return ExitCode.ok;
  } finally {
    client.close();
  }
};
