// Turns manifest text into a validated Manifest or readable errors, never throwing: every message
// names the file, the JSON path and what is expected. Structural checks come from the zod schema;
// the cross-field rules of ATP (command vs loginShell, one icon kind, resume families,
// {id} placeholders, regexes that compile, hooks file vs dir) are checked here.
import { z } from 'zod';
import {
  HOOK_TYPES,
  ManifestSchema,
  MANIFEST_STATES,
  type Manifest,
  type ManifestDiscover,
  type ManifestStateRules,
} from './manifestSchema';
import validateGenerated from './manifestValidate.generated';
import { knownHookDialects } from './hooks/dialects';

/**
 * ManifestSchema's verdict, computed by straight-line code generated from the same schema
 * (scripts/lib/manifestValidator.cjs): about 3× faster than zod on a cold start, where a catalog
 * loads all its manifests. A value it accepts is the manifest as is; any other value goes
 * through zod, which writes the messages. A unit test keeps the two verdicts equal.
 */
export const isManifestShape = validateGenerated as (value: unknown) => value is Manifest;

export interface ManifestParseResult {
  /** Present exactly when errors is empty. */
  manifest?: Manifest;
  /** Each one line: `<file>: <json path>: <what is wrong>`. */
  errors: string[];
  /** Problems that do not stop the manifest from loading (unknown fields, ignored channels). */
  warnings: string[];
  /** Features the manifest declares in a form this version cannot use: loaded without them. */
  disabled: DisabledFeature[];
}

/** One feature a manifest asks for that this version turns off, and why (shown by `termio agents list`). */
export interface DisabledFeature {
  feature: 'hooks' | 'resume' | 'icon' | 'seed';
  reason: string;
}

export type ManifestResumeFamily = 'pinned' | 'discovered' | 'none';

/** What a valid manifest's resume fields mean, with the family's required fields made non-optional. */
export type ManifestResumeSpec =
  | { family: 'pinned'; create: string; resume: string; storeRoot: string; storeMatch: string }
  | { family: 'discovered'; resume: string; discover?: ManifestDiscover; conversation?: string }
  | { family: 'none' };

/** A real manifest is 1-3 KB; 1 MiB refuses a runaway file before parsing it. */
export const MAX_MANIFEST_CHARS = 1_048_576;
/** The deepest real field is 4 levels down (hooks.events[i].on); 32 leaves room for newer protocol versions. */
export const MAX_MANIFEST_DEPTH = 32;
/** Values quoted in messages are cut to this many characters so one line stays one line. */
const MAX_QUOTED_CHARS = 60;
/** {id:N} takes at most this many characters of the id (UUIDs are 36). */
const MAX_ID_PREFIX = 64;

/** Compiles a titleStatus/status pattern as the status engine does: JavaScript syntax, "m" flag. */
export function compileManifestPattern(source: string): RegExp {
  return new RegExp(source, 'm');
}

/** Parses manifest text (JSON). fileLabel prefixes every message, e.g. "~/.termio/config/agents/foo.json". */
export function parseManifest(text: string, fileLabel: string): ManifestParseResult {
  const fail = (message: string): ManifestParseResult => ({ errors: [`${fileLabel}: ${message}`], warnings: [], disabled: [] });
  if (typeof text !== 'string') return fail(`expected manifest text, got ${kindOf(text)}`);
  if (text.length > MAX_MANIFEST_CHARS) {
    return fail(`file is too large (${formatSize(text.length)}); a manifest is at most ${formatSize(MAX_MANIFEST_CHARS)}`);
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return fail('file is empty; expected a JSON object with at least "id", "name" and "command"');
  const depth = jsonDepthExceeds(body, MAX_MANIFEST_DEPTH);
  if (depth) return fail(`nested too deeply (more than ${MAX_MANIFEST_DEPTH} levels at line ${depth.line}, column ${depth.column})`);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return fail(`not valid JSON: ${describeJsonError(body, err)}`);
  }
  return parseManifestValue(value, fileLabel);
}

