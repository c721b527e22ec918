// The loopback model server's answers on the wire, in each API's own format, streamed (server-sent
// events) or not, closely enough that the vendor SDK inside each real agent CLI accepts them:
// Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini generateContent and
// Augment's chat stream (Auggie). An answer is some text, a tool call, or both (text first); an
// error is an HTTP status in the API's own error shape, with the rate-limit headers a usage limit
// sends.
import type { ServerResponse } from 'node:http';
import type { ModelApi } from './modelScript';
import type { ParsedRequest } from './modelRequest';

export interface ToolCall {
  id: string;
  name: string;
  /** JSON arguments, or the text a freeform tool takes. */
  args: Record<string, unknown> | string;
}

/** A call's arguments as the wire carries them: JSON text. */
const argsText = (c: ToolCall) => (typeof c.args === 'string' ? JSON.stringify({ input: c.args }) : JSON.stringify(c.args));

export interface Answer {
  text?: string;
  call?: ToolCall;
  /** Streamed answers send the text a word at a time, one every paceMs (default: all at once). */
  paceMs?: number;
}

export interface ErrorAnswer {
  status: number;
  message: string;
  retryAfterS?: number;
}

const OUTPUT_TOKENS = 8;
let serial = 0;
const nextId = (prefix: string) => `${prefix}_loopback${++serial}`;
const now = () => Math.floor(Date.now() / 1000);

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** The pieces a streamed text is sent in: its words (each with the space before it) when paced,
 *  else the whole text. */
function pieces(a: Answer): string[] {
  const text = a.text ?? '';
  return a.paceMs ? (text.match(/\s*\S+/g) ?? [text]) : [text];
}

/** Ends a streamed answer: its events at once, or one every paceMs. */
function sendEvents(res: ServerResponse, events: string[], paceMs: number | undefined): void {
  if (!paceMs) return void res.end(events.join(''));
  let i = 0;
  const next = (): void => {
    if (res.destroyed) return;
    if (i === events.length - 1) return void res.end(events[i]);
    res.write(events[i++]);
    setTimeout(next, paceMs);
  };
  next();
}

/** One server-sent event; named where the API names its events. */
function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

// --- Anthropic Messages ---------------------------------------------------------------------

function anthropic(res: ServerResponse, req: ParsedRequest, a: Answer): void {
  const stop_reason = a.call ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: req.inputTokens, output_tokens: OUTPUT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const blocks = [
    ...(a.text !== undefined || !a.call ? [{ type: 'text', text: a.text ?? '' }] : []),
    ...(a.call ? [{ type: 'tool_use', id: a.call.id, name: a.call.name, input: JSON.parse(argsText(a.call)) as object }] : []),
  ];
  const message = { id: nextId('msg'), type: 'message', role: 'assistant', model: req.model, content: blocks, stop_reason, stop_sequence: null, usage };
  const headers = { 'request-id': nextId('req') };
  if (!req.stream) return json(res, 200, message, headers);
  const ev = (type: string, fields: object) => sse({ type, ...fields }, type);
  const out = [ev('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }) + ev('ping', {})];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const text of pieces(a)) out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else {
      out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }));
      out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } }));
    }
    out.push(ev('content_block_stop', { index }));
  });
  out.push(ev('message_delta', { delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: OUTPUT_TOKENS } }) + ev('message_stop', {}));
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  sendEvents(res, out, a.paceMs);
}

// --- OpenAI Chat Completions ----------------------------------------------------------------

function chat(res: ServerResponse, req: ParsedRequest, a: Answer, includeUsage: boolean): void {
  const id = nextId('chatcmpl');
  const finish_reason = a.call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: req.inputTokens, completion_tokens: OUTPUT_TOKENS, total_tokens: req.inputTokens + OUTPUT_TOKENS };
  const toolCalls = a.call ? [{ id: a.call.id, type: 'function', function: { name: a.call.name, arguments: argsText(a.call) } }] : undefined;
  const head = { id, created: now(), model: req.model, system_fingerprint: null };
  if (!req.stream) {
    const message = { role: 'assistant', content: a.text ?? null, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    return json(res, 200, { ...head, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason }], usage });
  }
  const chunk = (delta: object, finish: string | null = null) =>
    sse({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  if (a.text) for (const content of pieces(a)) out.push(chunk({ content }));
  if (a.call) {
    out.push(chunk({ tool_calls: [{ index: 0, id: a.call.id, type: 'function', function: { name: a.call.name, arguments: '' } }] }));
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: argsText(a.call) } }] }));
  }
  out.push(chunk({}, finish_reason));
  if (includeUsage) out.push(sse({ ...head, object: 'chat.completion.chunk', choices: [], usage }));
  sseHead(res);
  sendEvents(res, [...out, sse('[DONE]')], a.paceMs);
}

