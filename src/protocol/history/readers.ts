// The transcript readers: one per format a manifest's `history.format` names, each taking one
// parsed JSONL record at a time into a ConversationBuilder. What each agent writes was read from
// the real CLIs' files (test/fixtures/history holds samples, with the release that wrote each).
// Pure: the host reads the file and hands over its lines.
import type { HistoryFormat } from '../manifestSchema';
import { ConversationBuilder, num, obj, str, textOf, type Conversation, type TranscriptHints, type TranscriptProblem } from './conversation';

type RecordReader = (rec: Record<string, unknown>, b: ConversationBuilder, state: Map<string, unknown>) => void;

/** Prompts the agent itself sends as the user's (slash-command echoes, context blocks): not the user's words. */
const SYNTHETIC_PROMPT = /^<(?:command-|local-command-|system-reminder|session_context|environment_context|user_instructions|bash-)/;

function userText(b: ConversationBuilder, text: string, at: unknown, key?: string): void {
  if (!SYNTHETIC_PROMPT.test(text.trimStart())) b.turn('user', text, at, key);
}

/** Claude Code: ~/.claude/projects/<folder>/<id>.jsonl; a streamed reply is one line per content block, each with the whole message's usage. */
const claude: RecordReader = (rec, b) => {
  if (rec.isSidechain === true) return;
  b.id ??= str(rec.sessionId) ?? null;
  if (typeof rec.cwd === 'string') b.cwd ??= rec.cwd;
  const msg = obj(rec.message);
  if (rec.type === 'user' && msg && rec.isMeta !== true) userText(b, textOf(msg.content), rec.timestamp, str(rec.uuid));
  if (rec.type !== 'assistant' || !msg) return b.seen(rec.timestamp);
  const key = str(msg.id) ?? str(rec.uuid);
  b.turn('assistant', textOf(msg.content), rec.timestamp, str(rec.uuid));
  const u = obj(msg.usage);
  const model = str(msg.model);
  if (u) {
    const usage = {
      input: num(u.input_tokens),
      output: num(u.output_tokens),
      cacheRead: num(u.cache_read_input_tokens),
      cacheWrite: num(u.cache_creation_input_tokens),
    };
    b.tokens({ ...usage, model: model && model !== '<synthetic>' ? model : null }, rec.timestamp, key);
  }
};

/** Codex: ~/.codex/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl. Usage is the running total of token_count events, so each turn is its growth. */
const codex: RecordReader = (rec, b, state) => {
  const p = obj(rec.payload) ?? {};
  b.seen(rec.timestamp);
  if (rec.type === 'session_meta') {
    b.id ??= str(p.id) ?? null;
    if (typeof p.cwd === 'string') b.cwd ??= p.cwd;
  } else if (rec.type === 'turn_context' && typeof p.model === 'string') b.model = p.model;
  else if (rec.type === 'response_item' && p.type === 'message' && p.role === 'assistant') b.turn('assistant', textOf(p.content), rec.timestamp);
  else if (rec.type === 'event_msg' && p.type === 'user_message') userText(b, str(p.message) ?? '', rec.timestamp);
  else if (rec.type === 'event_msg' && p.type === 'item_completed' && obj(p.item)?.type === 'UserMessage')
    userText(b, textOf(obj(p.item)!.content), rec.timestamp);
  else if (rec.type === 'event_msg' && p.type === 'token_count') codexTokens(obj(obj(p.info)?.total_token_usage), rec.timestamp, b, state);
};

function codexTokens(total: Record<string, unknown> | undefined, at: unknown, b: ConversationBuilder, state: Map<string, unknown>): void {
  if (!total) return;
  const prev = (state.get('total') as Record<string, number> | undefined) ?? {};
  const now = {
    input: num(total.input_tokens),
    cached: num(total.cached_input_tokens),
    write: num(total.cache_write_input_tokens),
    output: num(total.output_tokens),
  };
  state.set('total', now);
  const d = (k: keyof typeof now) => now[k] - (prev[k] ?? 0);
  // OpenAI counts cached input inside input_tokens.
  b.tokens({ input: d('input') - d('cached') - d('write'), output: d('output'), cacheRead: d('cached'), cacheWrite: d('write') }, at);
}

/** Gemini CLI (JSONL since 0.39): a header line, message lines, and {"$set": …} lines that update the header or rewrite the message list. */
const gemini: RecordReader = (rec, b) => {
  const set = obj(rec.$set);
  if (set) {
    b.seen(set.lastUpdated);
    if (typeof set.sessionId === 'string') b.id ??= set.sessionId;
    if (Array.isArray(set.messages)) for (const m of set.messages) if (obj(m)) geminiMessage(obj(m)!, b);
    return;
  }
  if (typeof rec.sessionId === 'string' && rec.type === undefined) {
    b.id ??= rec.sessionId;
    b.seen(rec.startTime);
    return b.seen(rec.lastUpdated);
  }
  geminiMessage(rec, b);
};

