// The command line a hook entry runs: our reporter with the agent, the state and the event baked
// in (`on → state`). An entry is ours when its command has exactly the shape reporterCommand
// writes (isOurCommand), which is how uninstall tells our entries from the user's.
import { SESSION_STATES, type SessionState } from '../status/sessionState';

/** The reporter's file name (bin/termio-hook, the native build, the launcher): the last path part of ours. */
export const REPORTER_MARKER = 'termio-hook';
/** What a shell-run entry starts with: outside Termio it costs one shell builtin. */
export const REPORTER_GUARD = '[ -z "$TERMIO_SESSION" ] || ';

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
  return opts.guard ? `${REPORTER_GUARD}${cmd}` : cmd;
}

/** Splits what shellQuote joined: plain words and '…' quoting ('\\'' inside). Null for anything else. */
function shellWords(text: string): string[] | null {
  const words: string[] = [];
  const re = /\s*((?:[A-Za-z0-9_@%+=:,./-]+|'[^']*'|\\')+)\s*/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return null;
    words.push(m[1]!.replace(/'([^']*)'|\\'/g, (q: string, inner: string | undefined) => (q === "\\'" ? "'" : (inner ?? ''))));
    at = re.lastIndex;
  }
  return words;
}

const lastPart = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Whether a hook command is one of ours: exactly `[guard] [node] /abs/…/termio-hook <agent>
 * <state> <event>` as reporterCommand writes it (by this or an older install, whichever reporter
 * it pointed at). A user's command that merely mentions termio-hook is not.
 */
export function isOurCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  const words = shellWords(command.startsWith(REPORTER_GUARD) ? command.slice(REPORTER_GUARD.length) : command);
  if (!words || (words.length !== 4 && words.length !== 5)) return false;
  const [reporter, agent, state] = words.slice(-4) as [string, string, string, string];
  const absolute = (p: string) => p.startsWith('/');
  if (!absolute(reporter) || lastPart(reporter) !== REPORTER_MARKER) return false;
  if (words.length === 5 && !(absolute(words[0]!) && /^(node|nodejs|qode)(\d+)?$/.test(lastPart(words[0]!)))) return false;
  return agent.length > 0 && (SESSION_STATES as readonly string[]).includes(state);
}
