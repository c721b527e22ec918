// A manifest's `command` as ATP means it: a program name (or path) resolved on the login shell's
// PATH, or a whole command line ("npx -y some-agent"), which runs through the user's login shell
// as `$SHELL -ilc "exec <command> <arguments>"` so the shell quotes, expands and finds it as it
// would typed. Pure: which kind a command is, the program a line starts with, and the argv.

/** Characters a single program name or path never needs; any of them makes it a command line. */
const SHELL_SYNTAX = /[\s'"\\$`;&|<>(){}*?!#]/;
/** A word the shell takes literally (no quoting, expansion or assignment). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+:,./~-]+$/;

export function isCommandLine(command: string): boolean {
  return SHELL_SYNTAX.test(command);
}

/**
 * The program a command line runs, when its first word is a plain name or path (checked for
 * "not installed" like a lone program); undefined when the shell decides it (an assignment, a
 * quoted or expanded word).
 */
export function commandLineProgram(command: string): string | undefined {
  const first = command.trim().split(/\s+/, 1)[0] ?? '';
  return PLAIN_WORD.test(first) ? first : undefined;
}

/** POSIX single quotes around anything that is not a plain word (what a user would type). */
export function quoteShellWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The argv that runs a command line with extra arguments through the login shell. */
export function loginShellArgv(shell: string, command: string, args: readonly string[]): string[] {
  const tail = args.map(quoteShellWord).join(' ');
  return [shell, '-ilc', `exec ${command}${tail ? ` ${tail}` : ''}`];
}
