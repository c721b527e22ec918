// User settings in $TERMIO_HOME/config/settings.json as every process reads them: a zod schema
// with a default for every field, read leniently (comments and trailing commas allowed; a field
// with a wrong type is reported by its path and falls back to its default while every other
// field is kept), and watched so a hand edit applies live. Only the session host writes the file
// (settings.ts, which clients never load); the app and the CLI ask it to (settings.set).
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from 'zod';
import { Emitter, type Disposable } from '../../protocol/events';
import { homedir } from 'node:os';
import { shortenHome } from '../../protocol/homePath';
import { DEFAULT_COMPANION_PORT, MAX_COMPANION_PORT, MIN_COMPANION_PORT } from '../../protocol/companion';
import { watchFile } from './fileWatch';
import { readTextIfExists } from './textFile';

/** The monospace font every machine of each platform has: Menlo ships with macOS, DejaVu Sans
 *  Mono with nearly every Linux desktop (and is what the Linux set-up installs). */
const PLATFORM_FONT_FAMILY = process.platform === 'darwin' ? 'Menlo' : 'DejaVu Sans Mono';

// Every default lives here and only here: each object is `.prefault({})`, so its fields' own
// defaults fill it in (a repeated literal object default would be a second copy to keep in step).
export const SettingsSchema = z.object({
  notifications: z
    .object({
      attention: z.boolean().default(true).describe('notify when an agent needs you'),
      done: z.boolean().default(true).describe('notify when an agent finishes a long turn while you are elsewhere'),
      doneMinSeconds: z.number().min(0).max(3600).default(10).describe('how long a turn must last before its end is notified'),
      terminal: z.boolean().default(true).describe('show OSC 9 / OSC 777 notifications programs send'),
      sound: z.boolean().default(true),
    })
    .prefault({}),
  terminal: z
    .object({
      fontFamily: z.string().min(1).default(PLATFORM_FONT_FAMILY).describe('default: Menlo on macOS, DejaVu Sans Mono elsewhere'),
      /** Points: the size macOS Terminal starts with; it reads well at Linux's 96 dpi too. */
      fontSize: z.number().min(6).max(72).default(13),
      theme: z.enum(['system', 'dark', 'light']).default('system'),
      cursorStyle: z.enum(['block', 'bar', 'underline']).default('block').describe('until the program in the terminal asks for its own'),
      cursorBlink: z.boolean().default(true).describe('until the program in the terminal asks for its own'),
      scrollback: z.number().int().min(0).max(1_000_000).default(10_000),
      optionAsMeta: z
        .boolean()
        .default(false)
        .describe(
          'macOS: the Option key sends Meta (Esc + the key) instead of the characters it composes; off by default so layouts that type @ [ ] | with Option keep them',
        ),
    })
    .prefault({}),
  shortcuts: z.record(z.string(), z.string()).default({}).describe('action → key sequence overrides, e.g. {"newSession": "Ctrl+Shift+A"}'),
  // Keys few applications use: Ctrl+Alt+Space (and with Shift) on Linux desktops; ⌃⌘U and ⌃⌘N on
  // macOS (Qt's Meta+Ctrl), which the system leaves free. '' turns one off.
  globalShortcuts: z
    .object({
      nextWaiting: z
        .string()
        .default(process.platform === 'darwin' ? 'Meta+Ctrl+U' : 'Ctrl+Alt+Space')
        .describe('system-wide: jump to the session waiting longest for you (else the one done last); "" = off'),
      picker: z
        .string()
        .default(process.platform === 'darwin' ? 'Meta+Ctrl+N' : 'Ctrl+Alt+Shift+Space')
        .describe('system-wide: the agent picker in the front window; "" = off'),
    })
    .prefault({}),
  agents: z
    .record(
      z.string(),
      z.object({
        enabled: z.boolean().optional(),
        bypass: z.boolean().optional().describe('start this agent with its permission-bypass flag'),
        order: z.number().optional(),
      }),
    )
    .default({}),
  sessions: z
    .object({
      // Two minutes: agents stream a spinner or tokens while they think, and tools that run
      // longer than that without a line of output are rare enough to be worth a look.
      stallSeconds: z
        .number()
        .int()
        .min(10)
        .max(86_400)
        .default(120)
        .describe('a session working this long with no output and no hook report is flagged stalled'),
      // Sessions live in the session host, so quitting the window need not end them: keeping
      // them is what tmux users and the most-asked-for feature of comparable tools expect.
      onQuit: z.enum(['keep', 'end']).default('keep').describe("when Termio quits: 'keep' sessions running in the host, or 'end' them"),
      needsYouFirst: z
        .boolean()
        .default(false)
        .describe('sidebar: in each folder, the sessions that wait for you first (longest waiting on top), and such folders first'),
    })
    .prefault({}),
  companion: z
    .object({
      enabled: z.boolean().default(false).describe('serve the phone companion page (off until you turn it on)'),
      port: z.number().int().min(MIN_COMPANION_PORT).max(MAX_COMPANION_PORT).default(DEFAULT_COMPANION_PORT),
      network: z.enum(['loopback', 'lan']).default('loopback').describe('lan = reachable from other devices on your network'),
      allowedHosts: z
        .array(
          z
            .string()
            .regex(/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'a host name or IPv4 address, without port or scheme')
            .max(253),
        )
        .max(64)
        .default([])
        .describe("host names the companion answers besides 127.0.0.1, localhost and its LAN address (a reverse proxy's name)"),
    })
    .prefault({}),
  worktrees: z
    .object({
      root: z.string().default('').describe("where new worktrees go, as <root>/<repository>/<branch>; '' = beside the repository, <repo>.worktrees/<branch>"),
      repositories: z
        .record(z.string(), z.boolean())
        .default({})
        .describe('repository folder → whether the picker starts sessions there in a new worktree (the picker remembers your choice)'),
    })
    .prefault({}),
  picker: z
    .object({
      machines: z
        .record(z.string(), z.string())
        .default({})
        .describe(
          'folder → the saved machine (termio machines) the picker starts sessions on there, "" for this machine (the picker remembers your last choice); absent: the machine of the tab the picker opened from',
        ),
    })
    .prefault({}),
  prices: z
    .record(z.string(), z.object({ input: z.number().min(0), output: z.number().min(0), cacheRead: z.number().min(0), cacheWrite: z.number().min(0) }))
    .default({})
    .describe(
      'model → US dollars per million tokens (input, output, cacheRead, cacheWrite) for `termio usage`: adds a model to the shipped price table or replaces its price',
    ),
  welcomeShown: z.boolean().default(false),
});

