// The loopback model server (test/helpers/modelServer.ts) read as each API's client reads it: raw
// fetch, server-sent events split and accumulated the way the vendor SDKs do, for Anthropic
// Messages, OpenAI Chat Completions, OpenAI Responses and Gemini, streamed and not, and Augment's
// chat stream (Auggie's JSON lines). A script's reply, its tool step (the shell tool's call, then
// the reply once the result comes back) and each error in the API's own shape; side requests that
// take no step; the shell tool found by its schema; a client's retry of a refused turn; the model
// lists, unknown paths and the WebSocket refusal. (No vendor SDK is installed here, so the clients
// below follow their wire formats.)
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { minimalValue } from '../helpers/modelRequest';
import type { ModelApi, ModelStep } from '../helpers/modelScript';
import { startModelServer, type ModelServer } from '../helpers/modelServer';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Turn {
  text: string;
  call?: { id: string; name: string; args: unknown };
  finish: string;
}

interface ToolDef {
  name: string;
  parameters: Json;
}

const SHELL: ToolDef = {
  name: 'run_shell_command',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string' }, description: { type: 'string' }, timeout: { type: 'number' } },
    required: ['command', 'description'],
  },
};
const READ: ToolDef = { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };

/** The events of a server-sent event stream: the event's name (if any) and its data. */
function events(text: string): Array<{ event?: string; data: string }> {
  return text
    .split(/\r?\n\r?\n/)
    .filter((chunk) => chunk.trim())
    .map((chunk) => {
      const lines = chunk.split(/\r?\n/);
      const event = lines
        .find((l) => l.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event, data };
    });
}

/** One API's client: the path of a call, its request bodies and how it reads an answer. */
interface Client {
  api: ModelApi;
  path(stream: boolean): string;
  body(opts: { stream: boolean; tools: ToolDef[]; prompt: string; result?: { id: string; name: string } }): Json;
  read(text: string, stream: boolean): Turn;
  errorOf(body: Json): { message: string; kind: string };
}

const anthropic: Client = {
  api: 'anthropic',
  path: () => '/v1/messages?beta=true',
  body: ({ stream, tools, prompt, result }) => ({
    model: 'claude-test',
    max_tokens: 100,
    stream,
    tools: tools.map((t) => ({ name: t.name, description: t.name, input_schema: t.parameters })),
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>context</system-reminder>' },
          { type: 'text', text: prompt },
        ],
      },
      ...(result
        ? [
            { role: 'assistant', content: [{ type: 'tool_use', id: result.id, name: result.name, input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: result.id, content: 'ok' }] },
          ]
        : []),
      // Claude Code appends system-role notes after the prompt.
      { role: 'system', content: 'a note' },
    ],
  }),
  read(text, stream) {
    if (!stream) {
      const m = JSON.parse(text) as Json;
      const tool = (m.content as Json[]).find((b) => b.type === 'tool_use');
      return {
        text: (m.content as Json[])
          .filter((b) => b.type === 'text')
          .map((b) => b.text as string)
          .join(''),
        call: tool && { id: tool.id, name: tool.name, args: tool.input },
        finish: m.stop_reason,
      };
    }
    const evs = events(text);
    expect(evs[0]!.event).toBe('message_start');
    expect(evs.at(-1)!.event).toBe('message_stop');
    const blocks: Json[] = [];
    let finish = '';
    for (const e of evs) {
      const d = JSON.parse(e.data) as Json;
      expect(d.type).toBe(e.event);
      if (d.type === 'content_block_start') blocks[d.index] = { ...d.content_block, json: '' };
      if (d.type === 'content_block_delta' && d.delta.type === 'text_delta') blocks[d.index]!.text += d.delta.text;
      if (d.type === 'content_block_delta' && d.delta.type === 'input_json_delta') blocks[d.index]!.json += d.delta.partial_json;
      if (d.type === 'message_delta') finish = d.delta.stop_reason;
    }
    const tool = blocks.find((b) => b.type === 'tool_use');
    return {
      text: blocks
        .filter((b) => b.type === 'text')
        .map((b) => b.text as string)
        .join(''),
      call: tool && { id: tool.id, name: tool.name, args: JSON.parse(tool.json as string) },
      finish,
    };
  },
  errorOf: (b) => {
    expect(b.type).toBe('error');
    return { message: b.error.message, kind: b.error.type };
  },
};

