// Where a session's transcript is and what `termio sessions read --transcript` answers: the path
// the agent's hooks reported (manifest hooks.capturesTranscript), else the pinned record in the
// agent's store — the file itself, or resume.transcriptName inside a "dir:" record.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManifestResume } from '../../../protocol/manifestSchema';
import { findPinnedRecord } from './resumeLookup';

type Outcome = { ok: true; result: unknown } | { ok: false; code: 'noTranscript'; message: string };

/** Reads at most this much of the end of a transcript: a long conversation is megabytes, and the
 *  last lines are what a reader wants. */
const MAX_TRANSCRIPT_TAIL_BYTES = 1024 * 1024;

/** The transcript file of a pinned conversation, from the agent's store. */
export async function pinnedTranscript(resume: ManifestResume | undefined, conversationId: string | null, home: string): Promise<string | undefined> {
  if (!resume?.storeRoot || !resume.storeMatch || conversationId === null) return undefined;
  const found = await findPinnedRecord({ storeRoot: resume.storeRoot, storeMatch: resume.storeMatch }, conversationId, { home });
  if (found.kind !== 'found') return undefined;
  if (resume.storeMatch.startsWith('dir:')) return resume.transcriptName ? join(found.path, resume.transcriptName) : undefined;
  return found.path;
}

/** The `sessions.read --transcript` answer: the file's last lines (all of them up to the bound). */
export function readTranscript(id: string, file: string | undefined, lines: number | undefined, size: { cols: number; rows: number }): Outcome {
  if (!file)
    return {
      ok: false,
      code: 'noTranscript',
      message: `session ${id} has no known transcript: its agent's hooks report none (hooks.capturesTranscript) and its store holds no record of it yet`,
    };
  let text: string;
  try {
    const all = readFileSync(file);
    text = all.subarray(Math.max(0, all.length - MAX_TRANSCRIPT_TAIL_BYTES)).toString('utf8');
  } catch (e) {
    return { ok: false, code: 'noTranscript', message: `cannot read the transcript ${file}: ${(e as Error).message}` };
  }
  const all = text.split('\n').filter((l) => l.length > 0);
  return { ok: true, result: { id, lines: lines === undefined ? all : all.slice(-lines), cols: size.cols, rows: size.rows, transcript: file } };
}
