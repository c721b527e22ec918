// What a session's process is started with: its executable found on the PATH it will run with,
// and its environment (the terminal Termio runs in is not the child's).
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Variables that describe the terminal Termio itself runs in, which would mislead the child. */
const INHERITED_TERMINAL_VARS = [
  'COLUMNS', 'LINES', 'TERMCAP', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'TERM_SESSION_ID', 'TMUX', 'TMUX_PANE',
  'STY', 'WINDOW', 'WINDOWID', 'VTE_VERSION', 'KITTY_WINDOW_ID', 'ITERM_SESSION_ID', 'WT_SESSION', 'VSCODE_INJECTION',
];

/** A program that could not be started, and why. */
export type LaunchError = { kind: 'launchError'; message: string; command: string };

export function launchError(command: string, message: string): LaunchError {
  return { kind: 'launchError', message, command };
}

export function findExecutable(command: string, cwd: string, env: Record<string, string>): string | null {
  const canRun = (p: string): boolean => {
    try {
      accessSync(p, fsConstants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) {
    const p = isAbsolute(command) ? command : resolve(cwd, command);
    return canRun(p) ? p : null;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, command);
    if (canRun(p)) return p;
  }
  return null;
}

export function buildEnv(opts: { baseEnv?: Record<string, string> | undefined; env?: Record<string, string> | undefined }, id: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.baseEnv ?? process.env)) if (v !== undefined) env[k] = v;
  for (const k of INHERITED_TERMINAL_VARS) delete env[k];
  env.TERM_PROGRAM = 'termio';
  // GUI apps on macOS start without a locale; TUIs then fall back to ASCII.
  if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) env.LANG = process.platform === 'darwin' ? 'en_US.UTF-8' : 'C.UTF-8';
  Object.assign(env, opts.env ?? {});
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.TERMIO_SESSION = id;
  return env;
}