const chat: Client = {
  api: 'openai-chat',
  path: () => '/v1/chat/completions',
  body: ({ stream, tools, prompt, result }) => ({
    model: 'gpt-test',
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
    tools: tools.map((t) => ({ type: 'function', function: { name: t.name, parameters: t.parameters } })),
    messages: [
      { role: 'system', content: 'You are an agent.' },
      // Copilot puts the time before the prompt, in a tag.
      { role: 'user', content: `<current_datetime>2026-12-07T11:30:25</current_datetime>\n\n${prompt}` },
      ...(result
        ? [
            { role: 'assistant', content: null, tool_calls: [{ id: result.id, type: 'function', function: { name: result.name, arguments: '{}' } }] },
            { role: 'tool', tool_call_id: result.id, content: 'ok' },
          ]
        : []),
    ],
  }),
  read(text, stream) {
    if (!stream) {
      const c = (JSON.parse(text) as Json).choices[0];
      const tc = c.message.tool_calls?.[0];
      return {
        text: c.message.content ?? '',
        call: tc && { id: tc.id, name: tc.function.name, args: JSON.parse(tc.function.arguments) },
        finish: c.finish_reason,
      };
    }
    const evs = events(text);
    expect(evs.at(-1)!.data).toBe('[DONE]');
    let out = '';
    let finish = '';
    let usage: Json | undefined;
    const calls: Json[] = [];
    for (const e of evs.slice(0, -1)) {
      const d = JSON.parse(e.data) as Json;
      expect(d.object).toBe('chat.completion.chunk');
      if (d.usage) usage = d.usage;
      const c = d.choices[0];
      if (!c) continue;
      out += c.delta.content ?? '';
      for (const t of c.delta.tool_calls ?? []) {
        calls[t.index] ??= { id: '', name: '', args: '' };
        if (t.id) calls[t.index]!.id = t.id;
        if (t.function?.name) calls[t.index]!.name = t.function.name;
        calls[t.index]!.args += t.function?.arguments ?? '';
      }
      finish = c.finish_reason ?? finish;
    }
    expect(usage?.total_tokens).toBeGreaterThan(0);
    const t = calls[0];
    return { text: out, call: t && { id: t.id, name: t.name, args: JSON.parse(t.args as string) }, finish };
  },
  errorOf: (b) => ({ message: b.error.message, kind: b.error.type }),
};

const responses: Client = {
  api: 'openai-responses',
  path: () => '/v1/responses',
  body: ({ stream, tools, prompt, result }) => ({
    model: 'gpt-test',
    stream,
    tools: tools.map((t) => ({ type: 'function', name: t.name, parameters: t.parameters })),
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'instructions' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
      ...(result
        ? [
            { type: 'function_call', call_id: result.id, name: result.name, arguments: '{}' },
            { type: 'function_call_output', call_id: result.id, output: 'ok' },
          ]
        : []),
    ],
  }),
  read(text, stream) {
    let items: Json[];
    let out = '';
    if (!stream) {
      const r = JSON.parse(text) as Json;
      expect(r.status).toBe('completed');
      items = r.output;
      out = items
        .filter((i) => i.type === 'message')
        .map((i) => i.content[0].text as string)
        .join('');
    } else {
      const evs = events(text).map((e) => ({ name: e.event, d: JSON.parse(e.data) as Json }));
      expect(evs[0]!.d.type).toBe('response.created');
      expect(evs.at(-1)!.d.type).toBe('response.completed');
      expect(evs.at(-1)!.d.response.usage.total_tokens).toBeGreaterThan(0);
      for (const e of evs) expect(e.name).toBe(e.d.type);
      out = evs
        .filter((e) => e.d.type === 'response.output_text.delta')
        .map((e) => e.d.delta as string)
        .join('');
      items = evs.filter((e) => e.d.type === 'response.output_item.done').map((e) => e.d.item as Json);
    }
    const fc = items.find((i) => i.type === 'function_call' || i.type === 'custom_tool_call');
    const args = fc?.type === 'custom_tool_call' ? fc.input : fc && JSON.parse(fc.arguments);
    return { text: out, call: fc && { id: fc.call_id, name: fc.name, args }, finish: fc ? 'tool' : 'stop' };
  },
  errorOf: (b) => ({ message: b.error.message, kind: b.error.type }),
};

