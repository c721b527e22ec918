// A held session's checkpoint on disk, state/checkpoints/<id>.json (0600): the screen and
// scrollback at a stream offset, and what a new host needs to carry the session on (its agent,
// folder, command, name, parent, status, the secret its hooks prove themselves with). Written
// atomically; a file that cannot be read is reported and set aside, never trusted half-way.
//
// Since version 2 the file is one line of JSON (the record without its screen) followed by the
// screen itself, not one JSON document with the screen inside: JSON spells each escape character
// in six bytes, and encoding the 16 MB screen of a colourful scrollback that way held the host's
// loop for about 100 ms; the write itself now runs off the loop. Version 1 files (a new host
// adopting an older one's sessions) are still read.
import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_COLS, MAX_ROWS, MAX_STRING_BYTES } from '../../../protocol/hostFrameFormat';
import type { SessionState } from '../../../protocol/status/sessionState';
import { engineSnapshotProblem } from '../../../protocol/status/engineSnapshot';
import { writeFileAtomicAsync } from '../../services/atomicWrite';
import type { SessionRecord } from '../sessions/sessionRegistry';
import type { TrackerSnapshot } from '../status/statusTracker';

export const CHECKPOINT_VERSION = 2;
/** The versions this host reads: 1 (one JSON document) and 2 (a JSON line, then the screen). */
const READABLE_VERSIONS: readonly number[] = [1, CHECKPOINT_VERSION];
/** Largest checkpoint read: the screen of a full scrollback coloured per character is about
 *  16 MB; a file far past that was not written by a host, and is set aside unread. */
export const MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024;

/** What a host knows of a held session beyond its screen. */
export interface HeldSessionMeta {
  agentId: string | null;
  cwd: string;
  argv: string[];
  /** The name the user (or a spawn) gave it; null: it shows the terminal's title. */
  name: string | null;
  bypass: boolean;
  parentId: string | null;
  createdAt: number;
  state: SessionState;
  stateWhy: string;
  stateSince: number;
  /** Since when it waits for you (the attention queue); absent in checkpoints of older hosts. */
  waitingSince?: number | null;
  /** The secret in the program's environment (TERMIO_SESSION_SECRET); its hook reports carry it. */
  secret: string | null;
  /** What the status tracker knew (channels' claims, hook health); absent in checkpoints of
   *  older hosts, whose sessions then start their status afresh. */
  status?: TrackerSnapshot;
}

export interface CheckpointRecord {
  version: number;
  id: string;
  savedAt: string;
  offset: number;
  cols: number;
  rows: number;
  /** The escape sequences that rebuild the screen and scrollback, UTF-8. */
  screen: Uint8Array;
  session: HeldSessionMeta;
  /** Set on the last checkpoint, taken when the program ended: how, and which pid it had. The
   *  tab is kept (its output and exit code) until it is closed, across host restarts. */
  exited?: { exitCode: number; signal?: number; pid: number };
}

/** What a checkpoint keeps of a session of this host besides its screen. */
export function heldMetaOf(r: SessionRecord, secret: string | null, status: TrackerSnapshot | undefined): HeldSessionMeta {
  return {
    agentId: r.agentId,
    cwd: r.cwd,
    argv: r.session.argv,
    name: r.name,
    bypass: r.bypass,
    parentId: r.parentId,
    createdAt: r.createdAt,
    state: r.state,
    stateWhy: r.stateWhy,
    stateSince: r.stateSince,
    waitingSince: r.waitingSince,
    secret,
    status: status || undefined,
  };
}

export function checkpointPath(dir: string, id: string): string {
  return join(dir, `${id}.json`);
}

/** Writes a checkpoint atomically (a temp file renamed over it), the file's bytes written off the
 *  event loop. Not fsynced: a checkpoint is only of use while its holder runs, and no holder
 *  outlives a machine restart (the only loss fsync guards against); a crashed host's writes are
 *  already in the kernel. The fsyncs were most of the cost of checkpointing many sessions. */
export async function writeCheckpoint(dir: string, record: CheckpointRecord): Promise<void> {
  const { screen, ...head } = record;
  await writeFileAtomicAsync(checkpointPath(dir, record.id), [Buffer.from(`${JSON.stringify(head)}\n`), screen], {
    mode: 0o600,
    forceMode: true,
    durable: false,
  });
}

export function removeCheckpoint(dir: string, id: string): void {
  rmSync(checkpointPath(dir, id), { force: true });
}

const STATES: readonly string[] = ['idle', 'working', 'attention', 'done'];

