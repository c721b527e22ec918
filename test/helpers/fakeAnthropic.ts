// A loopback stand-in for the Anthropic Messages API, for the real Claude Code CLI offline: every
// request is answered at once with a 400 error (the turn fails fast and the CLI says so), except a
// prompt naming `askFor`, which is answered with one Bash tool call streamed the way the API
// streams it, so the CLI asks permission for it (its PermissionRequest hook: the session needs you),
// and a prompt naming `limitFor`, which is refused with a 429 usage limit that says when to try again.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnthropic {
  /** For ANTHROPIC_BASE_URL. */
  url: string;
  /** Requests seen, newest last: method, path and whether the body carried a tool result. */
  requests: Array<{ method: string; path: string; toolResult: boolean }>;
  close(): Promise<void>;
}

export const FAKE_API_ERROR = 'this loopback endpoint answers every request with 400';
/** The 429's message: the CLI shows it, and its StopFailure hook hands it to Termio. */
export const FAKE_LIMIT_ERROR = 'You have reached your usage limit. Try again in 45 minutes.';

function sse(events: Array<[string, object]>): string {
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

function toolCall(model: string, command: string): string {
  const usage = { input_tokens: 10, output_tokens: 1 };
  return sse([
    [
      'message_start',
      {
        type: 'message_start',
        message: { id: 'msg_local_1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `I'll run \`${command}\`.` } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_local_1', name: 'Bash', input: {} } }],
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ command, description: 'Deploy the app' }) } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

interface MessagesRequest {
  model?: string;
  stream?: boolean;
  messages?: Array<{ role?: string; content: unknown }>;
}

/** What the user typed: the last user message's text, less the context blocks the CLI adds to it
 *  (`<system-reminder>` and the like; it also sends system-role messages after it). */
function typedText(messages: MessagesRequest['messages']): string {
  const content = messages?.filter((m) => m.role === 'user').at(-1)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts = content.filter((b): b is { type: 'text'; text: string } => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'text');
  return texts
    .map((b) => b.text)
    .filter((t) => !t.trimStart().startsWith('<'))
    .join('\n');
}

function parseBody(body: string): MessagesRequest | null {
  try {
    return JSON.parse(body) as MessagesRequest;
  } catch {
    return null;
  }
}

export async function startFakeAnthropic(opts: { askFor: string; command: string; limitFor?: string }): Promise<FakeAnthropic> {
  const requests: FakeAnthropic['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const parsed = parseBody(body);
      const last = parsed?.messages?.filter((m) => m.role === 'user').at(-1)?.content;
      const toolResult = JSON.stringify(last ?? '').includes('tool_result');
      requests.push({ method: req.method ?? '', path: req.url ?? '', toolResult });
      if (req.method === 'POST' && parsed?.stream && typedText(parsed.messages).includes(opts.askFor) && !toolResult) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(toolCall(parsed.model ?? 'claude', opts.command));
        return;
      }
      if (req.method === 'POST' && opts.limitFor && typedText(parsed?.messages).includes(opts.limitFor)) {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: FAKE_LIMIT_ERROR } }));
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: FAKE_API_ERROR } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