const gemini: Client = {
  api: 'gemini',
  path: (stream) => (stream ? '/v1beta/models/gemini-test:streamGenerateContent?alt=sse' : '/v1beta/models/gemini-test:generateContent'),
  body: ({ tools, prompt, result }) => ({
    contents: [
      { role: 'user', parts: [{ text: prompt }] },
      ...(result
        ? [
            { role: 'model', parts: [{ functionCall: { name: result.name, args: {} } }] },
            { role: 'user', parts: [{ functionResponse: { name: result.name, response: { output: 'ok' } } }] },
          ]
        : []),
    ],
    tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, parametersJsonSchema: t.parameters })) }],
  }),
  read(text, stream) {
    const chunks = stream ? events(text).map((e) => JSON.parse(e.data) as Json) : [JSON.parse(text) as Json];
    const parts = chunks.flatMap((c) => c.candidates[0].content.parts as Json[]);
    const fc = parts.find((p) => p.functionCall)?.functionCall;
    expect(chunks.at(-1)!.usageMetadata.totalTokenCount).toBeGreaterThan(0);
    return {
      text: parts.map((p) => (p.text as string | undefined) ?? '').join(''),
      call: fc && { id: '', name: fc.name, args: fc.args },
      finish: chunks.at(-1)!.candidates[0].finishReason,
    };
  },
  errorOf: (b) => ({ message: b.error.message, kind: b.error.status }),
};

const CLIENTS = [anthropic, chat, responses, gemini];
const END: Record<string, { stop: string; tool: string }> = {
  anthropic: { stop: 'end_turn', tool: 'tool_use' },
  'openai-chat': { stop: 'stop', tool: 'tool_calls' },
  'openai-responses': { stop: 'stop', tool: 'tool' },
  gemini: { stop: 'STOP', tool: 'STOP' },
};

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(steps?: ModelStep[] | { steps: ModelStep[]; then?: ModelStep }): Promise<ModelServer> {
  server = await startModelServer(steps);
  return server;
}