/** Validates an already-parsed JSON value as a manifest. A valid value may be returned as the manifest itself. */
export function parseManifestValue(value: unknown, fileLabel: string): ManifestParseResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  const disabled: DisabledFeature[] = [];
  const at = (path: PathKey[], message: string) => `${fileLabel}: ${path.length ? `${formatPath(path)}: ` : ''}${message}`;

  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { errors: [at([], `expected a JSON object at the top level, got ${kindOf(value)}`)], warnings, disabled };
  }
  const turnOff = (feature: DisabledFeature['feature'], path: PathKey[], reason: string) => {
    disabled.push({ feature, reason });
    warnings.push(at(path, `${reason}; this agent loads without ${feature}`));
  };
  value = acceptWildShapes(value as Record<string, unknown>, turnOff, (path, message) => warnings.push(at(path, message)));

  // The common case, a valid manifest: no zod pass (and no copy; the value becomes the manifest).
  const first = isManifestShape(value) ? undefined : ManifestSchema.safeParse(value);
  let data: Manifest | undefined = first === undefined ? (value as Manifest) : first.success ? first.data : undefined;
  if (first && !first.success) {
    const unknown: { path: PathKey[]; key: string }[] = [];
    for (const issue of first.error.issues) {
      const path = issue.path as PathKey[];
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          if (isStateMapPath(path)) {
            errors.push(at([...path, key], `not a state; expected one of ${listChoices(MANIFEST_STATES)}`));
          } else {
            unknown.push({ path, key });
            warnings.push(at([...path, key], `unknown field, ignored by this version of Termio${suggestKey(path, key)}`));
          }
        }
      } else {
        errors.push(at(path, describeIssue(issue, path, value)));
      }
    }
    if (errors.length === 0) {
      const second = ManifestSchema.safeParse(withoutKeys(value, unknown));
      if (second.success) data = second.data;
      else for (const issue of second.error.issues) errors.push(at(issue.path as PathKey[], describeIssue(issue, issue.path as PathKey[], value)));
    }
  }
  if (!data || errors.length) return { errors, warnings, disabled };

  checkCrossFieldRules(data, (path, message) => errors.push(at(path, message)), (path, message) => warnings.push(at(path, message)));
  if (errors.length) return { errors, warnings, disabled };
  return { manifest: withoutUnusable(data, turnOff), errors, warnings, disabled };
}

type TurnOff = (feature: DisabledFeature['feature'], path: PathKey[], reason: string) => void;

/**
 * Shapes written in the wild (other hosts' manifests, older protocol texts) that this version
 * reads without refusing the file: `"resume": "none"`, `"skills": { "dir": … }`, and a hook or
 * resume form it does not know (that one feature is turned off with a warning). Returns the value
 * to validate; objects on the way are copied, the caller's value is never changed.
 */
function acceptWildShapes(value: Record<string, unknown>, turnOff: TurnOff, warn: Report): unknown {
  let out = value;
  const edit = () => (out === value ? (out = { ...value }) : out);
  const resume = value.resume;
  if (resume === 'none') {
    delete edit().resume;
  } else if (resume !== undefined && (resume === null || typeof resume !== 'object' || Array.isArray(resume))) {
    turnOff('resume', ['resume'], `expected an object or "none", got ${describeValue(resume)}: a resume form this version does not know`);
    delete edit().resume;
  }
  const skills = value.skills;
  if (skills !== null && typeof skills === 'object' && !Array.isArray(skills) && typeof (skills as { dir?: unknown }).dir === 'string') {
    edit().skills = (skills as { dir: string }).dir;
    warn(['skills'], 'read as its "dir"; write the folder itself, e.g. "skills": "~/.agent/skills"');
  }
  const hooks = value.hooks;
  if (hooks !== null && typeof hooks === 'object' && !Array.isArray(hooks)) {
    const h = hooks as Record<string, unknown>;
    if (typeof h.type === 'string' && !(HOOK_TYPES as readonly string[]).includes(h.type)) {
      turnOff('hooks', ['hooks', 'type'], `unknown hook type ${quote(h.type)} (known: ${listChoices(HOOK_TYPES)})`);
      delete edit().hooks;
    }
  }
  return out;
}

