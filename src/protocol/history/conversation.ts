// One conversation as Termio's history index keeps it, and the builder every transcript reader
// fills line by line. Pure: readers hand it parsed records; the host does the reading.

export interface Turn {
  role: 'user' | 'assistant';
  text: string;
  /** ISO time of the record, when it says. */
  at: string | null;
}

/** One model response's tokens, as the agent recorded them. `input` excludes cache reads and writes. */
export interface TurnUsage {
  at: string | null;
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface Conversation {
  /** The agent's own conversation id (what its resume takes); null when the file never said. */
  id: string | null;
  /** The folder the conversation ran in. */
  cwd: string | null;
  startedAt: string | null;
  lastActivity: string | null;
  /** The first line of the first prompt. */
  title: string | null;
  /** The model of the latest response. */
  model: string | null;
  turns: Turn[];
  usage: TurnUsage[];
}

/** A line that could not be read: its number (1-based) and why. */
export interface TranscriptProblem {
  line: number;
  message: string;
}

/** What the host knows about a file before reading it: the id its name carries, the folder a side file names. */
export interface TranscriptHints {
  idFromName?: string;
  cwd?: string;
}

const MAX_TITLE_CHARS = 200;

/** Fills a Conversation; records given a key replace the earlier record with that key (an agent that rewrites a message). */
export class ConversationBuilder {
  id: string | null = null;
  cwd: string | null = null;
  startedAt: string | null = null;
  lastActivity: string | null = null;
  model: string | null = null;
  private readonly turns = new Map<string, Turn>();
  private readonly usage = new Map<string, TurnUsage>();
  private serial = 0;

  constructor(hints: TranscriptHints = {}) {
    this.id = hints.idFromName ?? null;
    this.cwd = hints.cwd ?? null;
  }

  /** A record's time: the start is the earliest, the last activity the latest. */
  seen(at: unknown): void {
    if (typeof at !== 'string' || Number.isNaN(Date.parse(at))) return;
    if (this.startedAt === null || at < this.startedAt) this.startedAt = at;
    if (this.lastActivity === null || at > this.lastActivity) this.lastActivity = at;
  }

  turn(role: Turn['role'], text: string, at: unknown, key?: string): void {
    const trimmed = text.trim();
    if (!trimmed) return;
    this.seen(at);
    this.turns.set(key ?? `#${this.serial++}`, { role, text: trimmed, at: typeof at === 'string' ? at : null });
  }

  tokens(u: Omit<TurnUsage, 'model' | 'at'> & { model?: string | null }, at: unknown, key?: string): void {
    const model = u.model ?? this.model;
    if (u.model) this.model = u.model;
    const clean = (n: number) => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0);
    const usage = {
      at: typeof at === 'string' ? at : null,
      model,
      input: clean(u.input),
      output: clean(u.output),
      cacheRead: clean(u.cacheRead),
      cacheWrite: clean(u.cacheWrite),
    };
    if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) return;
    this.usage.set(key ?? `#${this.serial++}`, usage);
  }

  result(): Conversation {
    const turns = [...this.turns.values()];
    const first = turns.find((t) => t.role === 'user');
    const title = first ? first.text.split('\n', 1)[0]!.slice(0, MAX_TITLE_CHARS) : null;
    const { id, cwd, startedAt, lastActivity, model } = this;
    return { id, cwd, startedAt, lastActivity, title, model, turns, usage: [...this.usage.values()] };
  }
}

/** A JSON object's member as an object, or undefined. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** The text of a content list: strings, and the `text` of parts whose type is one of `types` (or has none). */
export function textOf(content: unknown, types: readonly string[] = ['text', 'input_text', 'output_text']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) {
    const p = obj(part);
    if (typeof part === 'string') parts.push(part);
    else if (p && typeof p.text === 'string' && p.thought !== true && (p.type === undefined || types.includes(p.type as string))) parts.push(p.text);
  }
  return parts.join('\n');
}