async function post(s: ModelServer, path: string, body: unknown): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(s.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe.each(CLIENTS.flatMap((c) => [true, false].map((stream) => ({ c, stream, name: `${c.api}, ${stream ? 'streamed' : 'not streamed'}` }))))(
  '$name',
  ({ c, stream }) => {
    const ask = async (s: ModelServer, tools: ToolDef[], prompt: string, result?: { id: string; name: string }) => {
      const r = await post(s, c.path(stream), c.body({ stream, tools, prompt, result }));
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toContain(stream ? 'text/event-stream' : 'application/json');
      return c.read(r.text, stream);
    };

    it('answers a reply step as text that ends the turn, then the default reply', async () => {
      const s = await start([{ reply: 'Hello there.' }]);
      expect(await ask(s, [SHELL], 'say hi')).toEqual({ text: 'Hello there.', call: undefined, finish: END[c.api]!.stop });
      expect((await ask(s, [SHELL], 'again')).text).toBe('Done.');
      expect(s.requests.map((r) => [r.api, r.kind, r.stream, r.prompt, r.status, r.shellTool])).toEqual([
        [c.api, 'turn', stream, 'say hi', 200, SHELL.name],
        [c.api, 'turn', stream, 'again', 200, SHELL.name],
      ]);
    });

    it('answers a tool step with a call of the shell tool, and its result with the reply', async () => {
      const s = await start({ steps: [{ tool: 'touch probe.txt', reply: 'Created it.' }], then: { reply: 'Next.' } });
      const turn = await ask(s, [READ, SHELL], 'create the probe');
      expect(turn.finish).toBe(END[c.api]!.tool);
      expect(turn.call).toMatchObject({ name: SHELL.name, args: { command: 'touch probe.txt', description: 'Run touch probe.txt' } });
      const after = await ask(s, [READ, SHELL], 'create the probe', { id: turn.call!.id || 'call_1', name: SHELL.name });
      expect(after).toEqual({ text: 'Created it.', call: undefined, finish: END[c.api]!.stop });
      expect(s.requests.map((r) => r.kind)).toEqual(['turn', 'continuation']);
      // The next turn takes the next step.
      expect((await ask(s, [SHELL], 'more')).text).toBe('Next.');
    });

    it('a step with `more` calls each command as the result before comes back, then streams its reply a word at a time', async () => {
      const s = await start([{ tool: 'ls', more: ['cat a', 'seq 3'], reply: 'one two three four', paceMs: 5 }]);
      const calls: unknown[] = [];
      let turn = await ask(s, [SHELL], 'look around');
      while (turn.call) {
        calls.push(turn.call.args);
        turn = await ask(s, [SHELL], 'look around', { id: turn.call.id || 'call_1', name: SHELL.name });
      }
      expect(calls).toMatchObject([{ command: 'ls' }, { command: 'cat a' }, { command: 'seq 3' }]);
      expect(turn).toEqual({ text: 'one two three four', call: undefined, finish: END[c.api]!.stop });
      expect(s.requests.map((r) => r.kind)).toEqual(['turn', 'continuation', 'continuation', 'continuation']);
      if (!stream) return;
      // Streamed, the last word came in an event of its own.
      s.play([{ reply: 'one two three four', paceMs: 5 }]);
      const raw = await post(s, c.path(true), c.body({ stream: true, tools: [SHELL], prompt: 'again' }));
      expect(events(raw.text).some((e) => e.data.includes('four') && !e.data.includes('one'))).toBe(true);
    });

    it('answers a request without tools on the side, taking no step', async () => {
      const s = await start([{ reply: 'The turn.' }]);
      expect((await ask(s, [], 'a title please')).text).toBe('OK.');
      expect((await ask(s, [SHELL], 'go')).text).toBe('The turn.');
      expect(s.requests.map((r) => r.kind)).toEqual(['side', 'turn']);
    });

    it('answers a tool step as its reply where no shell tool is offered', async () => {
      const s = await start([{ tool: 'touch probe.txt', reply: 'No shell here.' }]);
      expect(await ask(s, [READ], 'create the probe')).toEqual({ text: 'No shell here.', call: undefined, finish: END[c.api]!.stop });
      expect(s.requests[0]).toMatchObject({ kind: 'turn', shellTool: undefined });
    });
  },
);

describe.each(CLIENTS)('errors of $api', (c) => {
  it.each([400, 401, 403, 500, 529] as const)('%i in the API’s error shape', async (status) => {
    const s = await start([{ error: status, message: `failing with ${status}` }]);
    const r = await post(s, c.path(true), c.body({ stream: true, tools: [SHELL], prompt: 'go' }));
    expect(r.status).toBe(status);
    expect(r.headers.get('retry-after')).toBeNull();
    const e = c.errorOf(JSON.parse(r.text) as Json);
    expect(e.message).toBe(`failing with ${status}`);
    const kinds: Record<string, Record<number, string>> = {
      anthropic: { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 500: 'api_error', 529: 'overloaded_error' },
      'openai-chat': { 400: 'invalid_request_error', 401: 'invalid_request_error', 403: 'invalid_request_error', 500: 'server_error', 529: 'server_error' },
      'openai-responses': {
        400: 'invalid_request_error',
        401: 'invalid_request_error',
        403: 'invalid_request_error',
        500: 'server_error',
        529: 'server_error',
      },
      gemini: { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 500: 'INTERNAL', 529: 'UNAVAILABLE' },
    };
    expect(e.kind).toBe(kinds[c.api]![status]);
    expect(s.requests[0]).toMatchObject({ kind: 'turn', status });
  });

  it('429 with retryAfterS sends retry-after and the vendor’s reset headers', async () => {
    const s = await start([{ error: 429, retryAfterS: 30 }]);
    const before = Date.now();
    const r = await post(s, c.path(false), c.body({ stream: false, tools: [SHELL], prompt: 'go' }));
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('30');
    const body = JSON.parse(r.text) as Json;
    expect(c.errorOf(body).kind).toBe({ anthropic: 'rate_limit_error', gemini: 'RESOURCE_EXHAUSTED' }[c.api as string] ?? 'requests');
    if (c.api === 'anthropic') {
      const reset = Date.parse(r.headers.get('anthropic-ratelimit-requests-reset') ?? '');
      expect(reset - before).toBeGreaterThanOrEqual(29_000);
      expect(r.headers.get('anthropic-ratelimit-tokens-reset')).toBe(r.headers.get('anthropic-ratelimit-requests-reset'));
    } else if (c.api === 'gemini') {
      expect(body.error.code).toBe(429);
      expect(body.error.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }]);
    } else {
      expect(r.headers.get('x-ratelimit-reset-requests')).toBe('30s');
      expect(body.error.code).toBe('rate_limit_exceeded');
    }
  });

  it('a retry of the refused turn gets the same error; a new prompt takes the next step', async () => {
    const s = await start([{ error: 400 }, { reply: 'Next turn.' }]);
    for (let i = 0; i < 3; i++) expect((await post(s, c.path(true), c.body({ stream: true, tools: [SHELL], prompt: 'go' }))).status).toBe(400);
    const r = await post(s, c.path(false), c.body({ stream: false, tools: [SHELL], prompt: 'go on' }));
    expect(c.read(r.text, false).text).toBe('Next turn.');
    expect(s.requests.map((q) => [q.status, q.retry ?? false])).toEqual([
      [400, false],
      [400, true],
      [400, true],
      [200, false],
    ]);
  });
});

