// A question read from the hook payload an agent sends as it blocks: Claude's and Codex's
// PermissionRequest name the tool and its input ("Run `rm -rf build`?"), Claude's AskUserQuestion
// carries the question and its options, OpenCode's permission.asked (as its Termio plugin
// forwards it, under `properties`) the permission, its patterns and the tool's input. Choices here
// are the agent's defaults; when the screen shows the menu, its choices replace these
// (mergeQuestions).
import { clip, makeQuestion, MAX_LABEL_CHARS, type Question, type QuestionChoice, type QuestionTui } from './question';

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A field holding an object, else an empty one. */
const objectOf = (v: unknown): Json => (isJson(v) ? v : {});
/** The strings of a field holding an array, else none. */
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A command as the agents send it: a string, or an argv array (Codex). */
function commandOf(input: Json): string | undefined {
  const c = input.command ?? input.cmd;
  return Array.isArray(c) ? strings(c).join(' ') || undefined : str(c);
}

/** "Run `npm test`?", "Edit src/a.ts?", … from the tool and its input; null when the input names
 *  nothing (the tool alone says no more than "asks to run Bash": the screen may say more). Reads
 *  every agent's field names: Claude's file_path, Gemini's filePath and urls, OpenCode's filepath. */
function askText(tool: string, input: Json): { text: string; context: string } | null {
  const command = commandOf(input);
  const file = str(input.file_path) ?? str(input.path) ?? str(input.notebook_path) ?? str(input.filePath) ?? str(input.filepath);
  const url = str(input.url) ?? strings(input.urls)[0];
  const description = str(input.description) ?? '';
  if (command) return { text: `Run \`${clip(command, 200)}\`?`, context: description };
  if (file) {
    const verb = /^(Write|Edit|MultiEdit|NotebookEdit|apply_patch)$/.test(tool) ? 'Edit' : /^Read$/.test(tool) ? 'Read' : `Use ${tool} on`;
    return { text: `${verb} ${file}?`, context: description };
  }
  if (url) return { text: `Fetch ${url}?`, context: str(input.prompt) ?? '' };
  if (tool === 'ExitPlanMode') return { text: 'Approve the plan?', context: clip(str(input.plan) ?? '', 400) };
  return description ? { text: `Allow ${tool}?`, context: description } : null;
}

/** What a notification's details ask (Gemini: type exec, edit, mcp or info, with the command,
 *  file or URLs, and a title that describes it). */
function askDetails(d: Json): { text: string; context: string } | null {
  const tool = d.type === 'edit' ? 'Edit' : (str(d.toolName) ?? str(d.title) ?? 'the tool');
  return askText(tool, { ...d, description: d.title });
}

/** Gemini CLI's tool-permission menu (0.60.0, 0.61.0), for when its Notification arrives before
 *  the screen shows the menu: the same labels and keys as on screen. */
const GEMINI_PERMISSION_CHOICES: QuestionChoice[] = [
  { label: 'Allow once', keys: ['1'], highlighted: true },
  { label: 'Allow for this session', keys: ['2'], highlighted: false },
  { label: 'No, suggest changes', keys: ['Escape'], highlighted: false },
];

/** What the agent's permission dialog offers when the screen cannot be read. */
function permissionChoices(tui: QuestionTui): QuestionChoice[] {
  if (tui === 'opencode')
    // Measured on opencode-ai 1.18.33 and @kilocode/cli 7.7.7: "Allow once   Allow always
    // Reject" in a row, Allow once highlighted as the dialog opens (the highlight is only a
    // background colour, so the screen cannot say where it is now); → moves right (← from the
    // first wraps to the last), Return chooses, Esc rejects wherever the highlight is. Allow
    // always asks again ("Always allow … Confirm / Cancel", Confirm highlighted): a second Return.
    return [
      { label: 'Allow once', keys: ['Enter'], highlighted: true },
      { label: 'Allow always', keys: ['ArrowRight', 'Enter', 'Enter'], highlighted: false },
      { label: 'Reject', keys: ['Escape'], highlighted: false },
    ];
  if (tui === 'codex')
    return [
      { label: 'Yes', keys: ['y'], highlighted: true },
      { label: 'No', keys: ['Escape'], highlighted: false },
    ];
  return [
    { label: 'Yes', keys: tui === 'generic' ? ['Enter'] : ['1'], highlighted: true },
    { label: 'No', keys: ['Escape'], highlighted: false },
  ];
}

