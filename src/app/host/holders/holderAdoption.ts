// A new host's first job when holders are available: find the holders a previous host left in
// run/holders (after a crash, a restart or an update), reach each one, and carry its session on
// from its checkpoint plus the holder's bytes since; and bring back the tabs of programs that had
// finished, from the checkpoint taken at their exit. A socket nobody answers on is a holder that
// is gone (the machine restarted): it and its checkpoint are removed, and the session comes back
// through resume as before.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HolderSource, type Session } from '../../../terminal/node';
import { readCheckpoint, removeCheckpoint, type CheckpointRecord } from './checkpointFile';
import type { HolderAvailability } from './holders';
import type { Logger } from '../../services/log';

/** Holders reached at once: enough that 50 adopt in a few round trips, few enough that a host
 *  with hundreds does not open them all in one go. */
const CONNECT_PARALLEL = 16;

export interface Adopted {
  session: Session;
  /** Resolves once the holder's bytes since the checkpoint are parsed: the screen is back. */
  caughtUp: Promise<void>;
}

type FinishedCheckpoint = CheckpointRecord & { exited: NonNullable<CheckpointRecord['exited']> };

/** A session found at start: held (its holder reached, its checkpoint if it has one) or finished. */
type Found = { source: HolderSource; record: CheckpointRecord | null } | { source: null; record: FinishedCheckpoint };

export interface AdoptionResult {
  adopted: Adopted[];
  problems: string[];
}

/** Resolves once the session has parsed the stream up to the holder's end at adoption. */
function caughtUp(session: Session, end: number): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      if (session.streamOffset < end && !session.exited) return false;
      void session.whenParsed().then(resolve);
      return true;
    };
    if (check()) return;
    const sub = session.onOutput(() => check() && sub.dispose());
    session.onExit(() => check() && sub.dispose());
  });
}

/** The files of a folder whose names end with `ext`, without it; none when it cannot be read. */
function idsIn(dir: string, ext: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith(ext))
      .map((n) => n.slice(0, -ext.length));
  } catch {
    return [];
  }
}

/**
 * The live holders among `ids`, reached up to CONNECT_PARALLEL at a time (a slow or silent one
 * holds up only its own slot, not a batch), each with its checkpoint, in the order of `ids`. A
 * stale socket goes with its checkpoint; a holder whose hello names processes that are not
 * provably its own is left alone.
 */
async function reachHolders(
  socketDir: string,
  checkpointDir: string,
  ids: string[],
  checkpointOf: (id: string) => CheckpointRecord | null,
  logger: Logger,
): Promise<Found[]> {
  const found: Array<Found | null> = ids.map(() => null);
  const reach = async (i: number): Promise<void> => {
    const id = ids[i]!;
    const source = await HolderSource.connect(join(socketDir, `${id}.sock`));
    if ('error' in source) {
      if (source.stale) {
        rmSync(join(socketDir, `${id}.sock`), { force: true });
        removeCheckpoint(checkpointDir, id);
      } else logger.warn('holder: not adopted', { id, error: source.error });
      return;
    }
    // Only processes provably the session's are ever signalled or ended.
    const lie = source.prove();
    if (lie !== null) {
      logger.warn('holder: not adopted', { id, error: lie });
      source.dispose();
      return;
    }
    found[i] = { source, record: checkpointOf(id) };
  };
  let next = 0;
  const slot = async (): Promise<void> => {
    while (next < ids.length) await reach(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONNECT_PARALLEL, ids.length) }, slot));
  return found.filter((f): f is Found => f !== null);
}

export async function adoptHolders(
  h: Extract<HolderAvailability, { available: true }>,
  adopt: (source: HolderSource, cp: CheckpointRecord | null) => Session,
  restoreFinished: (cp: FinishedCheckpoint) => Session,
  logger: Logger,
): Promise<AdoptionResult> {
  const ids = idsIn(h.socketDir, '.sock');
  const result: AdoptionResult = { adopted: [], problems: [] };
  /** A session's checkpoint; one that cannot be used is set aside (readCheckpoint), logged and reported. */
  const checkpointOf = (id: string): CheckpointRecord | null => {
    const cp = readCheckpoint(h.checkpointDir, id);
    if (!cp || !('problem' in cp)) return cp;
    logger.warn('holder: checkpoint set aside', { id, problem: cp.problem });
    result.problems.push(cp.problem);
    return null;
  };
  // Every holder is reached first and the sessions registered after, in the order they were
  // created: the registry lists them in the order they are added, and the socket folder's order
  // is that of their ids.
  const found = await reachHolders(h.socketDir, h.checkpointDir, ids, checkpointOf, logger);
  // Finished sessions: their holders went with their programs, and their last checkpoints (taken
  // at the exit) keep the tab, its output and its exit code until it is closed.
  const held = new Set(ids);
  for (const id of idsIn(h.checkpointDir, '.json')) {
    if (held.has(id)) continue;
    const cp = checkpointOf(id);
    if (cp?.exited) found.push({ source: null, record: { ...cp, exited: cp.exited } });
  }
  // A session without a checkpoint (its host died before writing one) has no creation time to go
  // by: it comes last, as the registry gives it one of now.
  const created = (f: Found): number => f.record?.session.createdAt ?? Number.MAX_SAFE_INTEGER;
  const adoptHeld = (source: HolderSource, record: CheckpointRecord | null): Adopted => {
    const session = adopt(source, record);
    logger.info('holder adopted', {
      id: session.id,
      pid: session.pid,
      from: record?.offset ?? 0,
      replay: source.hello.end - (record?.offset ?? 0),
      exited: source.hello.exited !== null,
    });
    return { session, caughtUp: caughtUp(session, source.hello.end) };
  };

  const restore = (cp: FinishedCheckpoint): Adopted => {
    const session = restoreFinished(cp);
    logger.info('finished session kept', { id: cp.id, exitCode: cp.exited.exitCode });
    return { session, caughtUp: session.whenParsed() };
  };
  for (const f of found.sort((a, b) => created(a) - created(b))) result.adopted.push(f.source ? adoptHeld(f.source, f.record) : restore(f.record));
  return result;
}