describe('the shell tool, found by its schema', () => {
  const cases: Array<[string, ToolDef, unknown]> = [
    [
      "Codex's shell: an argv",
      {
        name: 'shell',
        parameters: {
          type: 'object',
          properties: { command: { type: 'array', items: { type: 'string' } }, workdir: { type: 'string' } },
          required: ['command'],
        },
      },
      { command: ['bash', '-lc', 'touch probe.txt'] },
    ],
    [
      "Codex's exec_command: cmd",
      { name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' }, yield_time_ms: { type: 'number' } }, required: ['cmd'] } },
      { cmd: 'touch probe.txt' },
    ],
    [
      'any name, with a required command and other required fields',
      {
        name: 'terminal_run',
        parameters: {
          type: 'object',
          properties: {
            command: { type: 'string' },
            timeout_ms: { type: 'integer', maximum: 30_000 },
            background: { type: 'boolean' },
            mode: { enum: ['fg', 'bg'] },
          },
          required: ['command', 'timeout_ms', 'background', 'mode'],
        },
      },
      { command: 'touch probe.txt', timeout_ms: 30_000, background: false, mode: 'fg' },
    ],
    [
      "Cline's run_commands: a list of command lines (3.0.65)",
      {
        name: 'run_commands',
        parameters: {
          type: 'object',
          properties: { commands: { type: 'array', items: { type: 'string' } } },
          required: ['commands'],
          additionalProperties: false,
        },
      },
      { commands: ['touch probe.txt'] },
    ],
  ];
  it.each(cases)('%s', async (_name, tool, args) => {
    const s = await start([{ tool: 'touch probe.txt', reply: 'ok' }]);
    const r = await post(s, chat.path(false), chat.body({ stream: false, tools: [READ, tool], prompt: 'go' }));
    expect(chat.read(r.text, false).call).toMatchObject({ name: tool.name, args });
  });

  it("Codex's code mode: a freeform exec tool offered in an input item gets the script that runs the command", async () => {
    const s = await start([{ tool: 'touch probe.txt', reply: 'Ran it.' }]);
    const exec = { type: 'custom', name: 'exec', description: 'declare const tools: { exec_command(args: {\n  cmd: string;\n}): Promise<unknown>; };' };
    const body = {
      model: 'gpt-test',
      stream: true,
      input: [
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'namespace', name: 'functions', tools: [exec] }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
      ],
    };
    const turn = responses.read((await post(s, '/v1/responses', body)).text, true);
    expect(turn.call).toEqual({
      id: expect.any(String),
      name: 'exec',
      args: 'const result = await tools.exec_command({"cmd":"touch probe.txt"});\ntext(result);\n',
    });
    const after = { ...body, input: [...body.input, { type: 'custom_tool_call_output', call_id: turn.call!.id, output: 'ok' }] };
    expect(responses.read((await post(s, '/v1/responses', after)).text, true).text).toBe('Ran it.');
  });
});

