// The command line a hook entry runs: our reporter with the agent, the state and the event baked
// in (`on → state`). Every entry we write carries REPORTER_MARKER, which is how uninstall tells
// our entries from the user's.
import type { SessionState } from '../status/sessionState';

/** The reporter's file name (bin/termio-hook); an entry whose command contains it is ours. */
export const REPORTER_MARKER = 'termio-hook';

/** Where the reporter lives on this machine, as the host resolved it. */
export interface ReporterLocation {
  /** Absolute path of bin/termio-hook. */
  reporterPath: string;
  /** Absolute path of the node binary to run it with; omitted → the shebang (`env node`). */
  nodePath?: string;
}

export interface ReporterArgs {
  agentId: string;
  state: SessionState;
  event: string;
}

/** POSIX shell single-quoting: safe for any path, including spaces and quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function reporterArgv(loc: ReporterLocation, args: ReporterArgs): string[] {
  if (!loc.reporterPath.includes(REPORTER_MARKER)) {
    throw new Error(`reporter path ${JSON.stringify(loc.reporterPath)} must contain '${REPORTER_MARKER}'`);
  }
  return [...(loc.nodePath ? [loc.nodePath] : []), loc.reporterPath, args.agentId, args.state, args.event];
}

/**
 * The shell command for a hook entry. With `guard` (agents that run hooks through a shell), the
 * command is a no-op costing a shell builtin when TERMIO_SESSION is unset — a session outside
 * Termio then never pays for starting Node on every tool call — and still exits 0.
 */
export function reporterCommand(loc: ReporterLocation, args: ReporterArgs, opts: { guard: boolean }): string {
  const cmd = reporterArgv(loc, args).map(shellQuote).join(' ');
  return opts.guard ? `[ -z "$TERMIO_SESSION" ] || ${cmd}` : cmd;
}

export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && command.includes(REPORTER_MARKER);
}
