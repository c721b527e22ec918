// Reading a discovered record's head (src/app/host/resume/resumeDiscovery.ts): a jsonl file's first line
// or a whole json file, never more than MAX_RECORD_HEAD_BYTES, and nothing from a file that is
// compressed, of another format, too large or unreadable (each logged with why).
import { open, stat } from 'node:fs/promises';
import type { Logger } from '../../services/log';

/**
 * Most bytes read from a record: a jsonl first line or a whole json file. Codex's first line
 * carries the base instructions (tens of KB); 1 MiB is far above any real header and keeps a
 * pathological file from costing more than a millisecond or two.
 */
export const MAX_RECORD_HEAD_BYTES = 1024 * 1024;

/** Chunk for reading a jsonl head: most first lines fit in one read. */
const READ_CHUNK_BYTES = 64 * 1024;

/** The head of a record file and its time, or null (logged) for a file that is not a record
 *  to read: compressed, of another format, too large or unreadable. */
export async function readRecordHead(path: string, format: 'jsonl' | 'json', logger: Logger): Promise<{ text: string; fileTime: number } | null> {
  const lower = path.toLowerCase();
  if (/\.(zst|gz|xz|bz2|br|lz4)$/.test(lower)) {
    logger.info('discovery: skipped a compressed record', { path });
    return null;
  }
  if (!lower.endsWith(format === 'jsonl' ? '.jsonl' : '.json')) return null;
  try {
    const st = await stat(path);
    // The earlier of birth and modification: an old file moved into the store keeps an old
    // mtime (and, where the file system records it, an old birth time).
    const fileTime = st.birthtimeMs > 0 ? Math.min(st.birthtimeMs, st.mtimeMs) : st.mtimeMs;
    if (format === 'json' && st.size > MAX_RECORD_HEAD_BYTES) {
      logger.info('discovery: skipped a record that is too large', { path, bytes: st.size });
      return null;
    }
    const head = await readHead(path, format);
    if (head.kind === 'compressed') {
      logger.info('discovery: skipped a compressed record', { path });
      return null;
    }
    if (head.kind === 'tooLarge') {
      logger.info('discovery: skipped a record whose first line is too large', { path, limit: MAX_RECORD_HEAD_BYTES });
      return null;
    }
    return { text: head.text, fileTime };
  } catch (e) {
    logger.info('discovery: skipped an unreadable record', { path, error: (e as NodeJS.ErrnoException).code ?? (e as Error).message });
    return null;
  }
}

type Head = { kind: 'text'; text: string } | { kind: 'compressed' } | { kind: 'tooLarge' };

/** jsonl: bytes up to the first newline; json: the whole (size-checked) file. Never more than the limit. */
async function readHead(path: string, format: 'jsonl' | 'json'): Promise<Head> {
  const fh = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(format === 'json' ? MAX_RECORD_HEAD_BYTES + 1 : READ_CHUNK_BYTES);
      const { bytesRead } = await fh.read(buf, 0, buf.length, total);
      if (total === 0 && bytesRead >= 2 && isCompressed(buf)) return { kind: 'compressed' };
      if (bytesRead === 0) break;
      const part = buf.subarray(0, bytesRead);
      chunks.push(part);
      total += bytesRead;
      if (format === 'jsonl' && part.includes(0x0a)) break;
      if (total > MAX_RECORD_HEAD_BYTES) return { kind: 'tooLarge' };
    }
    return { kind: 'text', text: Buffer.concat(chunks).toString('utf8') };
  } finally {
    await fh.close();
  }
}

/** gzip (1f 8b) or zstd (28 b5 2f fd) magic. */
function isCompressed(b: Buffer): boolean {
  return (b[0] === 0x1f && b[1] === 0x8b) || (b[0] === 0x28 && b[1] === 0xb5 && b[2] === 0x2f && b[3] === 0xfd);
}
