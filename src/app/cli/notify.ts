// `termio notify [--title T] TEXT`: a desktop notification from a script or an agent. Run inside a
// Termio session ($TERMIO_SESSION set), a click on it brings that session to the front.
import { askHost } from './askHost';
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
  const r = await askHost(io, json, 'app.notify', { text, title: values.title, session: io.env.TERMIO_SESSION || undefined });
  if (!r.ok) return r.code;
  if (json) printOk(io, r.result);
  return ExitCode.ok;
};
