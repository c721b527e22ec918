// Where agent commands are looked up and what they run with: the PATH and the exported
// environment of the user's login shell (a dock-launched macOS app gets launchd's minimal one),
// asked with a timeout and cached until one of the shells' start-up files changes, and a
// resolver that finds a command on that PATH without stat-ing every folder for every agent.
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

/** A login shell that sources slow dotfiles still answers within a second or two; 5 s caps a hung one. */
export const LOGIN_SHELL_TIMEOUT_MS = 5000;
/** Markers around the PATH in the shell's output, so banners or prompts printed by dotfiles are skipped. */
const START = '__TERMIO_PATH_START__';
const END = '__TERMIO_PATH_END__';
const ENV_START = '__TERMIO_ENV_START__';
const ENV_END = '__TERMIO_ENV_END__';
/** The shell's own bookkeeping, not what its profile exported: each session's shell sets its own. */
const SHELL_LOCAL_VARS = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);

export interface LoginShellPath {
  path: string;
  /** 'login-shell' when the shell answered; 'environment' when it failed and process PATH is used. */
  source: 'login-shell' | 'environment';
  /** Why the shell could not be asked (only when source is 'environment'). */
  problem?: string;
}

export interface LoginShellEnv extends LoginShellPath {
  /** Everything the login shell exports (its PATH included); the environment's own when it failed. */
  vars: Record<string, string>;
}

/** One answer per shell and home (tests use several of each in one process), with the state of
 *  the start-up files it was asked with. */
const cache = new Map<string, { files: string; answer: Promise<LoginShellEnv> }>();
const cacheKey = (env: NodeJS.ProcessEnv): string => `${env.SHELL || '/bin/sh'}\u0000${env.HOME ?? ''}`;

/**
 * What a login shell of the common shells (sh, bash, zsh, fish) reads as it starts, system-wide
 * and the user's, including macOS's path_helper lists. A file one of these sources in turn is
 * not looked at: editing only that one needs a host restart to reach new sessions.
 */
function shellStartupFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const zdot = env.ZDOTDIR || home;
  const config = env.XDG_CONFIG_HOME || join(home, '.config');
  return [
    '/etc/profile',
    '/etc/profile.d',
    '/etc/paths',
    '/etc/paths.d',
    '/etc/zshenv',
    '/etc/zprofile',
    '/etc/zshrc',
    '/etc/zlogin',
    '/etc/zsh/zshenv',
    '/etc/zsh/zprofile',
    '/etc/zsh/zshrc',
    '/etc/bash.bashrc',
    '/etc/bashrc',
    join(home, '.profile'),
    join(home, '.bash_profile'),
    join(home, '.bash_login'),
    join(home, '.bashrc'),
    join(zdot, '.zshenv'),
    join(zdot, '.zprofile'),
    join(zdot, '.zshrc'),
    join(zdot, '.zlogin'),
    join(config, 'fish', 'config.fish'),
    join(config, 'fish', 'conf.d'),
  ];
}

/** The start-up files' state (modified time and size; '-' for one that is not there): a change
 *  means the shell may export something else now. A few dozen stats, well under a millisecond. */
function startupFilesState(env: NodeJS.ProcessEnv): string {
  return shellStartupFiles(env)
    .map((f) => {
      try {
        const st = statSync(f);
        return `${st.mtimeMs}:${st.size}`;
      } catch {
        return '-';
      }
    })
    .join(' ');
}

/**
 * Asks `$SHELL -l -i -c` for its PATH and exported variables, once per shell for as long as its
 * start-up files stay as they were: after the user edits ~/.zshrc (an API key, a folder on PATH),
 * the next call asks again, as a new terminal tab would read them again. The shell runs detached
 * (no controlling terminal, so an interactive shell cannot grab ours) with stdin closed. Any
 * failure falls back to the given environment, with the reason.
 */
export function loginShellEnv(env: NodeJS.ProcessEnv = process.env, timeoutMs = LOGIN_SHELL_TIMEOUT_MS): Promise<LoginShellEnv> {
  const key = cacheKey(env);
  const files = startupFilesState(env);
  const cached = cache.get(key);
  if (cached?.files === files) return cached.answer;
  const answer = askShell(env.SHELL || '/bin/sh', env, timeoutMs);
  cache.set(key, { files, answer });
  return answer;
}