/** What is wrong with a parsed file, or null when it is a checkpoint of session `id`. */
function problemOf(v: unknown, id: string): string | null {
  if (typeof v !== 'object' || v === null) return 'not a JSON object';
  const r = v as Partial<CheckpointRecord>;
  if (!READABLE_VERSIONS.includes(r.version as number)) return `version ${String(r.version)} (this Termio reads ${READABLE_VERSIONS.join(' and ')})`;
  if (r.id !== id) return `it names session ${String(r.id)}`;
  if (!Number.isSafeInteger(r.offset) || (r.offset as number) < 0) return 'offset is not a count';
  // A host writes the size of a screen it showed, never past these: anything else is not its file.
  for (const [k, max] of [
    ['cols', MAX_COLS],
    ['rows', MAX_ROWS],
  ] as const)
    if (!Number.isSafeInteger(r[k]) || (r[k] as number) < 1 || (r[k] as number) > max) return `${k} ${String(r[k])} is not a size from 1 to ${max}`;
  if (!(r.screen instanceof Uint8Array)) return 'screen is not text';
  const m = r.session;
  if (typeof m !== 'object' || m === null) return 'session is missing';
  if (typeof m.cwd !== 'string' || !Array.isArray(m.argv) || !m.argv.every((a) => typeof a === 'string')) return 'session.cwd or session.argv is malformed';
  if (!STATES.includes(m.state)) return `session.state '${String(m.state)}' is not a state`;
  // The order a new host lists the sessions in.
  if (!Number.isSafeInteger(m.createdAt)) return `session.createdAt ${String(m.createdAt)} is not a time in ms`;
  if (m.name !== null && m.name !== undefined && (typeof m.name !== 'string' || Buffer.byteLength(m.name) > MAX_STRING_BYTES))
    return `session.name is not a name of at most ${MAX_STRING_BYTES} bytes`;
  if (m.waitingSince !== undefined && m.waitingSince !== null && !Number.isSafeInteger(m.waitingSince))
    return `session.waitingSince ${String(m.waitingSince)} is not a time in ms`;
  if (r.exited !== undefined) {
    const x = r.exited as Partial<NonNullable<CheckpointRecord['exited']>> | null;
    if (
      typeof x !== 'object' ||
      x === null ||
      !Number.isSafeInteger(x.exitCode) ||
      !Number.isSafeInteger(x.pid) ||
      (x.signal !== undefined && !Number.isSafeInteger(x.signal))
    )
      return 'exited is not an exit status';
  }
  return m.status === undefined ? null : statusProblem(m.status);
}

function statusProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null) return 'session.status is not an object';
  const t = v as Partial<TrackerSnapshot>;
  if (!Number.isSafeInteger(t.workReports) || (t.agentRunner !== null && !Number.isSafeInteger(t.agentRunner)))
    return 'session.status.workReports or agentRunner is not a count';
  const p = engineSnapshotProblem(t.engine);
  return p ? `session.status.engine: ${p}` : null;
}

/** A checkpoint file's bytes as the record of session `id`, or what is wrong with them. */
function parseCheckpoint(bytes: Buffer, id: string): CheckpointRecord | string {
  let parsed: unknown;
  try {
    // A JSON line and the screen after it; no line break at all: a version 1 file, one JSON
    // document (JSON.stringify never writes a raw line break).
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) {
      const whole = JSON.parse(bytes.toString('utf8')) as { screen?: unknown };
      parsed = typeof whole?.screen === 'string' ? { ...whole, screen: Buffer.from(whole.screen) } : whole;
    } else parsed = { ...(JSON.parse(bytes.toString('utf8', 0, nl)) as object), screen: bytes.subarray(nl + 1) };
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  return problemOf(parsed, id) ?? (parsed as CheckpointRecord);
}

/** The file's bytes, or only its size when that is past MAX_CHECKPOINT_BYTES (never read whole). */
function readBounded(file: string): Buffer | { size: number } {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_CHECKPOINT_BYTES) return { size };
    const buf = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buf, at, size - at, null);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** The checkpoint of a session; null when there is none; a problem when the file is unusable
 *  (it is then renamed to <id>.json.unreadable for a person to look at). */
export function readCheckpoint(dir: string, id: string): CheckpointRecord | null | { problem: string } {
  const file = checkpointPath(dir, id);
  let bytes: Buffer | { size: number };
  try {
    bytes = readBounded(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `cannot read ${file}: ${(e as Error).message}` };
  }
  const read = Buffer.isBuffer(bytes) ? parseCheckpoint(bytes, id) : `${bytes.size} bytes, more than ${MAX_CHECKPOINT_BYTES}`;
  if (typeof read !== 'string') return read;
  try {
    renameSync(file, `${file}.unreadable`);
  } catch {
    // Left where it is; the next write replaces it.
  }
  return { problem: `the checkpoint ${file} was set aside: ${read}` };
}
