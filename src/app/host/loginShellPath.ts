// Where agent commands are looked up: the PATH of the user's login shell (a dock-launched macOS
// app does not inherit it), asked once with a timeout and cached, and a resolver that finds a
// command on that PATH without stat-ing every folder for every agent.
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

/** A login shell that sources slow dotfiles still answers within a second or two; 5 s caps a hung one. */
export const LOGIN_SHELL_TIMEOUT_MS = 5000;
/** Markers around the PATH in the shell's output, so banners or prompts printed by dotfiles are skipped. */
const START = '__TERMIO_PATH_START__';
const END = '__TERMIO_PATH_END__';

export interface LoginShellPath {
  path: string;
  /** 'login-shell' when the shell answered; 'environment' when it failed and process PATH is used. */
  source: 'login-shell' | 'environment';
  /** Why the shell could not be asked (only when source is 'environment'). */
  problem?: string;
}

const cache = new Map<string, Promise<LoginShellPath>>();

/**
 * Asks `$SHELL -l -i -c` for its PATH once per shell (cached for the process). The shell runs
 * detached (no controlling terminal, so an interactive shell cannot grab ours) with stdin closed.
 * Any failure falls back to the environment's PATH, with the reason.
 */
export function loginShellPath(env: NodeJS.ProcessEnv = process.env, timeoutMs = LOGIN_SHELL_TIMEOUT_MS): Promise<LoginShellPath> {
  const shell = env.SHELL || '/bin/sh';
  const key = `${shell}\u0000${env.HOME ?? ''}`;
  let pending = cache.get(key);
  if (!pending) {
    pending = askShell(shell, env, timeoutMs);
    cache.set(key, pending);
  }
  return pending;
}

/** Forgets cached answers (tests; or after the user edits their dotfiles). */
export function clearLoginShellPathCache(): void {
  cache.clear();
}

function askShell(shell: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<LoginShellPath> {
  const fallback = (problem: string): LoginShellPath => ({ path: env.PATH ?? '', source: 'environment', problem });
  return new Promise((resolve) => {
    let out = '';
    let done = false;
    const finish = (result: LoginShellPath) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(shell, ['-l', '-i', '-c', `printf '%s%s%s' '${START}' "$PATH" '${END}'`], {
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
      if (start >= 0 && end > start) finish({ path: out.slice(start + START.length, end), source: 'login-shell' });
      else finish(fallback(`${shell} exited with ${code} without printing its PATH`));
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
