// The rule for a discovered record its agent wrote and closed (ATP's `json` format is a standalone
// metadata file nobody holds open): a tab binds the one new record of its folder when no other
// process of that agent runs in that folder, neither when the record appeared nor now. Another
// tab, another terminal, or a bound tab of the same agent in that folder could have written it,
// so then the tab waits for its hook; so it does when a process in the folder outside the tab holds
// the record open. "That agent" is known by the names its programs run as: the manifest's
// program and the tab's own agent process (`node …/bin/codex.js` runs as codex).
import { namesOfProcess, openFiles, processesInFolder, programNames, type FolderProcess } from './processTree';

export type ClosedRecordVerdict =
  | { kind: 'clear' }
  /** Another process of the agent runs (or ran when the record appeared) in the folder. */
  | { kind: 'foreign'; pid: number; names: string[] }
  /** The processes cannot be read, or the tab's agent is not known (yet): no bind. */
  | { kind: 'cannotTell'; why: string };

export interface ClosedRecordQuestion {
  folder: string;
  /** The tab's agent pid, and every process of its tree (from processTrees). */
  agentPid: number | undefined;
  tree: readonly number[] | undefined;
  /** The manifest command's program (a name or path), if it has one. */
  program?: string;
  /** The processes in the folder when the record appeared (null: could not be read then). */
  seenWithRecord: FolderProcess[] | null;
  /** The record's real path: a process in the folder outside the tab holding it open wrote it. */
  recordPath: string;
}

/** The names the tab's agent runs as: its manifest program's and its running process's. */
export function agentNames(agentPid: number, program: string | undefined): Set<string> {
  return new Set([...(program ? programNames([program]) : []), ...(namesOfProcess(agentPid) ?? [])]);
}

/** Whether a record written and closed in the folder can only be the tab's. */
export function judgeClosedRecord(q: ClosedRecordQuestion): ClosedRecordVerdict {
  if (q.agentPid === undefined || !q.tree?.length) return { kind: 'cannotTell', why: 'the agent is not running (yet)' };
  if (q.seenWithRecord === null) return { kind: 'cannotTell', why: 'the processes in the folder could not be read when the record appeared' };
  const now = processesInFolder(q.folder);
  if (now === null) return { kind: 'cannotTell', why: 'the processes in the folder cannot be read' };
  const names = agentNames(q.agentPid, q.program);
  if (names.size === 0) return { kind: 'cannotTell', why: "the agent's program names cannot be read" };
  const mine = new Set(q.tree);
  const outside = now.filter((p) => !mine.has(p.pid));
  const foreign =
    [...q.seenWithRecord.filter((p) => !mine.has(p.pid)), ...outside].find((p) => p.names.some((n) => names.has(n))) ??
    outside.find((p) => openFiles([p.pid])?.has(q.recordPath));
  return foreign ? { kind: 'foreign', pid: foreign.pid, names: foreign.names } : { kind: 'clear' };
}
