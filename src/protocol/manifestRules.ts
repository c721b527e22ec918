// The rules of a manifest that span fields, checked after the schema accepted its shape:
// command vs loginShell, one icon kind, one resume family with its fields, {id} placeholders,
// status, failureScreen and identify patterns that compile, hooks given as a file or a folder as their type needs,
// and a failure hook event that reports attention.
import { MANIFEST_STATES, type Manifest, type ManifestHooks, type ManifestStateRules } from './manifestSchema';
import { errorMessage, quote, type PathKey, type Report } from './manifestMessages';
import { compileRulePattern, nestedQuantifier, type RulePattern } from './status/rulePattern';

/** {id:N} takes at most this many characters of the id (UUIDs are 36). */
const MAX_ID_PREFIX = 64;

/** Compiles a titleStatus/status pattern as the status engine does (JavaScript syntax, "m", linear time). */
export function compileManifestPattern(source: string): RulePattern {
  return compileRulePattern(source);
}

/** Reports every cross-field problem of a manifest the schema accepted (errors refuse it, warnings do not). */
export function checkCrossFieldRules(m: Manifest, error: Report, warn: Report): void {
  if (m.name.trim() === '') error(['name'], 'must not be blank');

  // No command is the login shell (ATP's plain terminal); "loginShell": true says so explicitly.
  if (m.command !== undefined && m.loginShell) error(['loginShell'], 'use either "command" or "loginShell": true, not both');
  if (m.command !== undefined) checkCommand(m.command, error);

  if (m.icon) {
    // Never refuse a manifest for its icon: the first kind is drawn (none: the generic mark).
    const kinds = (['vector', 'path', 'symbol'] as const).filter((k) => m.icon?.[k] !== undefined);
    if (kinds.length > 1)
      warn(['icon'], `expected one of "vector", "path" or "symbol", got ${kinds.map((k) => `"${k}"`).join(' and ')}; "${kinds[0]}" is used`);
  }

  if (m.identify) checkPattern(m.identify.match, ['identify', 'match'], error);
  checkResume(m, error);
  checkRules(m.titleStatus, ['titleStatus'], error, warn);
  checkRules(m.status, ['status'], error, warn);
  m.failureScreen?.forEach((source, i) => checkPattern(source, ['failureScreen', i], error));
  if (m.status && m.hooks) warn(['status'], 'ignored because hooks are declared (hooks are the single source of truth)');

  if (m.hooks) checkHooks(m.hooks, error, warn);
}

function checkHooks(h: ManifestHooks, error: Report, warn: Report): void {
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
    if (earlier !== undefined)
      error(['hooks', 'events', i], `duplicate of hooks.events[${earlier}] (on ${quote(e.on)}${e.matcher ? `, matcher ${quote(e.matcher)}` : ''})`);
    else seen.set(key, i);
    // A failure stops the agent until the user acts: it is attention, never done or working.
    if (e.failure !== undefined && e.state !== 'attention')
      error(['hooks', 'events', i, 'state'], `an event with "failure" reports a failure, so its state must be "attention", got ${quote(e.state)}`);
  });
}

function checkCommand(command: string, error: Report): void {
  if ([...command].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) error(['command'], 'must not contain control characters');
  else if (command !== command.trim()) error(['command'], `must not start or end with spaces, got ${quote(command)}`);
  else if (command === '') error(['command'], 'must not be empty; leave "command" out for the login shell');
  else if (command.startsWith('-')) error(['command'], `expected a program or a command line, got the flag ${quote(command)}`);
}

function checkResume(m: Manifest, error: Report): void {
  const r = m.resume;
  if (!r) return;
  const pinnedFields = (['create', 'storeRoot', 'storeMatch'] as const).filter((k) => r[k] !== undefined);
  if (pinnedFields.length && r.discover) {
    error(
      ['resume'],
      `mixes families: ${pinnedFields.map((k) => `"${k}"`).join(', ')} belong to a pinned-id resume and "discover" to a discovered-id one; keep one family`,
    );
  } else if (pinnedFields.length) {
    const missing = (['create', 'resume', 'storeRoot', 'storeMatch'] as const).filter((k) => r[k] === undefined);
    if (missing.length) {
      error(['resume'], `pinned-id resume (it has ${pinnedFields.map((k) => `"${k}"`).join(', ')}) is missing ${missing.map((k) => `"${k}"`).join(', ')}`);
    }
  } else if (r.discover) {
    if (r.resume === undefined)
      error(['resume'], 'discovered-id resume is missing "resume" (the arguments that continue conversation {id}, e.g. "--resume {id}")');
  } else if (r.resume === undefined) {
    error(['resume'], 'empty; expected "resume" plus either "create", "storeRoot" and "storeMatch" (pinned id) or "discover" (discovered id)');
  } else if (!m.hooks?.conversation) {
    error(
      ['resume'],
      'cannot tell which conversation to resume: add "create", "storeRoot" and "storeMatch" (pinned id), "discover" (discovered id), or "hooks.conversation" (the id arrives in a hook payload)',
    );
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
    if (segments.some((seg) => seg === '.' || seg === '..'))
      error(['resume', 'storeMatch'], `must not contain "." or ".." folders, got ${quote(r.storeMatch)}`);
    else if (segments.slice(0, -1).some((seg) => /[{}*]/.test(seg)))
      error(['resume', 'storeMatch'], `the subfolders before the name are literal names (no {id} or *), got ${quote(r.storeMatch)}`);
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
      checkPattern(source, [...base, state, i], error);
    });
  }
  if (count === 0) warn(base, 'declares no rules');
}

function checkPattern(source: string, path: PathKey[], error: Report): void {
  try {
    compileManifestPattern(source);
  } catch (err) {
    const reason = errorMessage(err).replace(`Invalid regular expression: /${source}/m: `, '');
    error(path, `not a valid regular expression: ${reason}`);
    return;
  }
  const nested = nestedQuantifier(source);
  if (nested !== null)
    error(
      path,
      `${quote(nested)} repeats a group that itself repeats (a nested quantifier): a backtracking engine can take exponential time on it; repeat once, e.g. "(a+)+" as "a+"`,
    );
}

function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? '');
}

function isIdPlaceholder(p: string): boolean {
  if (p === 'id') return true;
  const m = /^id:([1-9][0-9]*)$/.exec(p);
  return m !== null && Number(m[1]) <= MAX_ID_PREFIX;
}