describe('side requests asking for JSON get the smallest object their schema accepts', () => {
  const schema = {
    type: 'OBJECT',
    properties: { reasoning: { type: 'STRING' }, next_speaker: { type: 'STRING', enum: ['user', 'model'] }, score: { type: 'INTEGER', minimum: 1 } },
    required: ['reasoning', 'next_speaker'],
  };
  const expected = { reasoning: 'ok', next_speaker: 'user', score: 1 };

  it('Gemini responseJsonSchema, even where tools are offered', async () => {
    const s = await start([{ reply: 'not this' }]);
    const body = {
      ...gemini.body({ stream: false, tools: [SHELL], prompt: 'who speaks next?' }),
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
    };
    expect(JSON.parse(gemini.read((await post(s, gemini.path(false), body)).text, false).text)).toEqual(expected);
    expect(s.requests[0]!.kind).toBe('side');
  });

  it('OpenAI response_format and Responses text.format', async () => {
    const s = await start();
    const chatBody = { ...chat.body({ stream: true, tools: [], prompt: 'x' }), response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } };
    expect(JSON.parse(chat.read((await post(s, chat.path(true), chatBody)).text, true).text)).toEqual(expected);
    const title = { type: 'object', properties: { title: { type: 'string', minLength: 1, maxLength: 36 } }, required: ['title'] };
    const respBody = { ...responses.body({ stream: true, tools: [SHELL], prompt: 'x' }), text: { format: { type: 'json_schema', name: 't', schema: title } } };
    expect(JSON.parse(responses.read((await post(s, '/v1/responses', respBody)).text, true).text)).toEqual({ title: 'ok' });
    expect(s.requests.map((r) => r.kind)).toEqual(['side', 'side']);
  });

  it('a forced tool (a structured answer as a tool call) gets a call with such arguments', async () => {
    const s = await start([{ reply: 'not this' }]);
    const body = {
      ...chat.body({ stream: false, tools: [{ name: 'respond_in_schema', parameters: schema }], prompt: 'x' }),
      tool_choice: { type: 'function', function: { name: 'respond_in_schema' } },
    };
    expect(chat.read((await post(s, chat.path(false), body)).text, false).call).toMatchObject({ name: 'respond_in_schema', args: expected });
    expect(s.requests[0]!.kind).toBe('side');
  });

  it('tool_choice "required" with one tool forces it; a next-prompt suggestion takes no step', async () => {
    const s = await start([{ reply: 'the turn' }]);
    const block = { name: 'classify', parameters: { type: 'object', properties: { shouldBlock: { type: 'boolean' } }, required: ['shouldBlock'] } };
    const forced = { ...chat.body({ stream: false, tools: [block], prompt: 'x' }), tool_choice: 'required' };
    expect(chat.read((await post(s, chat.path(false), forced)).text, false).call).toMatchObject({ name: 'classify', args: { shouldBlock: false } });
    const suggestion = chat.body({ stream: true, tools: [SHELL], prompt: '[SUGGESTION MODE: Suggest what the user might naturally type next.]' });
    expect(chat.read((await post(s, chat.path(true), suggestion)).text, true).text).toBe('OK.');
    expect(chat.read((await post(s, chat.path(true), chat.body({ stream: true, tools: [SHELL], prompt: 'go' }))).text, true).text).toBe('the turn');
    expect(s.requests.map((r) => r.kind)).toEqual(['side', 'side', 'turn']);
  });

  it('minimalValue follows $ref, anyOf, allOf, const and minItems', () => {
    const root = {
      type: 'object',
      $defs: { item: { type: 'object', properties: { id: { const: 7 } } } },
      properties: {
        list: { type: 'array', minItems: 2, items: { $ref: '#/$defs/item' } },
        either: { anyOf: [{ type: 'null' }, { type: 'boolean' }] },
        both: {
          allOf: [
            { type: 'object', properties: { a: { type: 'string' } } },
            { type: 'object', properties: { b: { type: ['null', 'number'] } } },
          ],
        },
      },
    };
    expect(minimalValue(root)).toEqual({ list: [{ id: 7 }, { id: 7 }], either: null, both: { a: 'ok', b: 0 } });
  });
});

