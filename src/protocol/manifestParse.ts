// Turns manifest text into a validated Manifest or readable errors, never throwing: every message
// names the file, the JSON path and what is expected. Structural checks come from the zod schema,
// the rules that span fields from manifestRules.ts; shapes written in the wild are read with a
// warning, and features this version cannot use are turned off rather than refusing the file.
import { HOOK_TYPES, ManifestSchema, MANIFEST_STATES, type Manifest, type ManifestDiscover } from './manifestSchema';
import validateGenerated from './manifestValidate.generated';
import { knownHookDialects } from './hooks/dialects';
import { describeJsonSyntaxError, jsonDepthExceeds } from './jsonSyntax';
import {
  describeIssue,
  describeValue,
  errorMessage,
  formatPath,
  formatSize,
  kindOf,
  listChoices,
  quote,
  suggestKey,
  type PathKey,
  type Report,
} from './manifestMessages';
import { checkCrossFieldRules } from './manifestRules';

export { compileManifestPattern } from './manifestRules';

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
            const hint = key === 'failure' ? ' (a failed turn on screen is read by "failureScreen")' : '';
            errors.push(at([...path, key], `not a state; expected one of ${listChoices(MANIFEST_STATES)}${hint}`));
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

  checkCrossFieldRules(
    data,
    (path, message) => errors.push(at(path, message)),
    (path, message) => warnings.push(at(path, message)),
  );
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
  // The reference implementation's name for the install page.
  if (typeof value.installURL === 'string') {
    if (value.install === undefined) edit().install = value.installURL;
    delete edit().installURL;
  }
  const hooks = value.hooks;
  if (hooks !== null && typeof hooks === 'object' && !Array.isArray(hooks)) {
    const h = hooks as Record<string, unknown>;
    // Dialects named by their shape (the reference implementation's names) are ours by another name.
    const alias = typeof h.dialect === 'string' ? NAMED_DIALECTS[h.dialect] : undefined;
    if (alias !== undefined) edit().hooks = { ...h, dialect: alias };
    if (typeof h.type === 'string' && !(HOOK_TYPES as readonly string[]).includes(h.type)) {
      turnOff('hooks', ['hooks', 'type'], `unknown hook type ${quote(h.type)} (known: ${listChoices(HOOK_TYPES)})`);
      delete edit().hooks;
    }
  }
  return out;
}

/** Hook dialects named by their shape, as the reference implementation names them, and the
 *  dialect of ours that writes that shape; shapes this version cannot write turn hooks off. */
const NAMED_DIALECTS: Readonly<Record<string, string>> = {
  claudeNested: 'claude',
  copilotFlat: 'copilot',
  cursorFlat: 'cursor',
  kimiTOML: 'kimi',
  openCodePlugin: 'opencode',
  openCode2Plugin: 'opencode2',
  clineScripts: 'cline',
  ampPlugin: 'amp',
  piPlugin: 'pi',
};

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
      discover: r.discover || undefined,
      conversation: conversation || undefined,
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

function isStateMapPath(path: readonly PathKey[]): boolean {
  return path.length === 1 && (path[0] === 'titleStatus' || path[0] === 'status');
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

/** Why JSON.parse refused the text, in our own words with line and column; V8's first line
 *  should the scanner accept what JSON.parse refused. */
function describeJsonError(text: string, err: unknown): string {
  return describeJsonSyntaxError(text) ?? errorMessage(err).split('\n')[0]!;
}
