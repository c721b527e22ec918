// What starting a session's program needs, checked before anything runs: the command found on
// PATH (or the login shell, with a fallback when $SHELL is gone), the folder, the size, and the
// environment a terminal program expects. Shared by the local pty and the session holder paths.
import { randomUUID } from 'node:crypto';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { CursorShape } from '../common/terminalModes';

const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;
/** Scrollback lines kept per session unless settings say otherwise: about 1.5 MB of text at 150 columns. */
export const DEFAULT_SCROLLBACK = 10_000;
/** Grace between SIGHUP and SIGKILL when a session is disposed: long enough for a shell or an
 *  agent to save state on hang-up, short enough that closing a tab never leaves a process. */
export const KILL_GRACE_MS = 2000;

export interface SpawnOptions {
  /** Omitted → the user's login shell ($SHELL -l, fallback /bin/sh). */
  argv?: string[];
  cwd: string;
  /** Merged over baseEnv; TERM/COLORTERM/TERMIO_SESSION are always set. */
  env?: Record<string, string>;
  /** The environment to start from instead of process.env (the login shell's, for a GUI-launched app). */
  baseEnv?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** Scrollback lines; default 10,000. */
  scrollback?: number;
  /** TERMIO_SESSION value; default a fresh UUID. */
  id?: string;
  /** Bytes for Shift+Enter when the app enabled no extended keyboard mode (default ESC CR). */
  shiftEnter?: string;
  /** Cursor shape and blink until the application sets its own (DECSCUSR). */
  cursorShape?: CursorShape;
  cursorBlink?: boolean;
}

export type LaunchError = { kind: 'launchError'; message: string; command: string };

/** Variables that describe the terminal Termio itself runs in, which would mislead the child. */
const INHERITED_TERMINAL_VARS = [
  'COLUMNS',
  'LINES',
  'TERMCAP',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'VTE_VERSION',
  'KITTY_WINDOW_ID',
  'ITERM_SESSION_ID',
  'WT_SESSION',
  'VSCODE_INJECTION',
];

function launchError(command: string, message: string): LaunchError {
  return { kind: 'launchError', message, command };
}

function findExecutable(command: string, cwd: string, env: Record<string, string>): string | null {
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

function buildEnv(opts: SpawnOptions, id: string): Record<string, string> {
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

/** A checked launch: what to exec, where, with which environment and size. */
export interface ResolvedLaunch {
  id: string;
  file: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

export function resolveLaunch(opts: SpawnOptions): ResolvedLaunch | LaunchError {
  const id = opts.id ?? randomUUID();
  const env = buildEnv(opts, id);
  const argv = opts.argv && opts.argv.length > 0 ? [...opts.argv] : [env.SHELL || '/bin/sh', '-l'];
  const command = argv[0]!;
  const cwd = resolve(opts.cwd);
  try {
    if (!statSync(cwd).isDirectory()) return launchError(command, `working directory ${cwd} is not a directory`);
  } catch {
    return launchError(command, `working directory ${cwd} does not exist`);
  }
  let file = findExecutable(command, cwd, env);
  if (!file && !opts.argv?.length && command !== '/bin/sh') {
    // $SHELL points at a shell that is gone: fall back rather than leave the user without one.
    argv[0] = '/bin/sh';
    file = findExecutable('/bin/sh', cwd, env);
  }
  if (!file) return launchError(command, `command not found or not executable: ${command}`);
  const cols = opts.cols ?? DEFAULT_COLS;
  const rows = opts.rows ?? DEFAULT_ROWS;
  if (!(cols > 0 && rows > 0)) throw new Error(`Session.spawn: bad size ${cols}x${rows}`);
  return { id, file, argv, cwd, env, cols, rows };
}
