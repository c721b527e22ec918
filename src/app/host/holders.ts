// Whether this host runs its sessions on session holders (native/termio-holder) and where they
// live: the binary this build ships, the 0700 folder of their sockets in run/, the checkpoint
// folder in state/, and the log their diagnostics go to. Without a holder (no C compiler when
// Termio was set up, TERMIO_HOLDERS=0, or a home whose socket paths are too long) sessions run
// on the host's own ptys as before, and end with it; `termio host status` says which it is.
import { accessSync, chmodSync, closeSync, constants as fsConstants, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { installPath } from '../shared/install';
import type { TermioPaths } from '../shared/paths';

/** Turns holders off (tests and benches that measure the path without them). */
export const HOLDERS_ENV = 'TERMIO_HOLDERS';
/** A folder where each holder also writes every byte its program wrote (<id>.bin): a diagnostic
 *  the tests compare rebuilt screens with. Never set in normal use. */
export const HOLDER_TAP_ENV = 'TERMIO_HOLDER_TAP_DIR';

/** A Unix socket path's limit: 104 bytes on macOS (108 on Linux), the terminating NUL included. */
const MAX_SOCKET_PATH = 103;
/** A session id (a UUID) and ".sock". */
const SOCKET_NAME_LENGTH = 36 + 5;

export type HolderAvailability =
  | { available: true; binary: string; socketDir: string; checkpointDir: string; logFile: string; tapDir?: string }
  | { available: false; reason: string };

export function holderBinary(): string {
  return installPath('native', 'termio-holder', 'build', 'termio-holder');
}

export function holderSocketDir(paths: TermioPaths): string {
  return join(paths.runDir, 'holders');
}

export function checkpointDir(paths: TermioPaths): string {
  return join(paths.stateDir, 'checkpoints');
}

/** Decides once at host start; the answer holds for every session this host starts. */
export function holderAvailability(paths: TermioPaths, env: NodeJS.ProcessEnv = process.env): HolderAvailability {
  if (env[HOLDERS_ENV] === '0') return { available: false, reason: `turned off (${HOLDERS_ENV}=0)` };
  const binary = holderBinary();
  try {
    accessSync(binary, fsConstants.X_OK);
  } catch {
    return { available: false, reason: `${binary} is not built (a C compiler is needed when Termio is set up)` };
  }
  const socketDir = holderSocketDir(paths);
  if (socketDir.length + 1 + SOCKET_NAME_LENGTH > MAX_SOCKET_PATH) {
    return { available: false, reason: `the run folder's path is too long for a socket (${socketDir})` };
  }
  const tapDir = env[HOLDER_TAP_ENV];
  return { available: true, binary, socketDir, checkpointDir: checkpointDir(paths), logFile: join(paths.logsDir, 'holder.log'), ...(tapDir ? { tapDir } : {}) };
}

/** Creates the holder folders (sockets: 0700, like the run folder). */
export function ensureHolderDirs(h: Extract<HolderAvailability, { available: true }>): void {
  mkdirSync(h.socketDir, { recursive: true, mode: 0o700 });
  if ((statSync(h.socketDir).mode & 0o777) !== 0o700) chmodSync(h.socketDir, 0o700);
  mkdirSync(h.checkpointDir, { recursive: true, mode: 0o700 });
}

/** The holders' stderr: appended to logs/holder.log (a descriptor the caller closes after the spawn). */
export function openHolderLog(file: string): number | undefined {
  try {
    return openSync(file, 'a', 0o600);
  } catch {
    return undefined;
  }
}

export function closeFd(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}
