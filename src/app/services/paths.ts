// Where Termio keeps its files (docs/architecture.md, "Where state lives"). TERMIO_HOME defaults to
// ~/.termio; tests point it and HOME at temporary folders.
import { mkdirSync, chmodSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface TermioPaths {
  home: string;
  configDir: string;
  userAgentsDir: string;
  settingsFile: string;
  stateDir: string;
  sessionsFile: string;
  runDir: string;
  logsDir: string;
}

export function termioPaths(env: NodeJS.ProcessEnv = process.env): TermioPaths {
  const home = resolve(env.TERMIO_HOME || join(env.HOME || homedir(), '.termio'));
  const configDir = join(home, 'config');
  const stateDir = join(home, 'state');
  return {
    home,
    configDir,
    userAgentsDir: join(configDir, 'agents'),
    settingsFile: join(configDir, 'settings.json'),
    stateDir,
    sessionsFile: join(stateDir, 'sessions.json'),
    runDir: join(home, 'run'),
    logsDir: join(home, 'logs'),
  };
}

/** Creates the run folder with mode 0700 (sockets live there) and tightens it if it exists. */
export function ensureRunDir(paths: TermioPaths): string {
  mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
  if ((statSync(paths.runDir).mode & 0o777) !== 0o700) chmodSync(paths.runDir, 0o700);
  return paths.runDir;
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
