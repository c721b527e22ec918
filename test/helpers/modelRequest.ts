// How the loopback model server (modelServer.ts) reads a request of each API into one shape: which
// tools it offers, whether its last message is the user's or a tool's result, the user's prompt,
// whether it asks for JSON (and by which schema), and whether it forces one tool. Plus the pieces
// that answer such a request sensibly whatever the agent: the shell tool found by its schema, the
// arguments of a call to it, and the smallest value a JSON schema accepts.
import type { ModelApi } from './modelScript';

export type JsonSchema = Record<string, unknown>;

export interface OfferedTool {
  name: string;
  /** Its parameters' JSON schema ({} when it declares none). */
  schema: JsonSchema;
  /** A freeform tool (the Responses API's `custom` type) takes plain text, described here. */
  freeform?: string;
}

export interface ParsedRequest {
  api: ModelApi;
  stream: boolean;
  model: string;
  tools: OfferedTool[];
  /** Who sent the last message: the user, a tool's result, or anything else (none, the model). */
  last: 'user' | 'tool-result' | 'other';
  /** The user's last text, less the context blocks agents wrap in tags (`<system-reminder>`). */
  prompt?: string;
  /** Set when the request asks for a JSON answer: the schema it must match ({} for any object). */
  json?: JsonSchema;
  /** A tool the request forces the model to call (a structured answer passed as a tool call). */
  forced?: OfferedTool;
  /** A rough input token count, for usage figures. */
  inputTokens: number;
  /** The conversation's length and last user text: a client's retry of a request has the same. */
  turnKey: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The user's own words among text pieces, less the tagged context agents wrap around them
 *  (`<system-reminder>…</system-reminder>`, Copilot's `<current_datetime>…` before the prompt). */
function typed(texts: string[]): string | undefined {
  const own = texts.map((t) => t.replace(/<([\w-]+)[^>]*>[\s\S]*?<\/\1>/g, '').trim()).filter(Boolean);
  const joined = (own.length ? own : texts).join('\n').trim();
  return joined || undefined;
}

function textsOf(content: unknown, textTypes: string[]): string[] {
  if (typeof content === 'string') return [content];
  return arr(content)
    .filter(isObj)
    .filter((b) => textTypes.includes(str(b.type) ?? '') && typeof b.text === 'string')
    .map((b) => b.text as string);
}

/** The conversation's last message, past the system and developer notes some agents append
 *  after the user's (Claude Code adds system-role messages after the prompt). */
function lastMessage(messages: Obj[]): Obj | undefined {
  return messages.filter((m) => m.role !== 'system' && m.role !== 'developer').at(-1);
}

function base(
  api: ModelApi,
  body: Obj,
  conversation: unknown[],
  prompt: string | undefined,
): Pick<ParsedRequest, 'api' | 'model' | 'inputTokens' | 'turnKey' | 'prompt'> {
  return {
    api,
    model: str(body.model) ?? 'loopback-model',
    inputTokens: Math.max(1, Math.round(JSON.stringify(body).length / 4)),
    prompt,
    turnKey: `${conversation.length}:${prompt ?? ''}`,
  };
}

/** Anthropic Messages: tools[{name, input_schema}], the last user message's tool_result blocks. */
export function parseAnthropic(body: Obj): ParsedRequest {
  const tools = arr(body.tools)
    .filter(isObj)
    .filter((t) => typeof t.name === 'string')
    .map((t) => ({ name: t.name as string, schema: isObj(t.input_schema) ? t.input_schema : {} }));
  const lastMsg = lastMessage(arr(body.messages).filter(isObj));
  const blocks = arr(lastMsg?.content).filter(isObj);
  const last = lastMsg?.role !== 'user' ? 'other' : blocks.some((b) => b.type === 'tool_result') ? 'tool-result' : 'user';
  const userMsg = arr(body.messages)
    .filter(isObj)
    .filter((m) => m.role === 'user')
    .at(-1);
  const format = isObj(body.output_format)
    ? body.output_format
    : isObj(body.output_config) && isObj(body.output_config.format)
      ? body.output_config.format
      : undefined;
  const choice = isObj(body.tool_choice) && body.tool_choice.type === 'tool' ? str(body.tool_choice.name) : undefined;
  return {
    ...base('anthropic', body, arr(body.messages), typed(textsOf(userMsg?.content, ['text']))),
    stream: body.stream === true,
    tools,
    last,
    json: format?.type === 'json_schema' ? (isObj(format.schema) ? format.schema : {}) : undefined,
    forced: tools.find((t) => t.name === choice),
  };
}

/** OpenAI Chat Completions: tools[{type:'function', function:{name, parameters}}], role 'tool'. */
export function parseChat(body: Obj): ParsedRequest {
  const tools = [...arr(body.tools).map((t) => (isObj(t) ? t.function : undefined)), ...arr(body.functions)]
    .filter(isObj)
    .filter((f) => typeof f.name === 'string')
    .map((f) => ({ name: f.name as string, schema: isObj(f.parameters) ? f.parameters : {} }));
  const messages = arr(body.messages).filter(isObj);
  const role = lastMessage(messages)?.role;
  const fmt = isObj(body.response_format) ? body.response_format : undefined;
  const schema = isObj(fmt?.json_schema) && isObj(fmt.json_schema.schema) ? fmt.json_schema.schema : {};
  const choice = isObj(body.tool_choice) && isObj(body.tool_choice.function) ? str(body.tool_choice.function.name) : undefined;
  return {
    ...base('openai-chat', body, messages, typed(textsOf(messages.filter((m) => m.role === 'user').at(-1)?.content, ['text']))),
    stream: body.stream === true,
    tools,
    last: role === 'user' ? 'user' : role === 'tool' || role === 'function' ? 'tool-result' : 'other',
    json: fmt?.type === 'json_schema' || fmt?.type === 'json_object' ? schema : undefined,
    // Qwen's structured side answers: one `respond_in_schema` tool, tool_choice "required".
    forced:
      tools.find((t) => t.name === choice) ??
      (tools.length === 1 && (body.tool_choice === 'required' || tools[0]!.name === 'respond_in_schema') ? tools[0] : undefined),
  };
}

const RESULT_ITEMS = ['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'mcp_call_output'];

/** The Responses API's tools, flattened out of namespaces: functions take JSON, `custom` tools text. */
function responsesTools(list: unknown[]): OfferedTool[] {
  return list.filter(isObj).flatMap((t): OfferedTool[] => {
    if (t.type === 'namespace') return responsesTools(arr(t.tools));
    if (typeof t.name !== 'string') return [];
    if (t.type === 'custom') return [{ name: t.name, schema: {}, freeform: str(t.description) ?? '' }];
    return [{ name: t.name, schema: isObj(t.parameters) ? t.parameters : {} }];
  });
}

/** OpenAI Responses: tools[{type:'function', name, parameters}] (Codex sends them in an
 *  `additional_tools` input item instead, in namespaces), input items (function_call_output). */
export function parseResponses(body: Obj): ParsedRequest {
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arr(body.input).filter(isObj);
  const tools = responsesTools([...arr(body.tools), ...input.filter((i) => i.type === 'additional_tools').flatMap((i) => arr(i.tools))]);
  const lastItem = lastMessage(input);
  const last = RESULT_ITEMS.includes(str(lastItem?.type) ?? '') ? 'tool-result' : lastItem?.role === 'user' ? 'user' : 'other';
  const fmt = isObj(body.text) && isObj(body.text.format) ? body.text.format : undefined;
  const choice = isObj(body.tool_choice) ? str(body.tool_choice.name) : undefined;
  return {
    ...base('openai-responses', body, input, typed(textsOf(input.filter((i) => i.role === 'user').at(-1)?.content, ['input_text', 'text']))),
    stream: body.stream === true,
    tools,
    last,
    json: fmt?.type === 'json_schema' ? (isObj(fmt.schema) ? fmt.schema : {}) : fmt?.type === 'json_object' ? {} : undefined,
    forced: tools.find((t) => t.name === choice && !t.freeform),
  };
}

/** Gemini generateContent: tools[{functionDeclarations:[{name, parameters|parametersJsonSchema}]}],
 *  functionResponse parts, generationConfig.responseJsonSchema / responseSchema. */
export function parseGemini(body: Obj, stream: boolean): ParsedRequest {
  const tools = arr(body.tools)
    .filter(isObj)
    .flatMap((t) => arr(t.functionDeclarations))
    .filter(isObj)
    .filter((f) => typeof f.name === 'string')
    .map((f) => ({ name: f.name as string, schema: isObj(f.parametersJsonSchema) ? f.parametersJsonSchema : isObj(f.parameters) ? f.parameters : {} }));
  const contents = arr(body.contents).filter(isObj);
  const lastC = contents.at(-1);
  const parts = arr(lastC?.parts).filter(isObj);
  const last = lastC?.role !== 'user' && lastC?.role !== undefined ? 'other' : parts.some((p) => isObj(p.functionResponse)) ? 'tool-result' : 'user';
  const cfg = isObj(body.generationConfig) ? body.generationConfig : {};
  const schema = isObj(cfg.responseJsonSchema) ? cfg.responseJsonSchema : isObj(cfg.responseSchema) ? cfg.responseSchema : undefined;
  const fcc = isObj(body.toolConfig) && isObj(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  const allowed = arr(fcc.allowedFunctionNames);
  const userParts = arr(contents.filter((c) => c.role === 'user' || c.role === undefined).at(-1)?.parts).filter(isObj);
  return {
    ...base('gemini', body, contents, typed(userParts.map((p) => p.text).filter((t): t is string => typeof t === 'string'))),
    stream,
    tools,
    last: contents.length ? last : 'other',
    json: schema ?? (cfg.responseMimeType === 'application/json' ? {} : undefined),
    forced: fcc.mode === 'ANY' && (allowed.length === 1 || tools.length === 1) ? (tools.find((t) => t.name === allowed[0]) ?? tools[0]) : undefined,
  };
}

/** Augment's /chat-stream (Auggie): tool_definitions[{name, input_schema_json}] (the schema as JSON
 *  text); the turn's input in `nodes`: a text_node with the user's words, or tool_result_node(s)
 *  carrying what the last call returned (plus an ide_state_node either way); earlier exchanges in
 *  chat_history. Every request streams. */
export function parseAugment(body: Obj): ParsedRequest {
  const tools = arr(body.tool_definitions)
    .filter(isObj)
    .filter((t) => typeof t.name === 'string')
    .map((t) => {
      let schema: unknown = {};
      try {
        schema = JSON.parse(str(t.input_schema_json) ?? '{}');
      } catch {
        schema = {};
      }
      return { name: t.name as string, schema: isObj(schema) ? schema : {} };
    });
  const nodes = arr(body.nodes).filter(isObj);
  const texts = nodes.map((n) => (isObj(n.text_node) ? str(n.text_node.content) : undefined)).filter((t): t is string => t !== undefined);
  const message = str(body.message);
  if (message) texts.unshift(message);
  const last = nodes.some((n) => isObj(n.tool_result_node)) ? 'tool-result' : texts.length ? 'user' : 'other';
  return {
    ...base('augment', body, [...arr(body.chat_history), body.nodes], typed(texts)),
    stream: true,
    tools,
    last,
  };
}

// --- The shell tool and a call to it ---------------------------------------------------------

const SHELL_NAMES = /^(bash|shell|shell_command|run_shell_command|exec_command|execute|execute_command|run_command|run_commands|run_terminal_cmd|terminal)$/i;

function props(schema: JsonSchema): Obj {
  return isObj(schema.properties) ? schema.properties : {};
}

/** The field a shell tool takes its command in, if it takes one: `command` or `cmd`, a string or an
 *  argv (array of strings); or `commands`, a list of whole command lines (Cline's run_commands). */
function commandField(tool: OfferedTool): { key: string; form: 'line' | 'argv' | 'lines' } | undefined {
  for (const key of ['command', 'cmd']) {
    const p = props(tool.schema)[key];
    if (!isObj(p)) continue;
    const type = String(p.type ?? 'string').toLowerCase();
    if (type === 'string') return { key, form: 'line' };
    if (type === 'array') return { key, form: 'argv' };
  }
  const list = props(tool.schema).commands;
  if (isObj(list) && String(list.type).toLowerCase() === 'array') return { key: 'commands', form: 'lines' };
  return undefined;
}

/** Codex's code mode: one freeform `exec` tool running JavaScript that calls the real tools as
 *  `tools.exec_command({cmd})` (or `tools.shell_command({command})`), as its description declares. */
function codeModeShell(tool: OfferedTool): 'exec_command' | 'shell_command' | undefined {
  if (tool.freeform === undefined) return undefined;
  if (/\bexec_command\(args: \{/.test(tool.freeform)) return 'exec_command';
  if (/\bshell_command\(args: \{/.test(tool.freeform)) return 'shell_command';
  return undefined;
}

/** The agent's shell tool: one named like a shell that takes a command, else any tool whose
 *  required parameters include a command, else a code-mode tool that can run one. */
export function findShellTool(tools: OfferedTool[]): OfferedTool | undefined {
  const takesCommand = tools.filter((t) => commandField(t));
  const required = (t: OfferedTool) => arr(t.schema.required).includes(commandField(t)!.key);
  return takesCommand.find((t) => SHELL_NAMES.test(t.name)) ?? takesCommand.find(required) ?? tools.find(codeModeShell);
}

/** A required field of a shell call besides the command: the description where it asks why, the
 *  project folder where it asks for a working directory (Auggie's launch-process `cwd`), waiting for
 *  the command where it asks whether to (its `wait`, a minute at most), else the smallest value. */
function shellField(key: string, p: JsonSchema, root: JsonSchema, description: string): unknown {
  if (/desc|explan|justif|reason/i.test(key)) return description;
  if (/^(cwd|working_?dir(ectory)?)$/i.test(key)) return '.';
  if (/^wait$/i.test(key) && String(p.type).toLowerCase() === 'boolean') return true;
  if (/wait_seconds$/i.test(key)) return 60;
  return minimalValue(p, root, key);
}

/** The arguments of a call to `tool` running `command`: the command in its field (as
 *  ["bash", "-lc", command] where it takes an argv), every other required field a sensible value;
 *  for a code-mode tool, the script that runs it and hands back its output. */
export function shellArguments(tool: OfferedTool, command: string, description: string): Obj | string {
  const nested = codeModeShell(tool);
  if (nested) {
    const args = nested === 'exec_command' ? { cmd: command } : { command };
    return `const result = await tools.${nested}(${JSON.stringify(args)});\ntext(result);\n`;
  }
  const field = commandField(tool)!;
  const args: Obj = {};
  for (const key of arr(tool.schema.required).filter((k): k is string => typeof k === 'string')) {
    const p = props(tool.schema)[key];
    args[key] = shellField(key, isObj(p) ? p : {}, tool.schema, description);
  }
  args[field.key] = field.form === 'argv' ? ['bash', '-lc', command] : field.form === 'lines' ? [command] : command;
  return args;
}

// --- The smallest value a JSON schema accepts ------------------------------------------------

function resolveRef(ref: string, root: JsonSchema): JsonSchema {
  let node: unknown = root;
  for (const part of ref.replace(/^#\/?/, '').split('/').filter(Boolean)) node = isObj(node) ? node[part] : undefined;
  return isObj(node) ? node : {};
}

/** A value `schema` accepts, as small as sensible: every declared property of an object (so a
 *  client that reads one finds it), the first of an enum, a short string, the minimum number.
 *  Gemini's OpenAPI-style upper-case types are read too. `key` names the field, for a timeout. */
export function minimalValue(schema: JsonSchema, root: JsonSchema = schema, key = '', depth = 0): unknown {
  if (depth > 8) return null;
  if (typeof schema.$ref === 'string') return minimalValue(resolveRef(schema.$ref, root), root, key, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('default' in schema) return schema.default;
  const variant = arr(schema.anyOf).find(isObj) ?? arr(schema.oneOf).find(isObj);
  if (variant) return minimalValue(variant, root, key, depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.filter(isObj).map((s) => minimalValue(s, root, key, depth + 1)));
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).map((t) => String(t ?? '').toLowerCase());
  const type = types.find((t) => t && t !== 'null') ?? (isObj(schema.properties) ? 'object' : types[0]);
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(props(schema)).map(([k, p]) => [k, minimalValue(isObj(p) ? p : {}, root, k, depth + 1)]));
    case 'array': {
      const n = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: n }, () => minimalValue(isObj(schema.items) ? schema.items : {}, root, key, depth + 1));
    }
    case 'number':
    case 'integer': {
      const wanted = /timeout/i.test(key) ? 60_000 : typeof schema.minimum === 'number' ? schema.minimum : 0;
      return typeof schema.maximum === 'number' ? Math.min(wanted, schema.maximum) : wanted;
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return 'ok'.padEnd(typeof schema.minLength === 'number' ? schema.minLength : 0, '.');
  }
}
