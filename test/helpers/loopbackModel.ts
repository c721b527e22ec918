// A model API on loopback for real agent CLIs offline, so that each turn ends at once and on
// purpose instead of on however the network happens to fail: every request is answered 400
// (Claude Code ends the turn with StopFailure, Gemini CLI with AfterAgent), a WebSocket upgrade
// included. Codex runs no hook when a turn fails (it has no StopFailure event), so in `complete`
// mode a Responses API request gets a short canned answer as a server-sent event stream, the
// turn completes and Codex runs its Stop hook. In `tool` mode an Anthropic Messages request that
// offers tools (a turn, not a title request) and carries no tool result yet is answered with one
// `bash` tool call, `echo hi`: an agent told to ask before running it shows its permission prompt.
import { createServer, type IncomingMessage } from 'node:http';

export interface LoopbackModel {
  /** http://127.0.0.1:PORT */
  url: string;
  /** "METHOD path" of every request so far. */
  requests: string[];
  close(): Promise<void>;
}

const REFUSAL = JSON.stringify({ error: { type: 'invalid_request_error', code: 'bad_request', message: 'refused on purpose by the test endpoint' } });

function sse(type: string, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}

/** A completed Responses API turn: one assistant message, then response.completed. */
const COMPLETED_TURN =
  sse('response.created', { response: { id: 'resp_loopback' } }) +
  sse('response.output_item.done', {
    item: { type: 'message', role: 'assistant', id: 'msg_loopback', content: [{ type: 'output_text', text: 'Hello from the loopback model.' }] },
  }) +
  sse('response.completed', {
    response: { id: 'resp_loopback', usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 } },
  });

/** An Anthropic Messages stream: one tool_use block calling `bash` with `echo hi`. */
const BASH_TOOL_CALL =
  sse('message_start', {
    message: {
      id: 'msg_loopback',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  }) +
  sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_loopback', name: 'bash', input: {} } }) +
  sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ command: 'echo hi', description: 'Say hi' }) } }) +
  sse('content_block_stop', { index: 0 }) +
  sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 1 } }) +
  sse('message_stop', {});

export function startLoopbackModel(mode: 'refuse' | 'complete' | 'tool' = 'refuse'): Promise<LoopbackModel> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method} ${req.url}`);
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (mode === 'complete' && req.method === 'POST' && /\/responses$/.test(req.url ?? '')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(COMPLETED_TURN);
        return;
      }
      if (mode === 'tool' && req.method === 'POST' && /\/messages$/.test(req.url ?? '') && body.includes('"tools"') && !body.includes('"tool_result"')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(BASH_TOOL_CALL);
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(REFUSAL);
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket) => {
    requests.push(`UPGRADE ${req.url}`);
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(REFUSAL)}\r\nconnection: close\r\n\r\n${REFUSAL}`,
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}
