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
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionState } from '../../protocol/status/sessionState';
import { engineSnapshotProblem } from '../../protocol/status/engineSnapshot';
import { writeFileAtomicAsync } from '../services/atomicWrite';
import type { SessionRecord } from './sessionRegistry';
import type { TrackerSnapshot } from './statusTracker';

export const CHECKPOINT_VERSION = 2;
/** The versions this host reads: 1 (one JSON document) and 2 (a JSON line, then the screen). */
const READABLE_VERSIONS: readonly number[] = [1, CHECKPOINT_VERSION];

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
    secret,
    ...(status ? { status } : {}),
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
  for (const k of ['offset', 'cols', 'rows'] as const) if (!Number.isSafeInteger(r[k]) || (r[k] as number) < 0) return `${k} is not a count`;
  if (!(r.screen instanceof Uint8Array)) return 'screen is not text';
  const m = r.session;
  if (typeof m !== 'object' || m === null) return 'session is missing';
  if (typeof m.cwd !== 'string' || !Array.isArray(m.argv) || !m.argv.every((a) => typeof a === 'string')) return 'session.cwd or session.argv is malformed';
  if (!STATES.includes(m.state)) return `session.state '${String(m.state)}' is not a state`;
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

/** The checkpoint of a session; null when there is none; a problem when the file is unusable
 *  (it is then renamed to <id>.json.unreadable for a person to look at). */
export function readCheckpoint(dir: string, id: string): CheckpointRecord | null | { problem: string } {
  const file = checkpointPath(dir, id);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { problem: `cannot read ${file}: ${(e as Error).message}` };
  }
  let parsed: unknown;
  let problem: string | null;
  try {
    // A JSON line and the screen after it; no line break at all: a version 1 file, one JSON
    // document (JSON.stringify never writes a raw line break).
    const nl = bytes.indexOf(0x0a);
    if (nl < 0) {
      const whole = JSON.parse(bytes.toString('utf8')) as { screen?: unknown };
      parsed = typeof whole?.screen === 'string' ? { ...whole, screen: Buffer.from(whole.screen) } : whole;
    } else parsed = { ...(JSON.parse(bytes.toString('utf8', 0, nl)) as object), screen: bytes.subarray(nl + 1) };
    problem = problemOf(parsed, id);
  } catch (e) {
    problem = `not JSON (${(e as Error).message})`;
  }
  if (problem === null) return parsed as CheckpointRecord;
  try {
    renameSync(file, `${file}.unreadable`);
  } catch {
    // Left where it is; the next write replaces it.
  }
  return { problem: `the checkpoint ${file} was set aside: ${problem}` };
}