function geminiMessage(m: Record<string, unknown>, b: ConversationBuilder): void {
  const key = str(m.id);
  if (m.type === 'user') userText(b, textOf(m.content), m.timestamp, key);
  if (m.type !== 'gemini') return;
  b.turn('assistant', textOf(m.content), m.timestamp, key);
  const t = obj(m.tokens);
  if (t) {
    const usage = { input: num(t.input) - num(t.cached), output: num(t.output) + num(t.thoughts), cacheRead: num(t.cached), cacheWrite: 0 };
    b.tokens({ ...usage, model: str(m.model) ?? null }, m.timestamp, key);
  }
}

/** Qwen Code: ~/.qwen/projects/<folder>/chats/<id>.jsonl, Claude-like records with Gemini-like parts and usageMetadata. */
const qwen: RecordReader = (rec, b) => {
  b.id ??= str(rec.sessionId) ?? null;
  if (typeof rec.cwd === 'string') b.cwd ??= rec.cwd;
  const msg = obj(rec.message);
  if (rec.type === 'user' && msg) userText(b, textOf(msg.parts), rec.timestamp, str(rec.uuid));
  if (rec.type !== 'assistant' || !msg) return b.seen(rec.timestamp);
  b.turn('assistant', textOf(msg.parts), rec.timestamp, str(rec.uuid));
  const u = obj(rec.usageMetadata);
  if (u) {
    const cached = num(u.cachedContentTokenCount);
    const usage = {
      input: num(u.promptTokenCount) - cached,
      output: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
      cacheRead: cached,
      cacheWrite: 0,
    };
    b.tokens({ ...usage, model: str(rec.model) ?? null }, rec.timestamp, str(rec.uuid));
  }
};

/** GitHub Copilot CLI: ~/.copilot/session-state/<id>/events.jsonl, one event per line with its data. */
const copilot: RecordReader = (rec, b) => {
  const d = obj(rec.data) ?? {};
  b.seen(rec.timestamp);
  if (rec.type === 'session.start') {
    b.id ??= str(d.sessionId) ?? null;
    b.cwd ??= str(obj(d.context)?.cwd) ?? null;
    b.model ??= str(d.selectedModel) ?? null;
  } else if (rec.type === 'user.message') userText(b, str(d.content) ?? '', rec.timestamp);
  else if (rec.type === 'assistant.message') b.turn('assistant', str(d.content) ?? '', rec.timestamp);
  else if (rec.type === 'session.usage_record' && obj(d.usage)) {
    const u = obj(d.usage)!;
    const usage = { input: num(u.inputTokens), output: num(u.outputTokens), cacheRead: num(u.cacheReadTokens), cacheWrite: num(u.cacheWriteTokens) };
    b.tokens({ ...usage, model: str(u.model) ?? null }, rec.timestamp);
  }
};

const READERS: Record<HistoryFormat, RecordReader> = {
  'claude-jsonl': claude,
  'codex-rollout': codex,
  'gemini-jsonl': gemini,
  'qwen-jsonl': qwen,
  'copilot-events': copilot,
};

/** Reads a transcript's lines one at a time; a line that is not a JSON object is skipped and noted, never fatal. */
export class TranscriptReader {
  readonly problems: TranscriptProblem[] = [];
  private readonly b: ConversationBuilder;
  private readonly state = new Map<string, unknown>();
  private lineNo = 0;

  constructor(
    private readonly format: HistoryFormat,
    hints: TranscriptHints = {},
  ) {
    this.b = new ConversationBuilder(hints);
  }

  line(text: string): void {
    this.lineNo++;
    if (!text.trim()) return;
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch (e) {
      this.problems.push({ line: this.lineNo, message: `not JSON (${(e as Error).message})` });
      return;
    }
    if (!obj(rec)) this.problems.push({ line: this.lineNo, message: 'not a JSON object' });
    else READERS[this.format](obj(rec)!, this.b, this.state);
  }

  result(): Conversation {
    return this.b.result();
  }
}

/** A whole transcript's text, read at once (tests and small files). */
export function readTranscriptText(
  format: HistoryFormat,
  text: string,
  hints: TranscriptHints = {},
): { conversation: Conversation; problems: TranscriptProblem[] } {
  const r = new TranscriptReader(format, hints);
  for (const line of text.split('\n')) r.line(line);
  return { conversation: r.result(), problems: r.problems };
}