export type Settings = z.infer<typeof SettingsSchema>;

export function defaultSettings(): Settings {
  return SettingsSchema.parse({});
}

export interface SettingsLoad {
  settings: Settings;
  /** One line per problem: `settings.json: terminal.fontSize: expected number, got "big"`. */
  errors: string[];
}

export function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function getPath(obj: unknown, path: PropertyKey[]): unknown {
  let cur = obj;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

function deletePath(obj: Record<string, unknown>, path: PropertyKey[]): void {
  let cur: unknown = obj;
  for (const k of path.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  if (cur !== null && typeof cur === 'object') delete (cur as Record<PropertyKey, unknown>)[path.at(-1)!];
}

/** Parses settings text; never throws. Invalid fields are dropped (default used) and reported. */
export function parseSettings(text: string, label = 'settings.json'): SettingsLoad {
  const errors: string[] = [];
  const parseErrors: ParseError[] = [];
  const raw: unknown = text.trim() === '' ? {} : parse(text, parseErrors, { allowTrailingComma: true });
  for (const e of parseErrors.slice(0, 5)) {
    const line = text.slice(0, e.offset).split('\n').length;
    errors.push(`${label}: line ${line}: ${printParseErrorCode(e.error)} (the rest of the file was read as far as possible)`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    if (text.trim() !== '') errors.push(`${label}: expected an object at the top, got ${describeValue(raw)}; using defaults`);
    return { settings: defaultSettings(), errors };
  }
  const candidate = structuredClone(raw) as Record<string, unknown>;
  // Drop each invalid field and try again, so one bad value never costs the others.
  for (let attempt = 0; attempt < 50; attempt++) {
    const r = SettingsSchema.safeParse(candidate);
    if (r.success) return { settings: r.data, errors };
    for (const issue of r.error.issues) {
      const path = issue.path;
      const where = path.length ? path.join('.') : '(top level)';
      errors.push(
        `${label}: ${where}: ${issue.message.replace(/^Invalid input: /, '').replace(/, received \w+$/, '')}, got ${describeValue(getPath(raw, path))}; using the default`,
      );
      if (path.length === 0) return { settings: defaultSettings(), errors };
      deletePath(candidate, path);
    }
  }
  return { settings: defaultSettings(), errors };
}

/** Why settings text cannot be edited in place (it does not parse as one object), or null. */
export function unreadableBecause(text: string): string | null {
  if (text.trim() === '') return null;
  const errors: ParseError[] = [];
  const raw: unknown = parse(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first) return `line ${text.slice(0, first.offset).split('\n').length}: ${printParseErrorCode(first.error)}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return `the top level is ${describeValue(raw)}, not an object`;
  return null;
}

/** The first part of path that holds something other than an object (so nothing can go inside it). */
export function notAnObject(text: string, path: string[]): { at: string; value: unknown } | null {
  const raw: unknown = parse(text, [], { allowTrailingComma: true });
  let cur = raw;
  for (let i = 0; i < path.length - 1; i++) {
    if (cur === null || typeof cur !== 'object') return null;
    cur = (cur as Record<string, unknown>)[path[i]!];
    if (cur === undefined) return null;
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return { at: path.slice(0, i + 1).join('.'), value: cur };
  }
  return null;
}

/** Returns text with one setting changed, leaving everything else byte-for-byte. */
export function editSettingsText(text: string, path: string[], value: unknown): string {
  const base = text.trim() === '' ? '{}\n' : text;
  const edits = modify(base, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
  return applyEdits(base, edits);
}

export class SettingsFile {
  protected current: SettingsLoad;
  private watcher: Disposable | null = null;
  private readonly changed = new Emitter<SettingsLoad>();
  readonly onChange = this.changed.event;

  /** The file as messages name it: `~/.termio/config/settings.json`. */
  readonly label: string;

  constructor(
    readonly file: string,
    protected readonly home: string = homedir(),
  ) {
    this.label = shortenHome(file, home);
    this.current = this.read();
  }

  get settings(): Settings {
    return this.current.settings;
  }

  get errors(): string[] {
    return this.current.errors;
  }

  /** The file's text; a missing file reads as empty (every setting at its default). */
  protected readText(): string {
    return readTextIfExists(this.file) ?? '';
  }

  private read(): SettingsLoad {
    try {
      return parseSettings(this.readText(), this.label);
    } catch (err) {
      return { settings: defaultSettings(), errors: [`${this.label}: cannot be read (${(err as Error).message}); using defaults`] };
    }
  }

  /** Re-reads the file (after a hand edit) and tells listeners. */
  reload(): void {
    this.current = this.read();
    this.changed.fire(this.current);
  }

  /** Applies hand edits live. */
  watch(): void {
    this.watcher ??= watchFile(this.file, () => this.reload());
  }

  dispose(): void {
    this.watcher?.dispose();
    this.watcher = null;
    this.changed.dispose();
  }
}