/** AskUserQuestion's first question, its options chosen by digit as Claude does. */
function askUserQuestion(input: Json): Question | null {
  const qs = Array.isArray(input.questions) ? (input.questions as unknown[]) : [];
  const q = qs[0] as Json | undefined;
  const text = q ? str(q.question) : undefined;
  if (!q || !text) return null;
  const options = Array.isArray(q.options) ? (q.options as Json[]) : [];
  const choices = options.flatMap((o, k): QuestionChoice[] => {
    const label = str(o?.label);
    if (!label) return [];
    const description = str(o.description);
    return [
      {
        label: clip(label, MAX_LABEL_CHARS),
        description: description ? clip(description, MAX_LABEL_CHARS) : undefined,
        keys: [String(k + 1)],
        highlighted: k === 0,
      },
    ];
  });
  return choices.length ? makeQuestion(text, str(q.header) ?? '', choices, 'hook') : null;
}

/** OpenCode's permission.asked properties: `permission` ("bash", "edit", "webfetch"), the
 *  `patterns` it asks for ("touch probe.txt") and the tool's input in `metadata` ({command}, or
 *  {filepath, diff} for an edit). */
function openCodePermission(permission: string, props: Json, tui: QuestionTui): Question {
  const asked = askText(permission === 'edit' ? 'Edit' : permission, objectOf(props.metadata));
  const patterns = strings(props.patterns).filter((x) => x.trim() !== '');
  const text = asked?.text ?? (patterns.length ? `Allow ${permission}: ${clip(patterns.join(', '), 200)}?` : `Allow ${permission}?`);
  return makeQuestion(text, asked?.context ?? '', permissionChoices(tui), 'hook');
}

/**
 * The question in an attention report's payload (JSON text, possibly cut short), or null when it
 * names none. `tui` picks the default keys; the dialect's field names are Claude's, which Codex
 * shares (tool_name, tool_input).
 */
export function questionFromHook(payload: string, tui: QuestionTui): Question | null {
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!isJson(data)) return null;
  const p = data;
  const props = objectOf(p.properties);
  const permission = str(props.permission);
  if (permission) return openCodePermission(permission, props, tui);
  const tool = str(p.tool_name) ?? str(p.toolName);
  const input = objectOf(p.tool_input ?? p.toolInput ?? p.input);
  if (tool === 'AskUserQuestion') return askUserQuestion(input);
  if (!tool) {
    // A notification-style payload (Gemini's Notification) carries a message ("Tool Confirm Shell
    // Command requires execution") and, in `details`, what is asked: a command, a file, a URL.
    const message = str(p.message);
    const asked = isJson(p.details) ? askDetails(p.details) : null;
    const choices = tui === 'gemini' ? GEMINI_PERMISSION_CHOICES : permissionChoices(tui);
    if (asked) return makeQuestion(asked.text, asked.context || message || '', choices, 'hook');
    return message ? makeQuestion(message, '', choices, 'hook') : null;
  }
  const asked = askText(tool, input);
  return asked ? makeQuestion(asked.text, asked.context, permissionChoices(tui), 'hook') : null;
}

/** The TUI conventions of each agent, by its hook dialect or id; any other is generic. Qwen Code
 *  is a fork of Gemini CLI and keeps its menus: a digit chooses a numbered option. OpenCode's
 *  plugin dialects (both manifests run npm's opencode-ai 1.18; Kilo Code, its fork, uses
 *  opencode2) share its dialog. */
const TUIS = new Map<string, QuestionTui>([
  ['claude', 'claude'],
  ['codex', 'codex'],
  ['gemini', 'gemini'],
  ['qwen', 'gemini'],
  ['opencode', 'opencode'],
  ['opencode2', 'opencode'],
]);

/** The TUI conventions of an agent, from its hook dialect or id. */
export function tuiOf(agent: string | null | undefined): QuestionTui {
  return TUIS.get(agent ?? '') ?? 'generic';
}
