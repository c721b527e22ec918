// What each agent's hook configuration looks like (agents/README.md has the facts behind each): where entries go,
// their shape, which event names the agent knows, how its payload names the conversation.
// The install/uninstall transforms read this table; nothing else knows an agent by name.
import type { SessionState } from '../status/sessionState';

/** One `on → state` rule of a manifest's `hooks.events`. */
export interface HookEventRule {
  on: string;
  state: SessionState;
  matcher?: string;
  /** The event reports a failure described at this key path of its payload (its state is attention). */
  failure?: string;
}

/** The manifest's `hooks` block (the fields the hook code reads). */
export interface HooksDeclaration {
  type: 'json' | 'toml' | 'plugin' | 'scripts';
  file?: string;
  dir?: string;
  dialect: string;
  events: readonly HookEventRule[];
  /** Key path of the conversation id in the payload ("session_id", "properties.sessionID"). */
  conversation?: string;
  /** Key path of the running tool's name in the payload; default: the dialect's field. */
  tool?: string;
  /** Key path of the user's prompt in the payload; default: the dialect's field. */
  promptTitle?: string;
}

export interface JsonDialect {
  kind: 'json';
  id: string;
  /**
   * nested: hooks[event] = [{ matcher?, hooks: [{ type: "command", command }] }] (Claude's shape);
   * flat:   hooks[event] = [{ command }] (Cursor, Copilot).
   */
  shape: 'nested' | 'flat';
  /** The key holding the command line ("bash" for Copilot). */
  commandKey: string;
  /** Fields added to our entry beside the command (timeouts, names). */
  entryExtra: Readonly<Record<string, unknown>>;
  /** Top-level fields a new file needs ({ version: 1 }). */
  newFileRoot: Readonly<Record<string, unknown>>;
  /** When set, an event outside this list is refused (Cursor voids its whole file on one). */
  knownEvents?: readonly string[];
  /** The agent runs hook commands through a shell, so the TERMIO_SESSION guard is safe. */
  shell: boolean;
  /** Payload keys that hold the conversation id, the tool, the prompt and the transcript. */
  payload: PayloadKeys;
  /** A gate that can silently skip our hooks after install, told to the user. */
  note?: string;
  /** The agent runs only hooks whose trust is recorded (Codex: by hash in config.toml). */
  trustGate?: 'codex';
}

export interface PayloadKeys {
  conversation: readonly string[];
  tool: readonly string[];
  prompt: readonly string[];
  transcript: readonly string[];
}

const snakeCase: PayloadKeys = {
  conversation: ['session_id'],
  tool: ['tool_name'],
  prompt: ['prompt'],
  transcript: ['transcript_path'],
};

const claudeShape = (id: string, extra: Partial<JsonDialect> = {}): JsonDialect => ({
  kind: 'json',
  id,
  shape: 'nested',
  commandKey: 'command',
  entryExtra: { type: 'command' },
  newFileRoot: {},
  shell: true,
  payload: snakeCase,
  ...extra,
});

/** Cursor's event names; one unknown name silently voids the whole file. */
export const CURSOR_EVENTS = [
  'sessionStart',
  'sessionEnd',
  'beforeSubmitPrompt',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'beforeShellExecution',
  'afterShellExecution',
  'beforeMCPExecution',
  'afterMCPExecution',
  'beforeReadFile',
  'afterFileEdit',
  'afterAgentResponse',
  'afterAgentThought',
  'stop',
] as const;

