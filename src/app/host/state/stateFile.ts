// Reading $TERMIO_HOME/state/sessions.json: its shape, the migrations from older versions, and the
// repair of damaged entries and references (what happens to each kind of damage is described in
// stateStore.ts). A file that cannot be used is moved aside and reported; reading never throws
// for anything a file on disk can contain.
import { readFileSync, renameSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import * as z from 'zod';
import type { Logger } from '../../services/log';

export const STATE_VERSION = 1;

/** A state file larger than this is not a Termio state (20 sessions are ~6 KB; 8 MiB holds thousands). */
export const MAX_STATE_BYTES = 8 * 1024 * 1024;

const SavedSessionSchema = z.looseObject({
  id: z.string().min(1),
  agentId: z.string().min(1),
  cwd: z.string().min(1),
  title: z.string().default(''),
  conversationId: z.string().min(1).nullable().default(null),
  family: z.enum(['pinned', 'discovered']).nullable().default(null),
  bypass: z.boolean().default(false),
  createdAt: z.string().min(1),
});

const WindowRecordSchema = z.looseObject({
  id: z.string().min(1),
  tabs: z.array(z.string()).default([]),
  activeTab: z.string().nullable().default(null),
});

const FileSchema = z.looseObject({
  version: z.literal(STATE_VERSION),
  windows: z.array(z.unknown()),
  sessions: z.array(z.unknown()),
  unreadable: z.array(z.unknown()).default([]),
});

export type SavedSession = z.infer<typeof SavedSessionSchema>;
export type WindowRecord = z.infer<typeof WindowRecordSchema>;
/** A session entry that could not be read; kept verbatim so a later version (or a human) can recover it. */
export interface UnreadableEntry {
  entry: unknown;
  reason: string;
}
export interface TermioState {
  version: typeof STATE_VERSION;
  windows: WindowRecord[];
  sessions: SavedSession[];
  unreadable: UnreadableEntry[];
  [unknownField: string]: unknown;
}

export type StateProblem = {
  kind: 'stateCorrupt' | 'stateUnreadable' | 'stateTooNew';
  file: string;
  /** Where the file was moved; null when it could not be moved (then the store never writes). */
  movedTo: string | null;
  message: string;
};

/**
 * Migrations from older file versions, keyed by the version they read. Each returns the next
 * version's shape. A file without a version field is version 0.
 */
export const STATE_MIGRATIONS: Record<number, (old: Record<string, unknown>) => Record<string, unknown>> = {
  // v0 (hypothetical, shows the path): { tabs: [{ agent, cwd, title?, conversation?, yolo?, created? }] },
  // one implicit window, no session ids.
  0: (old) => {
    const tabs = Array.isArray(old.tabs) ? old.tabs : [];
    const sessions = tabs.map((t: unknown, i: number) => {
      const tab = (t && typeof t === 'object' ? t : {}) as Record<string, unknown>;
      const { agent, conversation, yolo, created, ...rest } = tab;
      return {
        ...rest,
        id: `migrated-${i + 1}`,
        agentId: agent,
        conversationId: conversation ?? null,
        family: null,
        bypass: yolo === true,
        createdAt: typeof created === 'string' ? created : new Date(0).toISOString(),
      };
    });
    return { version: 1, windows: [{ id: 'window-1', tabs: sessions.map((s) => s.id), activeTab: null }], sessions };
  },
};

export function emptyState(): TermioState {
  return { version: STATE_VERSION, windows: [], sessions: [], unreadable: [] };
}

/** What loadState found: the state to run with, and whether the store may and should write it. */
export interface LoadedState {
  state: TermioState;
  problem: StateProblem | null;
  warnings: string[];
  /** The file could not be read nor moved aside: writing would destroy it. */
  readOnly: boolean;
  /** The state was migrated or repaired: writing it back makes the file match what runs. */
  rewrite: boolean;
}

/** Why a file is not used: its problem kind, the suffix of the name it is moved to, and the reason. */
interface Refusal {
  refused: StateProblem['kind'];
  suffix: string;
  why: string;
}

const refuse = (kind: StateProblem['kind'], why: string, suffix = 'corrupt'): Refusal => ({ refused: kind, suffix, why });
const isRefusal = (v: unknown): v is Refusal => typeof v === 'object' && v !== null && 'refused' in v;
const stamp = (d: Date) => d.toISOString().replace(/[:.]/g, '-');

/** Reads, migrates and repairs the state file; a missing file is an empty state. */
export function loadState(file: string, now: () => Date, logger: Logger): LoadedState {
  const text = readStateText(file);
  if (text === null) return freshState(null);
  const obj = isRefusal(text) ? text : parseStateObject(text);
  const migrated = isRefusal(obj) ? obj : migrateState(obj);
  if (isRefusal(migrated)) return moveAside(file, migrated, now(), logger);
  const top = FileSchema.safeParse(migrated.state);
  if (!top.success) {
    return moveAside(file, refuse('stateCorrupt', `does not have the shape of a Termio state (${oneLine(top.error)})`), now(), logger);
  }
  const { state, warnings } = repair(top.data as unknown as StateFileBody);
  if (migrated.from < STATE_VERSION) logger.info('state: migrated', { file, to: STATE_VERSION });
  return { state, problem: null, warnings, readOnly: false, rewrite: migrated.from < STATE_VERSION || warnings.length > 0 };
}

function freshState(problem: StateProblem | null, readOnly = false): LoadedState {
  return { state: emptyState(), problem, warnings: [], readOnly, rewrite: false };
}

/** The file's text; null when there is no file. */
function readStateText(file: string): string | null | Refusal {
  try {
    const st = statSync(file);
    if (!st.isFile()) return refuse('stateUnreadable', 'is not a regular file');
    if (st.size > MAX_STATE_BYTES) return refuse('stateCorrupt', `is ${st.size} bytes, larger than any Termio state (${MAX_STATE_BYTES})`);
    return readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') return null;
    return refuse('stateUnreadable', `could not be read (${err.code ?? err.message})`);
  }
}

function parseStateObject(text: string): Record<string, unknown> | Refusal {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return refuse('stateCorrupt', `is not valid JSON (${(e as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return refuse('stateCorrupt', 'does not hold a JSON object');
  return raw as Record<string, unknown>;
}

/** Runs the migrations from the file's version up to STATE_VERSION. */
function migrateState(obj: Record<string, unknown>): { state: Record<string, unknown>; from: number } | Refusal {
  let version = obj.version === undefined ? 0 : obj.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
    return refuse('stateCorrupt', `has an invalid version ${JSON.stringify(obj.version)}`);
  }
  if (version > STATE_VERSION) {
    return refuse('stateTooNew', `was written by a newer Termio (state version ${version}, this one reads ≤ ${STATE_VERSION})`, `v${version}`);
  }
  const from = version;
  let state = obj;
  try {
    while (version < STATE_VERSION) {
      const step = STATE_MIGRATIONS[version];
      if (!step) return refuse('stateCorrupt', `has version ${version}, which no migration reads`);
      state = step(state);
      version++;
    }
  } catch (e) {
    return refuse('stateCorrupt', `could not be migrated from version ${version} (${(e as Error).message})`);
  }
  return { state, from };
}

/** Renames the file to <file>.<suffix>-<time> and starts empty; read-only when it cannot be moved. */
function moveAside(file: string, r: Refusal, now: Date, logger: Logger): LoadedState {
  const target = `${file}.${r.suffix}-${stamp(now)}`;
  const kind = r.refused;
  try {
    renameSync(file, target);
    return freshState({
      kind,
      file,
      movedTo: target,
      message: `${file} ${r.why}; it was moved to ${basename(target)} and Termio started with no saved sessions.`,
    });
  } catch (e) {
    logger.error('state: could not move the file aside', { file, error: (e as Error).message });
    return freshState(
      {
        kind,
        file,
        movedTo: null,
        message: `${file} ${r.why} and could not be moved aside (${(e as Error).message}); Termio started with no saved sessions and will not write over it.`,
      },
      true,
    );
  }
}

function oneLine(error: z.ZodError): string {
  return z.prettifyError(error).replace(/\n/g, ' ');
}

type StateFileBody = { windows: unknown[]; sessions: unknown[]; unreadable: unknown[] } & Record<string, unknown>;

/** Validates entries one by one and fixes references; see stateStore.ts for what happens to each kind of damage. */
function repair(file: StateFileBody): { state: TermioState; warnings: string[] } {
  const warnings: string[] = [];
  const { savedAt: _savedAt, ...rest } = file;
  const unreadable: UnreadableEntry[] = file.unreadable.map((u) =>
    u && typeof u === 'object' && 'entry' in u && 'reason' in u ? (u as UnreadableEntry) : { entry: u, reason: 'unknown' },
  );
  const sessions = readSessions(file.sessions, unreadable, warnings);
  const { windows, listed } = readWindows(file.windows, sessions, warnings);
  adoptOrphans(
    sessions.filter((s) => !listed.has(s.id)),
    windows,
    warnings,
  );
  return { state: { ...rest, version: STATE_VERSION, windows, sessions, unreadable }, warnings };
}

/** The session entries that validate, first of each id; the rest go to `unreadable`. */
function readSessions(entries: unknown[], unreadable: UnreadableEntry[], warnings: string[]): SavedSession[] {
  const sessions: SavedSession[] = [];
  for (const entry of entries) {
    const r = SavedSessionSchema.safeParse(entry);
    const label = entry && typeof entry === 'object' && 'id' in entry ? `session ${JSON.stringify((entry as { id: unknown }).id)}` : 'a session entry';
    if (!r.success) {
      const reason = oneLine(r.error);
      unreadable.push({ entry, reason });
      warnings.push(`${label} could not be read and was not restored (kept in the file): ${reason}`);
    } else if (sessions.some((s) => s.id === r.data.id)) {
      unreadable.push({ entry, reason: 'duplicate session id' });
      warnings.push(`${label} appears twice; the second entry was not restored (kept in the file)`);
    } else {
      sessions.push(r.data);
    }
  }
  return sessions;
}

/** The window entries that validate, each tab naming an existing session not listed before. */
function readWindows(entries: unknown[], sessions: SavedSession[], warnings: string[]): { windows: WindowRecord[]; listed: Set<string> } {
  const windows: WindowRecord[] = [];
  const listed = new Set<string>();
  for (const entry of entries) {
    const r = WindowRecordSchema.safeParse(entry);
    if (!r.success) {
      warnings.push(`a window entry could not be read (${oneLine(r.error)}); its sessions are kept in another window`);
      continue;
    }
    const w = r.data;
    w.tabs = w.tabs.filter((t) => {
      if (listed.has(t)) {
        warnings.push(`session ${JSON.stringify(t)} was listed in two places; kept the first`);
        return false;
      }
      if (!sessions.some((s) => s.id === t)) {
        warnings.push(`a tab named session ${JSON.stringify(t)}, which is not in the file; the tab was removed`);
        return false;
      }
      listed.add(t);
      return true;
    });
    if (w.activeTab !== null && !w.tabs.includes(w.activeTab)) w.activeTab = null;
    windows.push(w);
  }
  return { windows, listed };
}

/** Sessions no window lists become tabs of the last window (one is made when there is none). */
function adoptOrphans(orphans: SavedSession[], windows: WindowRecord[], warnings: string[]): void {
  if (orphans.length === 0) return;
  let w = windows.at(-1);
  if (!w) {
    w = { id: 'window-recovered', tabs: [], activeTab: null };
    windows.push(w);
  }
  for (const s of orphans) {
    w.tabs.push(s.id);
    warnings.push(`session ${JSON.stringify(s.id)} was in no window; it was added to window ${JSON.stringify(w.id)}`);
  }
}
