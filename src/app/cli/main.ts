// The termio command line: parses the verb and hands over to one module per command group.
// Exit codes are part of the interface (scripts and tests rely on them): see ExitCode in cliIo.ts.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { packageVersion } from '../services/install';
import { inertText } from '../present/inertText';
import { ExitCode, type CliIo, type CommandHandler } from './cliIo';

/** Command groups, loaded lazily so `termio --version` stays cheap. */
const groups: Record<string, { summary: string; load: () => CommandHandler }> = {};

export function registerGroup(name: string, summary: string, load: () => CommandHandler): void {
  groups[name] = { summary, load };
}

function usage(): string {
  const lines = [
    'Usage: termio <command> [options]',
    '',
    'Termio hosts AI coding-agent CLIs in real terminal tabs.',
    '',
    'Commands:',
    ...Object.entries(groups).map(([name, g]) => `  ${name.padEnd(10)} ${g.summary}`),
    `  ${'DIR'.padEnd(10)} open a folder as a new session (starts the app if it is not running)`,
    '',
    'Options:',
    '  --help     show this help (also after a command: termio sessions --help)',
    '  --version  print the version',
    '',
    'Exit codes: 0 ok, 1 error, 2 bad usage, 3 timeout, 4 Termio not running, 5 a session needs you.',
  ];
  return `${lines.join('\n')}\n`;
}

export const defaultIo: CliIo = {
  out: (t) => process.stdout.write(inertText(t)),
  outRaw: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(inertText(t)),
  env: process.env,
  cwd: process.cwd(),
};

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    io.out(usage());
    return first === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (first === '--version' || first === '-v') {
    io.out(`termio ${packageVersion()}\n`);
    return ExitCode.ok;
  }
  // Own keys only: "constructor" or "toString" are not commands.
  const group = Object.hasOwn(groups, first) ? groups[first] : undefined;
  // `termio DIR`: a command name wins; `termio ./sessions` opens a folder that shadows one.
  if (!group && statSync(resolve(io.cwd, first), { throwIfNoEntry: false })?.isDirectory()) return require('./openDir').run(argv, io);
  if (!group) {
    io.err(`termio: unknown command '${first}'\n\n${usage()}`);
    return ExitCode.usage;
  }
  return group.load()(rest, io);
}

registerGroup(
  'sessions',
  'list, watch, read, send to, spawn, run, wait for, focus and close sessions in the session host; review a worktree session (diff, commit, merge, rebase)',
  () => require('./sessions').run,
);
registerGroup('worktrees', 'the git worktrees sessions work in: list them, prune the merged and clean ones, remove one', () => require('./worktrees').run);
registerGroup(
  'history',
  "every agent's past conversations on every machine: search them, resume one in a tab, indexing status",
  () => require('./history').run,
);
registerGroup('usage', 'tokens in, out and cached, and the estimated cost, per agent, day, folder or model', () => require('./history').runUsage);
registerGroup('notify', 'show a desktop notification that brings you back to the calling session when clicked', () => require('./notify').run);
registerGroup('settings', 'read or change a setting (the session host writes settings.json and applies it at once)', () => require('./settings').run);
registerGroup('hooks', "install, remove or check the status hooks in each agent's own config (live agent status)", () => require('./hooks').run);
registerGroup('agents', 'list the agents Termio knows and validate agent manifests', () => require('./agents').run);
registerGroup('host', 'the session host: status, stop, start, and sessions that outlive any window', () => require('./host').run);
registerGroup('companion', 'the phone companion: a web page with every session, to answer one from your phone', () => require('./companion').run);
registerGroup('machines', "other computers over ssh: add, list, remove, install; their sessions show beside this one's", () => require('./machines').run);
registerGroup('mcp', "an MCP server (stdio) with Termio's session tools, for agents; status: where it is registered", () => require('./mcp').run);
registerGroup('attach', 'show a session of the session host in this terminal (detach with Ctrl-])', () => require('./attach').run);