export const JSON_DIALECTS: Readonly<Record<string, JsonDialect>> = {
  claude: claudeShape('claude'),
  qwen: claudeShape('qwen'),
  droid: claudeShape('droid'),
  // Timeout in milliseconds; the name shows in Gemini's /hooks list.
  gemini: claudeShape('gemini', { entryExtra: { type: 'command', name: 'termio', timeout: 5000 } }),
  codex: claudeShape('codex', {
    trustGate: 'codex',
    note:
      "Codex runs only hooks you trusted: open /hooks in Codex and trust Termio's entries (editing the " +
      'file asks again), or launch with --dangerously-bypass-hook-trust',
  }),
  // Goose's Open Plugins hooks.json has Claude's shape; its payload names session_id and tool_name.
  goose: claudeShape('goose'),
  // Crush's entries are flat ({ matcher?, command, timeout }) and its payload is snake_case.
  crush: {
    kind: 'json',
    id: 'crush',
    shape: 'flat',
    commandKey: 'command',
    // Seconds; the reporter gives up long before.
    entryExtra: { timeout: 5 },
    newFileRoot: {},
    shell: true,
    payload: snakeCase,
  },
  grok: claudeShape('grok', {
    payload: { conversation: ['sessionId'], tool: ['toolName'], prompt: ['prompt'], transcript: ['transcriptPath'] },
  }),
  copilot: {
    kind: 'json',
    id: 'copilot',
    shape: 'flat',
    commandKey: 'bash',
    // Seconds; the reporter gives up long before.
    entryExtra: { type: 'command', timeoutSec: 5 },
    newFileRoot: { version: 1 },
    shell: true,
    payload: {
      conversation: ['sessionId', 'session_id'],
      tool: ['toolName', 'tool_name'],
      prompt: ['prompt'],
      transcript: ['transcriptPath', 'transcript_path'],
    },
  },
  cursor: {
    kind: 'json',
    id: 'cursor',
    shape: 'flat',
    commandKey: 'command',
    entryExtra: {},
    newFileRoot: { version: 1 },
    knownEvents: CURSOR_EVENTS,
    // How Cursor starts a command is undocumented: write a plain command, no shell syntax.
    shell: false,
    payload: { conversation: ['conversation_id'], tool: ['tool_name'], prompt: ['prompt'], transcript: ['transcript_path'] },
  },
};

/** OpenCode's plugin sends this payload shape (see opencodePlugin.ts). */
export const OPENCODE_PAYLOAD: PayloadKeys = snakeCase;

/** Cline's hook payload: camelCase base fields plus the event's data under its own key. Its
 *  taskId changes on every launch and cancel; the conversation `cline --id` resumes is the root
 *  session's id. */
const CLINE_PAYLOAD: PayloadKeys = {
  conversation: ['sessionContext.rootSessionId'],
  tool: ['preToolUse.toolName', 'postToolUse.toolName'],
  prompt: ['userPromptSubmit.prompt'],
  transcript: [],
};

/** Payload keys for a dialect; unknown dialects get the common snake_case names. */
export function payloadKeys(dialect: string): PayloadKeys {
  return JSON_DIALECTS[dialect]?.payload ?? (dialect === 'cline' ? CLINE_PAYLOAD : snakeCase);
}

/** Plugin dialects this version renders (opencodePlugin.ts). */
export const PLUGIN_DIALECTS = ['opencode', 'opencode2'] as const;
/** TOML dialects (tomlHooks.ts): Codex's `[[hooks.<Event>]]` tables, Kimi Code's flat `[[hooks]]`. */
export const TOML_DIALECTS = ['codex', 'kimi'] as const;

/** Kimi Code's hook events; it refuses its whole config.toml on any other name. */
export const KIMI_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
  'SessionStart',
  'SessionEnd',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'Notification',
] as const;
/** Script-folder dialects: one executable named after each event (scriptHooks.ts). */
export const SCRIPT_DIALECTS = ['cline'] as const;

/** The dialects this version can write for a hook type; a manifest naming another loads without hooks. */
export function knownHookDialects(type: string): readonly string[] {
  if (type === 'json') return Object.keys(JSON_DIALECTS);
  if (type === 'toml') return TOML_DIALECTS;
  if (type === 'plugin') return PLUGIN_DIALECTS;
  if (type === 'scripts') return SCRIPT_DIALECTS;
  return [];
}