/** A valid manifest without the parts this version cannot act on (an unknown dialect or seed), each a warning. */
function withoutUnusable(m: Manifest, turnOff: TurnOff): Manifest {
  let out = m;
  if (m.hooks) {
    const known = knownHookDialects(m.hooks.type);
    if (!known.includes(m.hooks.dialect)) {
      turnOff('hooks', ['hooks', 'dialect'], `no ${quote(m.hooks.type)} hook dialect ${quote(m.hooks.dialect)} in this version (known: ${listChoices(known)})`);
      const { hooks: _hooks, ...rest } = out;
      out = rest;
      // A resume whose id arrives only in a hook payload has nothing to bind without the hooks.
      if (m.resume && m.resume.create === undefined && m.resume.discover === undefined) {
        turnOff('resume', ['resume'], 'the conversation id comes from hooks.conversation, and the hooks are off');
        const { resume: _resume, ...noResume } = out;
        out = noResume;
      }
    }
  }
  if (m.resume?.seed !== undefined && m.resume.seed !== 'session-file') {
    turnOff('seed', ['resume', 'seed'], `unknown seed ${quote(m.resume.seed)} (known: "session-file")`);
    const { seed: _seed, ...resume } = m.resume;
    out = { ...out, resume };
  }
  if (m.icon) {
    const kinds = (['vector', 'path', 'symbol'] as const).filter((k) => m.icon?.[k] !== undefined);
    if (kinds.length === 0) {
      turnOff('icon', ['icon'], 'no icon kind this version draws (expected one of "vector", "path" or "symbol"); the generic mark is shown');
    }
  }
  return out;
}

/** The resume family of a valid manifest, inferred from which fields are present (ATP "Resume"). */
export function manifestResumeFamily(manifest: Manifest): ManifestResumeFamily {
  return manifestResumeSpec(manifest).family;
}

/** The resume fields of a valid manifest, by family. */
export function manifestResumeSpec(manifest: Manifest): ManifestResumeSpec {
  const r = manifest.resume;
  if (!r) return { family: 'none' };
  if (r.create !== undefined || r.storeRoot !== undefined || r.storeMatch !== undefined) {
    if (r.create === undefined || r.resume === undefined || r.storeRoot === undefined || r.storeMatch === undefined) return { family: 'none' };
    return { family: 'pinned', create: r.create, resume: r.resume, storeRoot: r.storeRoot, storeMatch: r.storeMatch };
  }
  const conversation = manifest.hooks?.conversation;
  if (r.resume !== undefined && (r.discover || conversation)) {
    return {
      family: 'discovered',
      resume: r.resume,
      ...(r.discover ? { discover: r.discover } : {}),
      ...(conversation ? { conversation } : {}),
    };
  }
  return { family: 'none' };
}

/** Status channels a manifest declares, in precedence order (status is ignored when hooks exist). */
export function manifestStatusChannels(manifest: Manifest): ('hooks' | 'title' | 'screen')[] {
  const channels: ('hooks' | 'title' | 'screen')[] = [];
  if (manifest.hooks) channels.push('hooks');
  if (manifest.titleStatus) channels.push('title');
  if (manifest.status && !manifest.hooks) channels.push('screen');
  return channels;
}

// ---------------------------------------------------------------------------------------------
// Cross-field rules

type Report = (path: PathKey[], message: string) => void;

