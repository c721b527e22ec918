// How to start the Termio app process on this OS: plain Node on Linux (Qt is driven by our
// qode shim), NodeGUI's qode on macOS. Used by `npm start`, and by the session host when a
// notification click or `termio DIR` needs the app and none is running.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installRoot } from './install';

/** The checkout or install folder that holds dist/ and node_modules/. */
export const appRoot = installRoot;

export interface LaunchCommand {
  command: string;
  args: string[];
}

/** Inside Termio.app the app folder is Contents/Resources/app, and qode is the bundle's main
 *  executable (Contents/MacOS/qode); null outside a bundle. */
export function bundledQode(root: string): string | null {
  const m = /^(.*\.app)\/Contents\/Resources\/app\/?$/.exec(root);
  return m ? join(m[1]!, 'Contents', 'MacOS', 'qode') : null;
}

/**
 * NODE_OPTIONS without the `--require ENTRY` that qode adds for the qode.json beside it (qode
 * loads the app that way in a bundle). Left in the environment, every Node program a session
 * runs (npm-installed agents) would preload Termio's entry point. Other options are kept.
 */
export function withoutEntryPreload(nodeOptions: string | undefined, entry: string): string | undefined {
  if (nodeOptions === undefined) return undefined;
  return nodeOptions
    .replace(/(^|\s)(?:--require|-r)(?:\s+|=)(\S+)/g, (all, _lead: string, file: string) => (resolve(file) === resolve(entry) ? '' : all))
    .trim();
}

export function appLaunchCommand(extraArgs: string[] = []): LaunchCommand {
  const main = join(appRoot, 'dist', 'app', 'main.js');
  if (process.platform === 'darwin') {
    // The entry point is passed even in the bundle, where qode.json also names it: Node runs a
    // module once, so the preloaded entry is not started twice.
    const qode = bundledQode(appRoot) ?? join(appRoot, 'node_modules', '@nodegui', 'qode', 'binaries', 'qode');
    if (!existsSync(qode)) throw new Error(`qode is not installed at ${qode}: run npm start once from the checkout`);
    return { command: qode, args: [main, ...extraArgs] };
  }
  return { command: process.execPath, args: [main, ...extraArgs] };
}

/**
 * Starts the app detached (it outlives whoever started it), its early output to
 * logs/app-start.log. `focusSession`: the session it shows first (a notification click).
 */
export function startAppDetached(env: NodeJS.ProcessEnv, logsDir: string, focusSession: string | null): void {
  const cmd = appLaunchCommand();
  mkdirSync(logsDir, { recursive: true });
  const out = openSync(join(logsDir, 'app-start.log'), 'a');
  const child = spawn(cmd.command, cmd.args, {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...env, ...(focusSession ? { [FOCUS_SESSION_ENV]: focusSession } : {}) },
    cwd: env.HOME || '/',
  });
  closeSync(out);
  child.on('error', () => undefined);
  child.unref();
}

/** Set by the host when it starts the app to show one session (a notification clicked while no app ran). */
export const FOCUS_SESSION_ENV = 'TERMIO_FOCUS_SESSION';
