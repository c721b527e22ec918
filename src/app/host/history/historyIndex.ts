// The conversation index: one SQLite database (better-sqlite3, FTS5) in the host's state folder,
// holding every transcript file read, its conversation, its turns' text (full-text searchable)
// and its usage per model response. The indexer (historyIndexer.ts) replaces a file's rows
// whenever the file changes; searches and usage read it. A database that cannot be opened or
// fails its integrity check is moved aside and rebuilt from the transcripts, with a log line.
import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import type { Conversation, UsageRecord } from '../../../protocol/history';
import type { Logger } from '../../services/log';

/** Bumped when the tables change: an older database is rebuilt from the transcripts. */
const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, agent TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL, conv INTEGER);
CREATE TABLE IF NOT EXISTS convs (
  id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, agent TEXT NOT NULL, conversation TEXT, cwd TEXT,
  started TEXT, last TEXT, title TEXT, model TEXT);
CREATE INDEX IF NOT EXISTS convs_conversation ON convs(conversation);
CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, conv INTEGER NOT NULL, role TEXT NOT NULL, at TEXT, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS turns_conv ON turns(conv);
CREATE VIRTUAL TABLE IF NOT EXISTS turns_fts USING fts5(text, content='turns', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS turns_ai AFTER INSERT ON turns BEGIN INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text); END;
CREATE TRIGGER IF NOT EXISTS turns_ad AFTER DELETE ON turns BEGIN INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
CREATE TABLE IF NOT EXISTS usage (conv INTEGER NOT NULL, at TEXT, model TEXT, input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL, cache_write INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS usage_conv ON usage(conv);
`;

/** A file as the index last read it. */
export interface IndexedFile {
  size: number;
  mtime: number;
}

export interface IndexedConversation {
  agent: string;
  conversation: string | null;
  cwd: string | null;
  started: string | null;
  last: string | null;
  title: string | null;
  model: string | null;
  path: string;
}

/** One matching turn: its conversation, the snippet with the hit between \u0002 and \u0003, and its rank (lower is better). */
export interface TurnHit extends IndexedConversation {
  role: string;
  at: string | null;
  snippet: string;
  rank: number;
}

export interface UsageRow extends UsageRecord {
  conversation: string | null;
}

export interface HitFilter {
  agent?: string;
  since?: string;
  limit: number;
}

export const HIT_START = '\u0002';
export const HIT_END = '\u0003';

/** Opens (or creates) the database; one that cannot be used is moved aside and a new one made. */
export function openHistoryDatabase(file: string, logger: Logger): Database.Database {
  try {
    return prepared(new Database(file));
  } catch (e) {
    if (!existsSync(file)) throw e;
    const aside = `${file}.broken-${Date.now()}`;
    renameSync(file, aside);
    for (const side of ['-wal', '-shm']) if (existsSync(file + side)) renameSync(file + side, aside + side);
    logger.warn('history: the index could not be used; rebuilding it from the transcripts', { file, movedTo: aside, error: (e as Error).message });
    return prepared(new Database(file));
  }
}

/** A second connection to a database already opened and checked: it waits its turn to write. */
function openCheckedDatabase(file: string): Database.Database {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  db.pragma('synchronous = NORMAL');
  return db;
}

function prepared(db: Database.Database): Database.Database {
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== 0 && version !== SCHEMA_VERSION) throw new Error(`it was written by another version of Termio (schema ${version})`);
    if (db.pragma('quick_check', { simple: true }) !== 'ok') throw new Error('its integrity check failed');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

const CONV_COLUMNS = 'c.agent, c.conversation, c.cwd, c.started, c.last, c.title, c.model, c.path';

/** The index's reads and writes; every write of one file is one transaction. */
export class HistoryIndex {
  private readonly db: Database.Database;
  private readonly replace: (path: string, agent: string, file: IndexedFile, c: Conversation | null) => void;

  /** `checked`: another connection (the host's) opened and checked this database already: the indexing worker's. */
  constructor(file: string, logger: Logger, o: { checked?: boolean } = {}) {
    this.db = o.checked ? openCheckedDatabase(file) : openHistoryDatabase(file, logger);
    const db = this.db;
    const forget = this.forgetStatement();
    const addConv = db.prepare('INSERT INTO convs (path, agent, conversation, cwd, started, last, title, model) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const addTurn = db.prepare('INSERT INTO turns (conv, role, at, text) VALUES (?, ?, ?, ?)');
    const addUsage = db.prepare('INSERT INTO usage (conv, at, model, input, output, cache_read, cache_write) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const addFile = db.prepare('INSERT OR REPLACE INTO files (path, agent, size, mtime, conv) VALUES (?, ?, ?, ?, ?)');
    this.replace = db.transaction((path: string, agent: string, f: IndexedFile, c: Conversation | null) => {
      forget(path);
      let conv: number | null = null;
      if (c && (c.turns.length > 0 || c.usage.length > 0)) {
        conv = Number(addConv.run(path, agent, c.id, c.cwd, c.startedAt, c.lastActivity, c.title, c.model).lastInsertRowid);
        for (const t of c.turns) addTurn.run(conv, t.role, t.at, t.text);
        for (const u of c.usage) addUsage.run(conv, u.at, u.model, u.input, u.output, u.cacheRead, u.cacheWrite);
      }
      addFile.run(path, agent, f.size, f.mtime, conv);
    });
  }

  private forgetStatement(): (path: string) => void {
    const db = this.db;
    const convOf = db.prepare('SELECT id FROM convs WHERE path = ?').pluck();
    const delTurns = db.prepare('DELETE FROM turns WHERE conv = ?');
    const delUsage = db.prepare('DELETE FROM usage WHERE conv = ?');
    const delConv = db.prepare('DELETE FROM convs WHERE id = ?');
    const delFile = db.prepare('DELETE FROM files WHERE path = ?');
    return (path) => {
      const id = convOf.get(path) as number | undefined;
      if (id !== undefined) for (const st of [delTurns, delUsage, delConv]) st.run(id);
      delFile.run(path);
    };
  }

  /** The size and time the file had when it was last indexed. */
  fileState(path: string): IndexedFile | null {
    return (this.db.prepare('SELECT size, mtime FROM files WHERE path = ?').get(path) as IndexedFile | undefined) ?? null;
  }

  /** Every indexed file of these agents (to drop those that are gone). */
  files(): { path: string; agent: string }[] {
    return this.db.prepare('SELECT path, agent FROM files').all() as { path: string; agent: string }[];
  }

  /** Replaces what the index holds of one file (null: the file holds no conversation). */
  put(path: string, agent: string, file: IndexedFile, conversation: Conversation | null): void {
    this.replace(path, agent, file, conversation);
  }

  remove(path: string): void {
    this.db.transaction(this.forgetStatement())(path);
  }

  counts(): { files: number; conversations: number } {
    const n = (table: string) => (this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) ?? 0;
    return { files: n('files'), conversations: n('convs') };
  }

  /** Turns that match an FTS5 query, best first. */
  hits(query: string, f: HitFilter): TurnHit[] {
    const where = ['turns_fts MATCH @query', ...(f.agent ? ['c.agent = @agent'] : []), ...(f.since ? ['c.last >= @since'] : [])];
    const sql = `SELECT ${CONV_COLUMNS}, t.role, t.at, snippet(turns_fts, 0, '${HIT_START}', '${HIT_END}', '…', 16) AS snippet, bm25(turns_fts) AS rank
      FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid JOIN convs c ON c.id = t.conv
      WHERE ${where.join(' AND ')} ORDER BY rank LIMIT @limit`;
    return this.db.prepare(sql).all({ query, limit: f.limit, agent: f.agent || undefined, since: f.since || undefined }) as TurnHit[];
  }

  /** The conversations with this id (or id prefix), newest first. */
  conversations(idOrPrefix: string, agent?: string): IndexedConversation[] {
    const sql = `SELECT ${CONV_COLUMNS} FROM convs c WHERE (c.conversation = @id OR c.conversation LIKE @prefix ESCAPE '\\')${agent ? ' AND c.agent = @agent' : ''} ORDER BY c.last DESC LIMIT 20`;
    const prefix = `${idOrPrefix.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    return this.db.prepare(sql).all({ id: idOrPrefix, prefix, agent: agent || undefined }) as IndexedConversation[];
  }

  /** Every usage record, with its conversation's agent and folder. */
  usage(f: { agent?: string; since?: string; conversation?: string }): UsageRow[] {
    const where = [
      ...(f.agent ? ['c.agent = @agent'] : []),
      ...(f.since ? ['coalesce(u.at, c.last) >= @since'] : []),
      ...(f.conversation ? ['c.conversation = @conversation'] : []),
    ];
    const sql = `SELECT c.agent, c.cwd, c.conversation, coalesce(u.at, c.last) AS at, u.model, u.input, u.output, u.cache_read AS cacheRead, u.cache_write AS cacheWrite
      FROM usage u JOIN convs c ON c.id = u.conv ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    // Only the filters given are bound: each one named in the query.
    return this.db.prepare(sql).all(Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined))) as UsageRow[];
  }

  close(): void {
    this.db.close();
  }
}
