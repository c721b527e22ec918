// The loopback model server: one HTTP server on 127.0.0.1 that speaks the model APIs real agent
// CLIs use, so tests and benches run real turns offline that complete, call tools and fail on
// purpose, as a script (modelScript.ts) says.
//
// APIs, matched by the end of the path so any base path works (/v1, /v1beta, /api/anthropic/v1…):
//   POST …/messages, …/messages/count_tokens          Anthropic Messages (Claude Code, OpenCode)
//   POST …/chat/completions                            OpenAI Chat Completions (Qwen, Copilot, …)
//   POST …/responses                                   OpenAI Responses (Codex); a WebSocket
//                                                      upgrade is refused with a 400, so Codex
//                                                      falls back to HTTP
//   POST …/models/{m}:generateContent, :streamGenerateContent (?alt=sse or a JSON array),
//        :countTokens                                  Gemini (Gemini CLI)
//   POST …/chat-stream                                 Augment's own protocol (Auggie), its tenant
//                                                      URL pointed here; with the few side
//                                                      endpoints it calls at start
//   GET  …/models, …/models/{id}                       one model, in OpenAI's and Anthropic's list
//                                                      shape, or Gemini's under /v1beta
// Each answers streamed (server-sent events) or not, as the request asks; anything else is a 404
// JSON. Every request is recorded (`requests`, with its raw body for debugging).
//
// Which request takes a step: a "turn" request offers tools and ends with the user's message; it
// plays the next step (a reply, a call of the agent's shell tool, or an HTTP error in the API's own
// error shape, with retry-after and the vendor's reset headers for a 429). A request ending with a
// tool's result continues the step: it gets the step's next `more` call, if any, else its `reply`
// (streamed a word at a time when the step says `paceMs`). A client's retry of a turn an
// error answered gets that error again. Anything else is a "side" request, answered briefly and
// taking no step: no tools offered (a title, a summary), a JSON answer asked for by schema (Gemini's
// router and next-speaker check, Codex's title; they get the smallest JSON the schema accepts),
// one tool forced (Qwen's auto-mode classifier: a call with such arguments), or a prompt that says
// it is a next-prompt suggestion. System and developer messages after the user's are passed over
// (Claude Code appends some). The shell tool is found by its schema (a command/cmd parameter, or
// a shell-like name; Codex's code-mode `exec` tool gets a script calling exec_command), so one
// script drives every agent; where none is offered, a tool step answers its reply as text.
//
// What the real CLIs do against it (run by hand, December 2026):
// - Claude Code 2.1.332: a tool step shows its permission question (in "default" permission mode;
//   its new default "auto" mode runs `touch` unasked, and for riskier commands says its
//   server-side safety check is not passed through and asks). A 400 is sent six times before the
//   turn fails ("API Error: 400 …"); a 429 is retried ten times with growing waits.
// - Codex 0.171.0: tools come in an `additional_tools` input item, the shell as code mode's `exec`;
//   asks before `touch` in an untrusted folder; a 429 ends the turn at once with
//   request_max_retries = 0 ("exceeded retry limit, last status: 429").
// - Gemini CLI 0.61.0: a router side request (JSON) before each turn; asks before the shell; a
//   429 with RetryInfo is retried for many minutes, so a failing Gemini turn wants a 400.
// - Qwen Code 0.24.4 (Chat Completions): auto mode asks its classifier on the side, then runs it.
// - Copilot CLI 1.0.102 (Chat Completions, its `bash` tool): asks before `touch`, then replies.
// - Auggie 0.25.2 and 0.36.0 (Augment's /chat-stream, AUGMENT_SESSION_AUTH naming this server as its
//   tenant URL): runs launch-process unasked; a silent request with no user words (its title) is
//   a side request; a 400 ends the turn at once ('API Error: "invalidArgument: HTTP error: 400 …"').
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  findShellTool,
  minimalValue,
  parseAnthropic,
  parseAugment,
  parseChat,
  parseGemini,
  parseResponses,
  shellArguments,
  type ParsedRequest,
} from './modelRequest';
import type { ModelApi, ModelScript, ModelStep, RecordedRequest } from './modelScript';
import { errorBody, writeAnswer, writeError, writeJson, type Answer, type ErrorAnswer } from './modelWire';