describe('the rest of the API surface', () => {
  it('lists one model for OpenAI, Anthropic and Gemini, counts tokens, and 404s the unknown', async () => {
    const s = await start();
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const r = await fetch(s.url + path, { headers });
      return { status: r.status, body: (await r.json()) as Json };
    };
    expect((await get('/v1/models')).body).toMatchObject({ object: 'list', data: [{ id: 'loopback-model', object: 'model' }] });
    expect((await get('/api/anthropic/v1/models', { 'anthropic-version': '2023-06-01' })).body).toMatchObject({
      data: [{ id: 'loopback-model', type: 'model', display_name: 'Loopback model' }],
      has_more: false,
    });
    expect((await get('/v1beta/models')).body.models[0]).toMatchObject({
      name: 'models/loopback-model',
      supportedGenerationMethods: expect.arrayContaining(['generateContent']),
    });
    expect((await post(s, '/v1/messages/count_tokens', { messages: [] })).text).toBe('{"input_tokens":1}');
    expect(JSON.parse((await post(s, '/v1beta/models/g:countTokens', { contents: [] })).text)).toEqual({ totalTokens: 1 });
    const unknown = await get('/v1/embeddings');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('/v1/embeddings');
    expect(s.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /v1/models 200',
      'GET /api/anthropic/v1/models 200',
      'GET /v1beta/models 200',
      'POST /v1/messages/count_tokens 200',
      'POST /v1beta/models/g:countTokens 200',
      'GET /v1/embeddings 404',
    ]);
  });

  it('a body that is not JSON is a 400 in the API’s shape, saying so', async () => {
    const s = await start();
    const r = await fetch(`${s.url}/v1/messages`, { method: 'POST', body: 'not json' });
    expect(r.status).toBe(400);
    expect(((await r.json()) as Json).error.message).toContain('not a JSON object');
  });

  it('refuses a WebSocket upgrade to …/responses with a plain HTTP 400', async () => {
    const s = await start();
    const { port } = new URL(s.url);
    const answer = await new Promise<string>((resolve, reject) => {
      let got = '';
      const sock = connect(Number(port), '127.0.0.1', () =>
        sock.write(
          'GET /v1/responses HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      );
      sock.on('data', (d) => (got += d.toString()));
      sock.on('end', () => resolve(got));
      sock.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(s.requests[0]).toMatchObject({ api: 'openai-responses', path: '/v1/responses', status: 400, kind: 'side' });
  });

  it('play() replaces the script from its first step; the raw body is kept', async () => {
    const s = await start([{ reply: 'first' }, { reply: 'second' }]);
    const turn = async () => chat.read((await post(s, chat.path(false), chat.body({ stream: false, tools: [SHELL], prompt: 'p' }))).text, false).text;
    expect(await turn()).toBe('first');
    s.play({ steps: [{ reply: 'again' }], then: { reply: 'after' } });
    expect(await turn()).toBe('again');
    expect(await turn()).toBe('after');
    expect(JSON.parse(s.requests[0]!.body!)).toMatchObject({ model: 'gpt-test' });
  });
});

describe("Augment's /chat-stream (Auggie)", () => {
  /** Auggie's launch-process tool, as its tool_definitions carry it (the schema as JSON text). */
  const LAUNCH = {
    name: 'launch-process',
    description: 'Launch a new process with a shell command.',
    input_schema_json: JSON.stringify({
      type: 'object',
      properties: {
        command: { type: 'string' },
        wait: { type: 'boolean' },
        max_wait_seconds: { type: 'number' },
        cwd: { type: 'string' },
        keep_stdin_open: { type: 'boolean' },
      },
      required: ['command', 'wait', 'max_wait_seconds', 'cwd'],
    }),
  };
  const VIEW = { name: 'view', description: 'View a file.', input_schema_json: '{"type":"object","properties":{"path":{"type":"string"}}}' };
  const IDE_STATE = { id: 2, type: 4, ide_state_node: { workspace_folders: [], current_terminal: { terminal_id: 0, current_working_directory: '/p' } } };

  /** A request as Auggie sends one: the user's words in a text_node, or a tool's result. */
  function request(opts: { prompt?: string; result?: string; history?: Json[] }): Json {
    const nodes = opts.result
      ? [IDE_STATE, { id: 1, type: 1, tool_result_node: { tool_use_id: opts.result, content: 'ok', is_error: false } }]
      : opts.prompt !== undefined
        ? [{ id: 1, type: 0, text_node: { content: opts.prompt } }, IDE_STATE]
        : [];
    return { model: '', message: '', mode: 'CLI_AGENT', chat_history: opts.history ?? [], nodes, tool_definitions: [VIEW, LAUNCH], conversation_id: 'c1' };
  }

  /** Reads the stream as Auggie does: one JSON object a line, text deltas and response nodes. */
  function read(text: string): { text: string; nodes: Json[]; stop?: number } {
    const chunks = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Json);
    for (const c of chunks) expect(typeof c.text).toBe('string');
    return { text: chunks.map((c) => c.text as string).join(''), nodes: chunks.flatMap((c) => c.nodes as Json[]), stop: chunks.at(-1)!.stop_reason };
  }

  it('answers a reply, then a call of launch-process and, once its result is back, the reply', async () => {
    const s = await start({ steps: [{ reply: 'Hello.' }, { tool: 'touch probe.txt', reply: 'Created it.' }], then: { reply: 'Next.' } });
    const hello = await post(s, '/chat-stream', request({ prompt: 'say hi' }));
    expect(hello.status).toBe(200);
    expect(read(hello.text)).toEqual({ text: 'Hello.', nodes: [{ id: 0, type: 0, content: 'Hello.' }], stop: 1 });

    const turn = read((await post(s, '/chat-stream', request({ prompt: 'create the probe', history: [{}] }))).text);
    expect(turn.stop).toBe(3);
    const use = turn.nodes.find((n) => n.type === 5)!.tool_use as Json;
    expect(use.tool_name).toBe('launch-process');
    expect(JSON.parse(use.input_json as string)).toEqual({ command: 'touch probe.txt', wait: true, max_wait_seconds: 60, cwd: '.' });

    const after = read((await post(s, '/chat-stream', request({ result: use.tool_use_id as string, history: [{}, {}] }))).text);
    expect(after).toEqual({ text: 'Created it.', nodes: [{ id: 0, type: 0, content: 'Created it.' }], stop: 1 });
    expect(s.requests.map((r) => [r.api, r.kind, r.prompt, r.shellTool])).toEqual([
      ['augment', 'turn', 'say hi', 'launch-process'],
      ['augment', 'turn', 'create the probe', 'launch-process'],
      ['augment', 'continuation', undefined, 'launch-process'],
    ]);
  });

  it('a silent request with no user words (its title) is answered on the side, taking no step', async () => {
    const s = await start([{ reply: 'The turn.' }]);
    expect(read((await post(s, '/chat-stream', { ...request({}), silent: true })).text).text).toBe('OK.');
    expect(read((await post(s, '/chat-stream', request({ prompt: 'go' }))).text).text).toBe('The turn.');
    expect(s.requests.map((r) => r.kind)).toEqual(['side', 'turn']);
  });

  it('an error step is the HTTP status with {error: message}; its retry gets it again', async () => {
    const s = await start([{ error: 400, message: 'refused' }, { reply: 'Next turn.' }]);
    for (let i = 0; i < 2; i++) {
      const r = await post(s, '/chat-stream', request({ prompt: 'go' }));
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(JSON.parse(r.text)).toEqual({ error: 'refused' });
    }
    expect(read((await post(s, '/chat-stream', request({ prompt: 'go on', history: [{}] }))).text).text).toBe('Next turn.');
    expect(s.requests.map((q) => [q.status, q.retry ?? false])).toEqual([
      [400, false],
      [400, true],
      [200, false],
    ]);
  });

  it('answers what it asks at start: its models and flags (hooks on), remote tools, MCP configurations', async () => {
    const s = await start();
    const models = JSON.parse((await post(s, '/get-models', {})).text) as Json;
    expect(models).toMatchObject({ default_model: 'loopback-model', models: [{ name: 'loopback-model' }], feature_flags: { enable_hooks: true } });
    expect(JSON.parse((await post(s, '/agents/list-remote-tools', { tool_id_list: { tool_ids: [] } })).text)).toEqual({ tools: [] });
    for (const p of ['/settings/get-mcp-tenant-configs', '/settings/get-mcp-user-configs', '/report-error'])
      expect(await post(s, p, {})).toMatchObject({ status: 200, text: '{}' });
    expect((await post(s, '/checkpoint-blobs', {})).status).toBe(404);
    expect(s.requests.every((r) => r.api === 'augment' || r.status === 404)).toBe(true);
  });
});