/** The login shell's PATH alone (from the same answer as loginShellEnv). */
export async function loginShellPath(env: NodeJS.ProcessEnv = process.env, timeoutMs = LOGIN_SHELL_TIMEOUT_MS): Promise<LoginShellPath> {
  const { path, source, problem } = await loginShellEnv(env, timeoutMs);
  return problem === undefined ? { path, source } : { path, source, problem };
}

/**
 * Parses `env` output: one NAME=value per line, where a line that does not start a new
 * NAME= continues the previous value (a value with newlines in it).
 */
export function parseEnvOutput(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  let last: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(line);
    if (m) {
      last = m[1]!;
      vars[last] = m[2]!;
    } else if (last !== null) vars[last] += `\n${line}`;
  }
  for (const k of SHELL_LOCAL_VARS) delete vars[k];
  return vars;
}

function envVars(env: NodeJS.ProcessEnv): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) vars[k] = v;
  return vars;
}

/** Forgets cached answers (tests). */
export function clearLoginShellPathCache(): void {
  cache.clear();
}

function askShell(shell: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<LoginShellEnv> {
  const fallback = (problem: string): LoginShellEnv => ({ path: env.PATH ?? '', vars: envVars(env), source: 'environment', problem });
  return new Promise((resolve) => {
    let out = '';
    let done = false;
    const finish = (result: LoginShellEnv) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child: ReturnType<typeof spawn>;
    try {
      // env's output ends with a newline, so the end marker starts its own line.
      const script = `printf '%s%s%s' '${START}' "$PATH" '${END}'; printf '%s\\n' '${ENV_START}'; env; printf '%s' '${ENV_END}'`;
      child = spawn(shell, ['-l', '-i', '-c', script], {
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (err) {
      resolve(fallback(`cannot start ${shell}: ${(err as Error).message}`));
      return;
    }
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      finish(fallback(`${shell} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', (err) => finish(fallback(`cannot start ${shell}: ${err.message}`)));
    child.on('close', (code) => {
      const start = out.indexOf(START);
      const end = out.indexOf(END, start + START.length);
      if (start >= 0 && end > start) {
        const path = out.slice(start + START.length, end);
        const envStart = out.indexOf(`${ENV_START}\n`, end);
        const envEnd = out.indexOf(`\n${ENV_END}`, envStart);
        // A shell whose env printed nothing usable still gave its PATH.
        const vars = envStart >= 0 && envEnd > envStart ? parseEnvOutput(out.slice(envStart + ENV_START.length + 1, envEnd)) : envVars(env);
        finish({ path, vars: { ...vars, PATH: path }, source: 'login-shell' });
      } else finish(fallback(`${shell} exited with ${code} without printing its PATH`));
    });
  });
}

export interface CommandResolver {
  /** The absolute path of an executable for command, or undefined when it is not installed. */
  resolve(command: string): string | undefined;
}

/**
 * Resolves commands on pathValue. Each PATH folder is listed once (on first use), so resolving
 * 200 agents costs a few readdirs instead of 200 × |PATH| stats. A command with a "/" (or "~/")
 * is checked as a path.
 */
export function createCommandResolver(pathValue: string, env: NodeJS.ProcessEnv = process.env): CommandResolver {
  const home = env.HOME || homedir();
  const dirs = [...new Set(pathValue.split(delimiter).filter((d) => d && isAbsolute(d)))];
  const listings = new Map<string, Set<string> | null>();
  const listing = (dir: string): Set<string> | null => {
    let names = listings.get(dir);
    if (names === undefined) {
      try {
        names = new Set(readdirSync(dir));
      } catch {
        names = null;
      }
      listings.set(dir, names);
    }
    return names;
  };
  return {
    resolve(command: string): string | undefined {
      if (command.startsWith('~/')) return executable(join(home, command.slice(2)));
      if (command.includes('/')) return isAbsolute(command) ? executable(command) : undefined;
      for (const dir of dirs) {
        if (!listing(dir)?.has(command)) continue;
        const found = executable(join(dir, command));
        if (found) return found;
      }
      return undefined;
    },
  };
}

function executable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return undefined;
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return undefined;
  }
}