// --- OpenAI Responses -----------------------------------------------------------------------

function responsesItems(a: Answer): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  if (a.text !== undefined || !a.call)
    items.push({
      type: 'message',
      id: nextId('msg'),
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: a.text ?? '', annotations: [] }],
    });
  if (a.call && typeof a.call.args === 'string')
    items.push({ type: 'custom_tool_call', id: nextId('ctc'), call_id: a.call.id, name: a.call.name, input: a.call.args, status: 'completed' });
  else if (a.call)
    items.push({ type: 'function_call', id: nextId('fc'), call_id: a.call.id, name: a.call.name, arguments: argsText(a.call), status: 'completed' });
  return items;
}

function responses(res: ServerResponse, req: ParsedRequest, a: Answer): void {
  const items = responsesItems(a);
  const usage = {
    input_tokens: req.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: OUTPUT_TOKENS,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: req.inputTokens + OUTPUT_TOKENS,
  };
  const response = { id: nextId('resp'), object: 'response', created_at: now(), status: 'completed', model: req.model, output: items, usage, error: null };
  if (!req.stream) return json(res, 200, response);
  let seq = 0;
  const ev = (type: string, fields: object) => sse({ type, sequence_number: seq++, ...fields }, type);
  const out = [ev('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } })];
  out.push(ev('response.in_progress', { response: { ...response, status: 'in_progress', output: [], usage: null } }));
  items.forEach((item, output_index) => {
    if (item.type === 'message') {
      const text = (item.content as Array<{ text: string }>)[0]!.text;
      const part = { type: 'output_text', text: '', annotations: [] };
      out.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      out.push(ev('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part }));
      for (const delta of pieces(a)) out.push(ev('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta }));
      out.push(ev('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text }));
      out.push(ev('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: { ...part, text } }));
    } else if (item.type === 'custom_tool_call') {
      out.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', input: '' } }));
      out.push(ev('response.custom_tool_call_input.delta', { item_id: item.id, output_index, delta: item.input }));
      out.push(ev('response.custom_tool_call_input.done', { item_id: item.id, output_index, input: item.input }));
    } else {
      out.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      out.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments }));
      out.push(ev('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments }));
    }
    out.push(ev('response.output_item.done', { output_index, item }));
  });
  sseHead(res);
  sendEvents(res, [...out, ev('response.completed', { response })], a.paceMs);
}

// --- Gemini generateContent -----------------------------------------------------------------

function gemini(res: ServerResponse, req: ParsedRequest, a: Answer, sse_: boolean): void {
  const parts = [
    ...(a.text !== undefined || !a.call ? [{ text: a.text ?? '' }] : []),
    ...(a.call ? [{ functionCall: { name: a.call.name, args: JSON.parse(argsText(a.call)) as object } }] : []),
  ];
  const usageMetadata = { promptTokenCount: req.inputTokens, candidatesTokenCount: OUTPUT_TOKENS, totalTokenCount: req.inputTokens + OUTPUT_TOKENS };
  const response = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata,
    modelVersion: req.model,
    responseId: nextId('gen'),
  };
  if (!req.stream) return json(res, 200, response);
  if (!sse_) return json(res, 200, [response]);
  sseHead(res);
  // Paced: each word but the last in a response of its own, the last with the call and the finish.
  const words = pieces(a);
  const partial = a.paceMs && a.text ? words.slice(0, -1) : [];
  const lastParts = partial.length ? [{ text: words[words.length - 1] }, ...parts.slice(1)] : parts;
  const events = partial.map((text) => ({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }],
    modelVersion: req.model,
    responseId: response.responseId,
  }));
  events.push({ ...response, candidates: [{ ...response.candidates[0]!, content: { role: 'model', parts: lastParts } }] } as (typeof events)[number]);
  sendEvents(
    res,
    events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`),
    a.paceMs,
  );
}

// --- Augment /chat-stream ------------------------------------------------------------------

/** Augment's response node types (its ChatResultNodeType): the reply's text, a tool call. */
const AUGMENT_TEXT = 0;
const AUGMENT_TOOL_USE = 5;
/** Its stop reasons: the turn ended, the model asks for a tool. */
const AUGMENT_END_TURN = 1;
const AUGMENT_TOOL_USE_REQUESTED = 3;

/** Augment's chat stream: one JSON object a line, each with a `text` delta and response `nodes`
 *  (text: {type 0, content}; a call: {type 5, tool_use: {tool_use_id, tool_name, input_json}}),
 *  the last naming its stop_reason. */
function augment(res: ServerResponse, a: Answer): void {
  const lines: object[] = [];
  if (a.text !== undefined || !a.call) lines.push({ text: a.text ?? '', nodes: [{ id: 0, type: AUGMENT_TEXT, content: a.text ?? '' }] });
  if (a.call) {
    const tool_use = { tool_use_id: a.call.id, tool_name: a.call.name, input_json: argsText(a.call) };
    lines.push({ text: '', nodes: [{ id: 1, type: AUGMENT_TOOL_USE, content: '', tool_use }], stop_reason: AUGMENT_TOOL_USE_REQUESTED });
  } else lines.push({ text: '', nodes: [], stop_reason: AUGMENT_END_TURN });
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': nextId('req') });
  res.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

/** Writes `a` as the answer to `req` in its API's format. */
export function writeAnswer(res: ServerResponse, req: ParsedRequest, a: Answer, opts: { includeUsage: boolean; sse: boolean }): void {
  if (req.api === 'anthropic') anthropic(res, req, a);
  else if (req.api === 'openai-chat') chat(res, req, a, opts.includeUsage);
  else if (req.api === 'openai-responses') responses(res, req, a);
  else if (req.api === 'augment') augment(res, a);
  else gemini(res, req, a, opts.sse);
}

// --- Errors ---------------------------------------------------------------------------------

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
const OPENAI_TYPES: Record<number, [string, string | null]> = {
  400: ['invalid_request_error', null],
  401: ['invalid_request_error', 'invalid_api_key'],
  403: ['invalid_request_error', 'permission_denied'],
  404: ['invalid_request_error', 'not_found'],
  429: ['requests', 'rate_limit_exceeded'],
  500: ['server_error', null],
  529: ['server_error', 'overloaded'],
};
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  529: 'UNAVAILABLE',
};

/** The headers a rate limit sends with a 429: retry-after and the vendor's reset times. */
function limitHeaders(api: ModelApi, retryAfterS: number): Record<string, string> {
  const reset = new Date(Date.now() + retryAfterS * 1000);
  const h: Record<string, string> = { 'retry-after': String(retryAfterS) };
  if (api === 'anthropic') {
    for (const kind of ['requests', 'tokens', 'input-tokens', 'output-tokens']) h[`anthropic-ratelimit-${kind}-reset`] = reset.toISOString();
    h['anthropic-ratelimit-requests-remaining'] = '0';
    h['anthropic-ratelimit-unified-status'] = 'rejected';
    h['anthropic-ratelimit-unified-reset'] = String(Math.ceil(reset.getTime() / 1000));
  } else if (api === 'openai-chat' || api === 'openai-responses') {
    h['x-ratelimit-remaining-requests'] = '0';
    h['x-ratelimit-reset-requests'] = `${retryAfterS}s`;
    h['x-ratelimit-reset-tokens'] = `${retryAfterS}s`;
  }
  return h;
}

/** The error body of `api` for `e`: Anthropic's {type:'error', error:{type, message}}, OpenAI's
 *  {error:{message, type, code}}, Google's {error:{code, message, status, details}}, Augment's
 *  {error: message} (its client shows that string). */
export function errorBody(api: ModelApi, e: ErrorAnswer): unknown {
  if (api === 'anthropic') return { type: 'error', error: { type: ANTHROPIC_TYPES[e.status] ?? 'api_error', message: e.message } };
  if (api === 'augment') return { error: e.message };
  if (api === 'gemini') {
    const details = e.retryAfterS !== undefined ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${e.retryAfterS}s` }] : [];
    return { error: { code: e.status, message: e.message, status: GOOGLE_STATUS[e.status] ?? 'UNKNOWN', details } };
  }
  const [type, code] = OPENAI_TYPES[e.status] ?? ['server_error', null];
  return { error: { message: e.message, type, param: null, code } };
}

export function writeError(res: ServerResponse, api: ModelApi, e: ErrorAnswer): void {
  const headers = e.status === 429 && e.retryAfterS !== undefined ? limitHeaders(api, e.retryAfterS) : {};
  json(res, e.status, errorBody(api, e), { ...headers, ...(api === 'anthropic' ? { 'request-id': nextId('req') } : {}) });
}

export { json as writeJson };
