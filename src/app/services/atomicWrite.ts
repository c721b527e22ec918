// The one way Termio writes a file it owns or edits (state, settings, agents' hook configs,
// control info, the hook launcher): a temp file beside the target, written and fsynced, renamed
// over the target, then the folder fsynced. A reader sees the old file or the new one, never half
// of one, even across a crash or a power loss. A symlinked target (a settings.json kept in a
// dotfiles repo) is written where it points, so the link stays a link; the file keeps its mode.
// Own module rather than write-file-atomic: that one is async-first (the state store must also
// write synchronously while the app quits) and pulls in signal-exit for a cleanup we do on start.
// The async form is for files too large to write on the event loop.
import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

export interface AtomicWriteOptions {
  /** Mode of a file that does not exist yet (an existing file keeps its own). Default 0o644. */
  mode?: number;
  /** Force this mode even on an existing file (secrets: 0o600 whatever the file had). */
  forceMode?: boolean;
  /** false: skip the fsyncs. Still atomic against a crash of this process (the kernel has the
   *  data); only a power loss may lose the new file. For files worthless after a reboot anyway.
   *  Default true. */
  durable?: boolean;
}

/** Symlinks followed when resolving a dangling link's target; a longer chain is a loop. */
const MAX_SYMLINK_HOPS = 40;

/** The temp file's name for a target: `<target>.tmp-<pid>`, which startup clean-ups look for. */
export function tempFileFor(target: string): string {
  return `${target}.tmp-${process.pid}`;
}

/**
 * Where a write to `file` must land: the file itself, or, when it is a symlink, the file at the
 * end of the chain (which may not exist yet: a dangling link is written through, not replaced).
 */
export function writeTarget(file: string): string {
  let path = resolve(file);
  for (let hops = 0; hops < MAX_SYMLINK_HOPS; hops++) {
    let isLink: boolean;
    try {
      isLink = lstatSync(path).isSymbolicLink();
    } catch {
      return path; // Absent: written as a new file here.
    }
    if (!isLink) return path;
    path = resolve(dirname(path), readlinkSync(path));
  }
  throw new Error(`${file}: too many levels of symbolic links`);
}

/** Where and with which mode a write to `file` goes, its folder made. */
function prepare(file: string, opts: AtomicWriteOptions): { target: string; dir: string; mode: number; tmp: string } {
  const target = writeTarget(file);
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true });
  let mode = opts.mode ?? 0o644;
  if (!opts.forceMode) {
    try {
      mode = statSync(target).mode & 0o7777;
    } catch {
      // A new file: the requested mode.
    }
  }
  return { target, dir, mode, tmp: tempFileFor(target) };
}

/** Writes `data` to `file` atomically (see the module header). Throws the fs error on failure; the old file is then intact. */
export function writeFileAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const { target, dir, mode, tmp } = prepare(file, opts);
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    const fd = openSync(tmp, 'w', mode);
    try {
      // The umask may have narrowed the mode at open; the file must end with exactly this one.
      chmodSync(tmp, mode);
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      if (opts.durable !== false) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  if (opts.durable !== false) syncDir(dir);
}

/** writeFileAtomic for large files the event loop must not wait on (a checkpoint's screen): the
 *  chunks are written, synced and renamed off the loop. Resolving the target and, when durable,
 *  the folder's fsync stay synchronous: a few metadata calls, whatever the size. */
export async function writeFileAtomicAsync(file: string, chunks: Uint8Array[], opts: AtomicWriteOptions = {}): Promise<void> {
  const { target, dir, mode, tmp } = prepare(file, opts);
  try {
    const fh = await open(tmp, 'w', mode);
    try {
      await fh.chmod(mode);
      await fh.writev(chunks);
      if (opts.durable !== false) await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  if (opts.durable !== false) syncDir(dir);
}

/** Makes a rename in `dir` durable across a power loss; not every platform lets a folder be fsynced. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Best effort: the rename itself is still atomic.
  }
}