export interface ModelServer {
  /** http://127.0.0.1:PORT, no path. */
  url: string;
  requests: RecordedRequest[];
  /** Replaces the script, from its first step. */
  play(script: ModelScript | ModelStep[]): void;
  close(): Promise<void>;
}

const DEFAULT_REPLY = 'Done.';
const DEFAULT_THEN: ModelStep = { reply: DEFAULT_REPLY };
const SIDE_REPLY = 'OK.';
/** Side requests that look like a turn (tools offered, a user message last) but say what they are:
 *  the next-prompt suggestion Qwen Code (and Claude Code) asks for once a turn has ended. */
const SIDE_PROMPTS = [/^\[SUGGESTION MODE\b/];
const MODEL_ID = 'loopback-model';

type Obj = Record<string, unknown>;

/** The script being played: its steps in order, then `then` for ever. */
class Player {
  private steps: ModelStep[] = [];
  private then: ModelStep = DEFAULT_THEN;
  private index = 0;
  /** The step the last turn request took (a tool step's result continues it). */
  current: ModelStep | undefined;
  /** The last turn request's conversation (ParsedRequest.turnKey), to know a client's retry. */
  currentKey: string | undefined;
  /** Tool results the current step has had back (a step with `more` calls one tool per result). */
  results = 0;

  play(script: ModelScript | ModelStep[] = []): void {
    const s = Array.isArray(script) ? { steps: script } : script;
    this.steps = [...s.steps];
    this.then = s.then ?? DEFAULT_THEN;
    this.index = 0;
    this.current = undefined;
    this.currentKey = undefined;
  }

  /** The step for a turn request: the next one, or the same error again for a retry of the turn
   *  that drew it (Claude Code sends a refused turn up to six times; the turn must still fail). */
  take(key: string): { step: ModelStep; retry: boolean } {
    if (this.current && 'error' in this.current && key === this.currentKey) return { step: this.current, retry: true };
    this.current = this.index < this.steps.length ? this.steps[this.index++]! : this.then;
    this.currentKey = key;
    this.results = 0;
    return { step: this.current, retry: false };
  }
}

interface Decision {
  kind: RecordedRequest['kind'];
  retry?: boolean;
  answer?: Answer;
  error?: ErrorAnswer;
  shellTool?: string;
}

let callSerial = 0;

/** What `req` gets, and which step it takes, if any. */
function decide(req: ParsedRequest, player: Player): Decision {
  const shell = findShellTool(req.tools);
  const base = { shellTool: shell?.name };
  if (req.forced)
    return {
      ...base,
      kind: 'side',
      answer: { call: { id: `call_forced${++callSerial}`, name: req.forced.name, args: minimalValue(req.forced.schema) as Obj } },
    };
  if (req.last === 'tool-result') {
    const step = player.current;
    const next = step && 'tool' in step ? step.more?.[player.results++] : undefined;
    if (next !== undefined && shell) {
      const args = shellArguments(shell, next, `Run ${next}`);
      return { ...base, kind: 'continuation', answer: { text: `Next, \`${next}\`.`, call: { id: `call_loopback${++callSerial}`, name: shell.name, args } } };
    }
    const paceMs = step && 'paceMs' in step ? step.paceMs : undefined;
    return { ...base, kind: 'continuation', answer: { text: step && 'reply' in step ? step.reply : DEFAULT_REPLY, paceMs } };
  }
  if (req.last !== 'user' || req.tools.length === 0 || req.json || SIDE_PROMPTS.some((p) => p.test(req.prompt ?? ''))) {
    return { ...base, kind: 'side', answer: { text: req.json ? JSON.stringify(minimalValue(req.json)) : SIDE_REPLY } };
  }
  const { step, retry } = player.take(req.turnKey);
  if ('error' in step) {
    return {
      ...base,
      kind: 'turn',
      retry,
      error: { status: step.error, message: step.message ?? `refused on purpose by the loopback model (${step.error})`, retryAfterS: step.retryAfterS },
    };
  }
  if ('tool' in step && shell) {
    const args = shellArguments(shell, step.tool, step.description ?? `Run ${step.tool}`);
    return { ...base, kind: 'turn', answer: { text: `I'll run \`${step.tool}\`.`, call: { id: `call_loopback${++callSerial}`, name: shell.name, args } } };
  }
  return { ...base, kind: 'turn', answer: { text: step.reply, paceMs: step.paceMs } };
}

type Route = { api: ModelApi; parse: (body: Obj, url: URL) => ParsedRequest } | { api: ModelApi; fixed: (url: URL) => { status: number; body: unknown } };

const GEMINI_MODEL = {
  name: `models/${MODEL_ID}`,
  version: '001',
  displayName: 'Loopback model',
  inputTokenLimit: 1_048_576,
  outputTokenLimit: 65_536,
  supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
};
/** One model as OpenAI's and Anthropic's model endpoints both describe it. */
const LISTED_MODEL = {
  id: MODEL_ID,
  object: 'model',
  type: 'model',
  display_name: 'Loopback model',
  created: 0,
  created_at: '2026-01-01T00:00:00Z',
  owned_by: 'loopback',
};

/** The tenant's feature flags Augment's /get-models sends: hooks are off unless the service turns
 *  them on (its enableHooks flag), so they are. */
const AUGMENT_FLAGS = { enable_hooks: true };
/** The model as Augment's /get-models lists it. */
const AUGMENT_MODEL = { name: MODEL_ID, suggested_prefix_char_count: 0, suggested_suffix_char_count: 0 };

function isGemini(req: IncomingMessage, url: URL): boolean {
  return /\/v1(alpha|beta)\//.test(url.pathname) || req.headers['x-goog-api-key'] !== undefined || url.searchParams.has('key');
}

/** Which API `req` speaks, by the end of its path. */
function route(req: IncomingMessage, url: URL): Route | undefined {
  const p = url.pathname.replace(/\/+$/, '');
  if (req.method === 'POST') {
    if (p.endsWith('/messages/count_tokens')) return { api: 'anthropic', fixed: () => ({ status: 200, body: { input_tokens: 1 } }) };
    if (p.endsWith('/messages')) return { api: 'anthropic', parse: parseAnthropic };
    if (p.endsWith('/chat/completions')) return { api: 'openai-chat', parse: parseChat };
    if (p.endsWith('/responses')) return { api: 'openai-responses', parse: parseResponses };
    const g = /\/models\/[^/]+:(generateContent|streamGenerateContent|countTokens)$/.exec(p);
    if (g?.[1] === 'countTokens') return { api: 'gemini', fixed: () => ({ status: 200, body: { totalTokens: 1 } }) };
    if (g) return { api: 'gemini', parse: (body) => parseGemini(body, g[1] === 'streamGenerateContent') };
    return augmentRoute(p);
  }
  if (req.method !== 'GET') return undefined;
  const gemini = isGemini(req, url);
  const api: ModelApi = gemini ? 'gemini' : req.headers['anthropic-version'] ? 'anthropic' : 'other';
  if (p.endsWith('/models'))
    return {
      api,
      fixed: () => ({
        status: 200,
        body: gemini ? { models: [GEMINI_MODEL] } : { object: 'list', data: [LISTED_MODEL], has_more: false, first_id: MODEL_ID, last_id: MODEL_ID },
      }),
    };
  const one = /\/models\/([^/:]+)$/.exec(p);
  if (one) return { api, fixed: () => ({ status: 200, body: gemini ? { ...GEMINI_MODEL, name: `models/${one[1]}` } : { ...LISTED_MODEL, id: one[1] } }) };
  return undefined;
}

/** Augment's service (Auggie's tenant URL): /chat-stream plays the script; at start it asks for
 *  its models and feature flags (/get-models), remote tools and MCP configurations, and reports
 *  its own errors (/report-error): answered with nothing to add. */
function augmentRoute(p: string): Route | undefined {
  if (p.endsWith('/chat-stream')) return { api: 'augment', parse: parseAugment };
  const fixed = (body: unknown): Route => ({ api: 'augment', fixed: () => ({ status: 200, body }) });
  if (p.endsWith('/get-models')) return fixed({ default_model: MODEL_ID, models: [AUGMENT_MODEL], feature_flags: AUGMENT_FLAGS });
  if (p.endsWith('/agents/list-remote-tools')) return fixed({ tools: [] });
  if (/\/(settings\/get-mcp-[\w-]+|report-error|record-session-events|client-metrics)$/.test(p)) return fixed({});
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function parseJson(text: string): Obj | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, player: Player, requests: RecordedRequest[]): Promise<void> {
  const raw = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://loopback');
  const path = req.url ?? '/';
  const record = (r: Omit<RecordedRequest, 'method' | 'path' | 'body'>) => requests.push({ method: req.method ?? '', path, ...r, body: raw });
  const r = route(req, url);
  if (!r) {
    record({ api: 'other', stream: false, kind: 'side', status: 404 });
    return writeJson(res, 404, {
      error: { message: `the loopback model does not serve ${req.method} ${url.pathname}`, type: 'not_found_error', code: 'not_found' },
    });
  }
  if ('fixed' in r) {
    const { status, body } = r.fixed(url);
    record({ api: r.api, stream: false, kind: 'side', status });
    return writeJson(res, status, body);
  }
  const body = parseJson(raw);
  if (!body) {
    const e = { status: 400, message: `the request body is not a JSON object: ${raw.slice(0, 80)}` };
    record({ api: r.api, stream: false, kind: 'side', status: 400 });
    return writeJson(res, 400, errorBody(r.api, e));
  }
  const parsed = r.parse(body, url);
  const d = decide(parsed, player);
  const status = d.error?.status ?? 200;
  record({ api: r.api, stream: parsed.stream, kind: d.kind, ...(d.retry ? { retry: true } : {}), shellTool: d.shellTool, prompt: parsed.prompt, status });
  if (d.error) return writeError(res, r.api, d.error);
  const includeUsage = typeof body.stream_options === 'object' && (body.stream_options as Obj | null)?.include_usage === true;
  writeAnswer(res, parsed, d.answer!, { includeUsage, sse: url.searchParams.get('alt') === 'sse' });
}

export function startModelServer(script?: ModelScript | ModelStep[]): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const player = new Player();
  player.play(script);
  const server = createServer((req, res) => {
    handle(req, res, player, requests).catch((e: unknown) => {
      if (!res.headersSent) writeJson(res, 500, { error: { message: `the loopback model failed: ${String(e)}`, type: 'server_error', code: null } });
      else res.destroy();
    });
  });
  // Codex tries a WebSocket first where a provider allows it: refused with a plain HTTP 400 so it
  // falls back to HTTP at once.
  server.on('upgrade', (req: IncomingMessage, socket) => {
    const path = req.url ?? '/';
    const api: ModelApi = /\/responses(\?|$)/.test(path) ? 'openai-responses' : 'other';
    requests.push({ api, method: req.method ?? 'GET', path, stream: true, kind: 'side', status: 400 });
    const text = JSON.stringify(errorBody('openai-responses', { status: 400, message: 'the loopback model does not speak WebSocket' }));
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        play: (s) => player.play(s),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