function checkCrossFieldRules(m: Manifest, error: Report, warn: Report): void {
  if (m.name.trim() === '') error(['name'], 'must not be blank');

  if (m.command !== undefined && m.loginShell) {
    error(['loginShell'], 'use either "command" or "loginShell": true, not both');
  } else if (m.command === undefined && !m.loginShell) {
    error(['command'], 'missing; expected the CLI to launch (or "loginShell": true for a plain login shell)');
  }
  if (m.command !== undefined) checkCommand(m.command, error);

  if (m.icon) {
    // Never refuse a manifest for its icon: the first kind is drawn (none: the generic mark).
    const kinds = (['vector', 'path', 'symbol'] as const).filter((k) => m.icon?.[k] !== undefined);
    if (kinds.length > 1) warn(['icon'], `expected one of "vector", "path" or "symbol", got ${kinds.map((k) => `"${k}"`).join(' and ')}; "${kinds[0]}" is used`);
  }

  checkResume(m, error);
  checkRules(m.titleStatus, ['titleStatus'], error, warn);
  checkRules(m.status, ['status'], error, warn);
  if (m.status && m.hooks) warn(['status'], 'ignored because hooks are declared (hooks are the single source of truth)');

  if (m.hooks) {
    const h = m.hooks;
    if (h.file !== undefined && h.dir !== undefined) error(['hooks'], 'expected "file" or "dir", not both');
    else if (h.file === undefined && h.dir === undefined) error(['hooks'], 'missing "file" or "dir" (where the agent reads its hook configuration)');
    if (h.type === 'scripts' && h.file !== undefined) error(['hooks', 'file'], 'a "scripts" hook configuration is a folder of one script per event: use "dir"');
    if (h.type === 'toml') {
      if (h.dir !== undefined) error(['hooks', 'dir'], 'a "toml" hook configuration is one file: use "file"');
      else if (h.file !== undefined && !/\.toml$/i.test(h.file)) warn(['hooks', 'file'], `"type" is "toml" but the file does not end in .toml`);
    } else if (h.type === 'json' && h.file !== undefined && !/\.json$/i.test(h.file)) {
      warn(['hooks', 'file'], `"type" is "json" but the file does not end in .json`);
    }
    const seen = new Map<string, number>();
    h.events.forEach((e, i) => {
      const key = `${e.on}\u0000${e.matcher ?? ''}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) error(['hooks', 'events', i], `duplicate of hooks.events[${earlier}] (on ${quote(e.on)}${e.matcher ? `, matcher ${quote(e.matcher)}` : ''})`);
      else seen.set(key, i);
    });
  }
}

function checkCommand(command: string, error: Report): void {
  const isPath = command.startsWith('/') || command.startsWith('~/');
  if ([...command].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) error(['command'], 'must not contain control characters');
  else if (command !== command.trim()) error(['command'], `must not start or end with spaces, got ${quote(command)}`);
  else if (command.startsWith('-')) error(['command'], `expected a program, got the flag ${quote(command)}`);
  else if (!isPath && /\s/.test(command)) {
    error(['command'], `expected one program (a name on PATH or a path), got the command line ${quote(command)}; arguments belong in the resume templates or permissionBypassFlag`);
  }
}

function checkResume(m: Manifest, error: Report): void {
  const r = m.resume;
  if (!r) return;
  const pinnedFields = (['create', 'storeRoot', 'storeMatch'] as const).filter((k) => r[k] !== undefined);
  if (pinnedFields.length && r.discover) {
    error(['resume'], `mixes families: ${pinnedFields.map((k) => `"${k}"`).join(', ')} belong to a pinned-id resume and "discover" to a discovered-id one; keep one family`);
  } else if (pinnedFields.length) {
    const missing = (['create', 'resume', 'storeRoot', 'storeMatch'] as const).filter((k) => r[k] === undefined);
    if (missing.length) {
      error(['resume'], `pinned-id resume (it has ${pinnedFields.map((k) => `"${k}"`).join(', ')}) is missing ${missing.map((k) => `"${k}"`).join(', ')}`);
    }
  } else if (r.discover) {
    if (r.resume === undefined) error(['resume'], 'discovered-id resume is missing "resume" (the arguments that continue conversation {id}, e.g. "--resume {id}")');
  } else if (r.resume === undefined) {
    error(['resume'], 'empty; expected "resume" plus either "create", "storeRoot" and "storeMatch" (pinned id) or "discover" (discovered id)');
  } else if (!m.hooks?.conversation) {
    error(['resume'], 'cannot tell which conversation to resume: add "create", "storeRoot" and "storeMatch" (pinned id), "discover" (discovered id), or "hooks.conversation" (the id arrives in a hook payload)');
  }
  if (r.seed !== undefined && r.create === undefined) error(['resume', 'seed'], 'a seed writes the session file before "create": it needs a pinned-id resume');
  if (r.transcriptName !== undefined && r.storeMatch !== undefined && !r.storeMatch.startsWith('dir:')) {
    error(['resume', 'transcriptName'], 'names the transcript inside a conversation folder: it needs a "dir:" storeMatch');
  }
  for (const key of ['create', 'resume'] as const) {
    const t = r[key];
    if (t === undefined) continue;
    const bad = placeholders(t).filter((p) => p !== 'id');
    if (bad.length) error(['resume', key], `unknown placeholder {${bad[0]}}; the only placeholder is {id}`);
    else if (!placeholders(t).includes('id')) error(['resume', key], `must contain {id}, got ${quote(t)}`);
  }
  if (r.storeMatch !== undefined) {
    const segments = r.storeMatch.slice(r.storeMatch.indexOf(':') + 1).split('/');
    if (segments.some((seg) => seg === '.' || seg === '..')) error(['resume', 'storeMatch'], `must not contain "." or ".." folders, got ${quote(r.storeMatch)}`);
    else if (segments.slice(0, -1).some((seg) => /[{}*]/.test(seg))) error(['resume', 'storeMatch'], `the subfolders before the name are literal names (no {id} or *), got ${quote(r.storeMatch)}`);
    const ps = placeholders(r.storeMatch);
    const bad = ps.filter((p) => !isIdPlaceholder(p));
    if (bad.length) error(['resume', 'storeMatch'], `unknown placeholder {${bad[0]}}; expected {id} or {id:N} (the first N characters)`);
    else if (!ps.length) error(['resume', 'storeMatch'], `must contain {id} (or {id:N}), got ${quote(r.storeMatch)}`);
  }
}

function checkRules(rules: ManifestStateRules | undefined, base: PathKey[], error: Report, warn: Report): void {
  if (!rules) return;
  let count = 0;
  for (const state of MANIFEST_STATES) {
    (rules[state] ?? []).forEach((source, i) => {
      count++;
      try {
        compileManifestPattern(source);
      } catch (err) {
        const reason = errorMessage(err).replace(`Invalid regular expression: /${source}/m: `, '');
        error([...base, state, i], `not a valid regular expression: ${reason}`);
      }
    });
  }
  if (count === 0) warn(base, 'declares no rules');
}

function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? '');
}

function isIdPlaceholder(p: string): boolean {
  if (p === 'id') return true;
  const m = /^id:([1-9][0-9]*)$/.exec(p);
  return m !== null && Number(m[1]) <= MAX_ID_PREFIX;
}

// ---------------------------------------------------------------------------------------------
// Messages

type PathKey = string | number;

function formatPath(path: readonly PathKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

function isStateMapPath(path: readonly PathKey[]): boolean {
  return path.length === 1 && (path[0] === 'titleStatus' || path[0] === 'status');
}

function describeIssue(issue: z.core.$ZodIssue, path: PathKey[], root: unknown): string {
  const got = valueAt(root, path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = typeWord(issue.expected);
      if (got.found === false) {
        const what = fieldDescription(path);
        return `missing; expected ${expected}${what ? `: ${what}` : ''}`;
      }
      return `expected ${expected}, got ${describeValue(got.value)}`;
    }
    case 'invalid_value':
      return `expected ${listChoices(issue.values)}, got ${describeValue(got.value)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `must have at least ${issue.minimum} ${Number(issue.minimum) === 1 ? 'entry' : 'entries'}`;
      return `must be at least ${issue.minimum}, got ${describeValue(got.value)}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters, got ${typeof got.value === 'string' ? got.value.length : '?'}`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} entries, got ${Array.isArray(got.value) ? got.value.length : '?'}`;
      return `must be at most ${issue.maximum}, got ${describeValue(got.value)}`;
    case 'invalid_format':
    case 'custom':
      return `${issue.message}, got ${describeValue(got.value)}`;
    default:
      return issue.message;
  }
}

function typeWord(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    object: 'an object',
    array: 'a list',
  };
  return words[expected] ?? expected;
}

function listChoices(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v)));
  if (quoted.length <= 1) return quoted[0] ?? 'nothing';
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return String(value);
  return kindOf(value);
}

function quote(s: string): string {
  const json = JSON.stringify(s);
  return json.length > MAX_QUOTED_CHARS ? `${json.slice(0, MAX_QUOTED_CHARS - 2)}…"` : json;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function formatSize(chars: number): string {
  if (chars >= 1_048_576) return `${(chars / 1_048_576).toFixed(1)} MB`;
  if (chars >= 1024) return `${(chars / 1024).toFixed(1)} KB`;
  return `${chars} bytes`;
}

function valueAt(root: unknown, path: readonly PathKey[]): { found: boolean; value?: unknown } {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) return { found: false };
    cur = (cur as Record<PathKey, unknown>)[key];
  }
  return { found: cur !== undefined, value: cur };
}

/** The schema node at a path (through optionals and arrays), or undefined. */
function schemaAt(path: readonly PathKey[]): z.core.$ZodType | undefined {
  let node: z.core.$ZodType | undefined = ManifestSchema;
  for (const key of path) {
    node = unwrapOptional(node);
    if (!node) return undefined;
    const def = node._zod.def as { type: string; shape?: Record<string, z.core.$ZodType>; element?: z.core.$ZodType };
    if (def.type === 'object' && typeof key === 'string') node = def.shape?.[key];
    else if (def.type === 'array' && typeof key === 'number') node = def.element;
    else return undefined;
  }
  return node;
}

function unwrapOptional(node: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  while (node && (node._zod.def as { type: string }).type === 'optional') node = (node._zod.def as unknown as { innerType: z.core.$ZodType }).innerType;
  return node;
}

function fieldDescription(path: readonly PathKey[]): string | undefined {
  const node = schemaAt(path);
  const text = node ? (z.globalRegistry.get(node)?.description ?? z.globalRegistry.get(unwrapOptional(node) ?? node)?.description) : undefined;
  if (!text) return undefined;
  const sentence = text.split(/(?<=\.)\s+(?=[A-Z])|;\s/)[0]!.replace(/\.$/, '');
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/** " (did you mean "events"?)" when an unknown key is one or two edits from a known one. */
function suggestKey(path: readonly PathKey[], key: string): string {
  const node = unwrapOptional(schemaAt(path));
  const shape = node ? (node._zod.def as { shape?: Record<string, unknown> }).shape : undefined;
  if (!shape || key.length > MAX_QUOTED_CHARS) return '';
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of Object.keys(shape)) {
    const d = editDistance(key.toLowerCase(), known.toLowerCase());
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best ? ` (did you mean "${best}"?)` : '';
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** A shallow copy of value without the given keys; only the objects on the way are copied. */
function withoutKeys(value: unknown, drop: { path: PathKey[]; key: string }[]): unknown {
  const root = { ...(value as Record<string, unknown>) };
  for (const { path, key } of drop) {
    let cur: Record<PathKey, unknown> = root;
    for (const p of path) {
      const next = cur[p];
      if (next === null || typeof next !== 'object') break;
      const copy = Array.isArray(next) ? [...next] : { ...(next as Record<string, unknown>) };
      cur[p] = copy;
      cur = copy as Record<PathKey, unknown>;
    }
    delete cur[key];
  }
  return root;
}

// ---------------------------------------------------------------------------------------------
// JSON text helpers

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Where and why JSON.parse refused the text, in our own words: V8's messages differ between Node
 * versions and sometimes quote the text across lines, so a small scanner finds the first error.
 */
function describeJsonError(text: string, err: unknown): string {
  const found = findJsonSyntaxError(text);
  if (!found) return errorMessage(err).split('\n')[0]!;
  const { line, column } = lineColumn(text, found.offset);
  return `${found.message} (line ${line}, column ${column})`;
}

function findJsonSyntaxError(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw { offset: i, message };
  };
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const describeAt = () => (i >= text.length ? 'the end of the file' : JSON.stringify(text[i]));
  const expectChar = (c: string, what: string) => {
    if (text[i] !== c) fail(`expected ${what}, found ${describeAt()}`);
    i++;
  };
  const string = () => {
    expectChar('"', 'a double-quoted string');
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c < 0x20) fail('control character inside a string (use \\n, \\t, ...)');
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad \\u escape: expected 4 hex digits');
          i += 4;
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) fail(`bad escape "\\${e === undefined ? '' : /^[\x20-\x7e]$/.test(e) ? e : JSON.stringify(e).slice(1, -1)}"`); // a control character (a newline) is shown escaped, keeping the message on one line
        i++;
      }
      i++;
    }
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a double-quoted property name, found ${describeAt()}`);
        string();
        ws();
        expectChar(':', '":" after the property name');
        value();
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === '}') fail('trailing comma before "}"');
          continue;
        }
        expectChar('}', '"," or "}"');
        return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === ']') fail('trailing comma before "]"');
          continue;
        }
        expectChar(']', '"," or "]"');
        return;
      }
    }
    if (c === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(text.slice(i, i + 400));
    if (!literal) return fail(i >= text.length ? 'unexpected end of the file' : `unexpected ${describeAt()}`);
    i += literal[0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected ${describeAt()} after the end of the JSON value`);
    return undefined;
  } catch (thrown) {
    if (thrown && typeof thrown === 'object' && 'offset' in thrown) return thrown as { offset: number; message: string };
    throw thrown;
  }
}

/**
 * Scans JSON text for nesting deeper than max without building anything, so a hostile file is
 * refused with one message before JSON.parse or the schema walk it. Returns where it crossed.
 */
function jsonDepthExceeds(text: string, max: number): { line: number; column: number } | undefined {
  // Fewer than max opening brackets in all cannot nest deeper than max: skip the scan (the usual case).
  let openers = 0;
  for (const c of ['{', '[']) for (let i = text.indexOf(c); i >= 0 && openers <= max; i = text.indexOf(c, i + 1)) openers++;
  if (openers <= max) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return lineColumn(text, i);
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return undefined;
}
