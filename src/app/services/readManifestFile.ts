// Reads one manifest file from disk into a validated manifest or one clear error: a folder named
// *.json, a symlink loop, an unreadable or oversized file, invalid UTF-8 are all reported as values
// naming the file. A file that changes while it is read is read again until it holds still.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { lstat } from 'node:fs/promises';
import { parseManifest, MAX_MANIFEST_CHARS, type DisabledFeature } from '../../protocol/manifestParse';
import { type Manifest } from '../../protocol/manifestSchema';
import { resolveAgentIcon } from './agentIconFile';

export interface ManifestFileResult {
  manifest?: Manifest;
  errors: string[];
  warnings: string[];
  /** Features the manifest declares in a form this version cannot use (set with manifest). */
  disabled?: DisabledFeature[];
  /** The image to draw for the agent (set with manifest). */
  iconFile?: string;
  /** The file does not exist (and is not a dangling symlink): it was deleted. */
  missing?: boolean;
}

/** Same bound as parseManifest's character limit (a file within it decodes to at most that many
 * characters); checked with fstat before reading, so a 10 MB file costs no read at all. */
export const MAX_MANIFEST_BYTES = MAX_MANIFEST_CHARS;
/** A file that changes while it is read is read again, up to this many times... */
const MAX_READ_TRIES = 5;
/** ...this far apart: an editor's save completes within tens of milliseconds. */
const RETRY_DELAY_MS = 20;

export async function readManifestFile(file: string, label: string, opts: { iconsDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ManifestFileResult> {
  const fail = (message: string): ManifestFileResult => ({ errors: [`${label}: ${message}`], warnings: [] });
  let text: string | undefined;
  for (let attempt = 0; attempt < MAX_READ_TRIES && text === undefined; attempt++) {
    const read = await readSettled(file);
    if ('problem' in read) {
      if (read.code === 'ENOENT' && !(await isSymlink(file))) return { ...fail('does not exist'), missing: true };
      return fail(read.problem);
    }
    if (!read.settled && attempt < MAX_READ_TRIES - 1) {
      await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
      continue;
    }
    const bytes = read.bytes;
    const bad = isUtf8(bytes) ? undefined : firstInvalidUtf8(bytes);
    if (bad !== undefined) return fail(`not valid UTF-8 text (byte 0x${bytes[bad]!.toString(16).padStart(2, '0')} at offset ${bad}); save the file as UTF-8`);
    text = bytes.toString('utf8');
  }
  const result = parseManifest(text ?? '', label);
  if (!result.manifest) return result;
  const icon = resolveAgentIcon(result.manifest, file, opts);
  return {
    manifest: result.manifest,
    errors: [],
    warnings: icon.warning ? [...result.warnings, `${label}: ${icon.warning}`] : result.warnings,
    disabled: result.disabled,
    iconFile: icon.file,
  };
}

type ReadOutcome = { bytes: Buffer; settled: boolean } | { problem: string; code?: string };

/**
 * Opens without blocking (a FIFO named *.json must not hang the catalog), checks what it is, reads
 * at most MAX_MANIFEST_BYTES bytes, and says whether the file was read whole. Uses the callback fs
 * API: for many small files it costs half of fs/promises' FileHandle round trips.
 */
function readSettled(file: string): Promise<ReadOutcome> {
  return new Promise((resolve) => {
    const problem = (err: unknown): ReadOutcome => ({ problem: describeFsError(err), code: (err as NodeJS.ErrnoException).code ?? '' });
    fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK, (openErr, fd) => {
      if (openErr) return resolve(problem(openErr));
      const finish = (outcome: ReadOutcome) => fs.close(fd, () => resolve(outcome));
      fs.fstat(fd, (statErr, st) => {
        if (statErr) return finish(problem(statErr));
        if (st.isDirectory()) return finish({ problem: 'is a folder, not a manifest file' });
        if (!st.isFile()) return finish({ problem: 'is not a regular file' });
        if (st.size > MAX_MANIFEST_BYTES) {
          return finish({ problem: `file is too large (${formatBytes(st.size)}); a manifest is at most ${formatBytes(MAX_MANIFEST_BYTES)}` });
        }
        // Read exactly the size fstat reported. A file that shrank meanwhile reads short and is
        // read again; one that grew is cut at the old size, but its writer's change event reloads it.
        const buf = Buffer.allocUnsafe(st.size);
        const readFrom = (offset: number) => {
          if (offset >= st.size) return finish({ bytes: buf, settled: true });
          fs.read(fd, buf, offset, st.size - offset, offset, (readErr, n) => {
            if (readErr) return finish(problem(readErr));
            if (n === 0) return finish({ bytes: buf.subarray(0, offset), settled: false });
            readFrom(offset + n);
          });
        };
        readFrom(0);
      });
    });
  });
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'is a symlink to a missing file';
    case 'ELOOP':
      return 'is a symlink loop';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    case 'EISDIR':
      return 'is a folder, not a manifest file';
    case 'ENXIO':
      return 'is a socket or device, not a manifest file';
    case 'ENAMETOOLONG':
      return 'path is too long';
    default:
      return `cannot be read (${code ?? (err as Error)?.message ?? String(err)})`;
  }
}

function formatBytes(n: number): string {
  if (n >= 1_048_576) return `${(n / 1_048_576).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} bytes`;
}

/** Offset of the first byte that is not part of well-formed UTF-8, or undefined. */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return undefined;
}

async function isSymlink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}
