// What each agent's hook configuration looks like (agents/README.md has the facts behind each): where entries go,
// their shape, which event names the agent knows, how its payload names the conversation.
// The install/uninstall transforms read this table; nothing else knows an agent by name.
import type { SessionState } from '../status/sessionState';

/** One `on → state` rule of a manifest's `hooks.events`. */
export interface HookEventRule {
  on: string;
  state: SessionState;
  matcher?: string;
}

/** The manifest's `hooks` block (the fields the hook code reads). */
export interface HooksDeclaration {
  type: 'json' | 'toml' | 'plugin';
  file?: string;
  dir?: string;
  dialect: string;
  events: readonly HookEventRule[];
  /** Key path of the conversation id in the payload ("session_id", "properties.sessionID"). */
  conversation?: string;
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
  'sessionStart', 'sessionEnd', 'beforeSubmitPrompt', 'preToolUse', 'postToolUse', 'postToolUseFailure',
  'beforeShellExecution', 'afterShellExecution', 'beforeMCPExecution', 'afterMCPExecution', 'beforeReadFile',
  'afterFileEdit', 'afterAgentResponse', 'afterAgentThought', 'stop',
] as const;

export const JSON_DIALECTS: Readonly<Record<string, JsonDialect>> = {
  claude: claudeShape('claude'),
  qwen: claudeShape('qwen'),
  droid: claudeShape('droid'),
  // Timeout in milliseconds; the name shows in Gemini's /hooks list.
  gemini: claudeShape('gemini', { entryExtra: { type: 'command', name: 'termio', timeout: 5000 } }),
  codex: claudeShape('codex', {
    note:
      "Codex runs only hooks you trusted: open /hooks in Codex and trust Termio's entries (editing the " +
      'file asks again), or launch with --dangerously-bypass-hook-trust',
  }),
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

/** Payload keys for a dialect; unknown dialects get the common snake_case names. */
export function payloadKeys(dialect: string): PayloadKeys {
  return JSON_DIALECTS[dialect]?.payload ?? snakeCase;
}
