// Whether this host runs its sessions on session holders (native/termio-holder) and where they
// live: the binary this build ships, the 0700 folder of their sockets (run/holders, or a short
// per-user folder under /tmp when that path is too long for a socket), the checkpoint folder in
// state/, and the log their diagnostics go to. Without a holder (no C compiler when Termio was
// set up, TERMIO_HOLDERS=0, or no safe folder short enough) sessions run on the host's own ptys as
// before, and end with it; `termio host status` says which it is.
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, closeSync, constants as fsConstants, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installPath } from '../../services/install';
import type { TermioPaths } from '../../services/paths';

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
  { available: true; binary: string; socketDir: string; checkpointDir: string; logFile: string; tapDir?: string } | { available: false; reason: string };

export function holderBinary(): string {
  return installPath('native', 'termio-holder', 'build', 'termio-holder');
}

export function holderSocketDir(paths: TermioPaths): string {
  return join(paths.runDir, 'holders');
}

/** Where sockets go when run/holders is too deep: always /tmp (short on every system; macOS's
 *  per-user TMPDIR alone is about 50 bytes), a folder of this user's, one per Termio home. */
const SHORT_ROOT = '/tmp';
/** Hex digits of the home's hash that name its folder: 48 bits, no clash between a user's homes. */
const HOME_HASH_DIGITS = 12;

export function shortSocketDir(paths: TermioPaths, uid: number = process.getuid?.() ?? 0): string {
  const home = createHash('sha256').update(resolve(paths.home)).digest('hex').slice(0, HOME_HASH_DIGITS);
  return join(SHORT_ROOT, `termio-${uid}`, home);
}

/** A folder for sockets that only this user can reach: made 0700 if absent; refused (with the
 *  reason) if it is a symlink, not a folder, or another user's (anyone may create names in /tmp). */
function ownPrivateDir(dir: string, uid: number): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    return `cannot make ${dir}: ${(e as Error).message}`;
  }
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) return `${dir} is not a folder`;
  if (st.uid !== uid) return `${dir} belongs to another user (uid ${st.uid})`;
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
  return null;
}

/** The folder for the holders' sockets: run/holders when its paths fit, else the short one under /tmp. */
function socketDirFor(paths: TermioPaths, uid: number): { dir: string } | { problem: string } {
  const fits = (d: string): boolean => d.length + 1 + SOCKET_NAME_LENGTH <= MAX_SOCKET_PATH;
  const inRun = holderSocketDir(paths);
  if (fits(inRun)) return { dir: inRun };
  const short = shortSocketDir(paths, uid);
  if (!fits(short)) return { problem: `the run folder's path is too long for a socket (${inRun}), and so is ${short}` };
  const problem = ownPrivateDir(join(short, '..'), uid) ?? ownPrivateDir(short, uid);
  return problem ? { problem: `the run folder's path is too long for a socket (${inRun}), and its short stand-in is unsafe: ${problem}` } : { dir: short };
}

export function checkpointDir(paths: TermioPaths): string {
  return join(paths.stateDir, 'checkpoints');
}

/** Decides once at host start; the answer holds for every session this host starts. A home too
 *  deep for socket paths gets its short folder under /tmp made (or checked) here. */
export function holderAvailability(paths: TermioPaths, env: NodeJS.ProcessEnv = process.env, uid: number = process.getuid?.() ?? 0): HolderAvailability {
  if (env[HOLDERS_ENV] === '0') return { available: false, reason: `turned off (${HOLDERS_ENV}=0)` };
  const binary = holderBinary();
  try {
    accessSync(binary, fsConstants.X_OK);
  } catch {
    return { available: false, reason: `${binary} is not built (a C compiler is needed when Termio is set up)` };
  }
  const where = socketDirFor(paths, uid);
  if ('problem' in where) return { available: false, reason: where.problem };
  const socketDir = where.dir;
  const tapDir = env[HOLDER_TAP_ENV];
  return { available: true, binary, socketDir, checkpointDir: checkpointDir(paths), logFile: join(paths.logsDir, 'holder.log'), tapDir: tapDir || undefined };
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
