// Every manifest rule, asserted as the exact text a user reads.
import { describe, expect, it } from 'vitest';
import { compileManifestPattern } from '../../src/protocol/manifestRules';
import { manifestResumeFamily, manifestResumeSpec, manifestStatusChannels, parseManifest, parseManifestValue } from '../../src/protocol/manifestParse';
import { type Manifest } from '../../src/protocol/manifestSchema';

const LABEL = '~/.termio/config/agents/foo.json';
const minimal = { id: 'foo', name: 'Foo', command: 'foo' };

/** Parses a plain object (merged over the minimal manifest) and returns the result. */
function check(fields: Record<string, unknown>, opts: { replace?: boolean } = {}) {
  const value = opts.replace ? fields : { ...minimal, ...fields };
  return parseManifest(JSON.stringify(value, null, 2), LABEL);
}
const errorsOf = (fields: Record<string, unknown>, opts: { replace?: boolean } = {}) => check(fields, opts).errors;
const warningsOf = (fields: Record<string, unknown>) => check(fields).warnings;

const pinned = { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.foo/sessions', storeMatch: 'file:{id}.jsonl' };
const discover = { root: '~/.foo/sessions', format: 'jsonl', id: 'payload.id', cwd: 'payload.cwd' };
const hooks = { type: 'json', file: '~/.foo/settings.json', dialect: 'claude', events: [{ on: 'Stop', state: 'done' }] };

describe('parseManifest: a valid manifest', () => {
  it('loads the minimal manifest (id, name, command) with no errors or warnings', () => {
    const r = check({});
    expect(r).toEqual({ manifest: minimal, errors: [], warnings: [], disabled: [] });
  });

  it('loads the ATP sample Grok manifest verbatim', () => {
    const grok = {
      id: 'grok',
      name: 'Grok',
      command: 'grok',
      permissionBypassFlag: '--yolo',
      icon: { vector: 'grok' },
      install: 'https://x.ai/cli',
      resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.grok/sessions', storeMatch: 'dir:{id}' },
      titleStatus: { attention: ['Action Required'] },
      hooks: {
        type: 'json',
        file: '~/.grok/hooks/termio.json',
        dialect: 'grok',
        events: [
          { on: 'UserPromptSubmit', state: 'working' },
          { on: 'PreToolUse', state: 'working' },
          { on: 'PostToolUse', state: 'working' },
          { on: 'Stop', state: 'done' },
        ],
      },
    };
    const r = check(grok, { replace: true });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.manifest).toEqual(grok);
  });

  it('accepts a leading byte-order mark and $schema / comment fields', () => {
    const r = parseManifest(`\uFEFF${JSON.stringify({ $schema: './manifest.schema.json', comment: 'note', ...minimal })}`, LABEL);
    expect(r.errors).toEqual([]);
    expect(r.manifest?.comment).toBe('note');
  });
});

describe('parseManifest: text that is not a manifest', () => {
  it('reports invalid JSON with line and column, in the same words on every Node version', () => {
    const bad = (text: string) => parseManifest(text, LABEL).errors;
    expect(bad('{\n  "id": "foo",\n  "name": "Foo",\n}')).toEqual([`${LABEL}: not valid JSON: trailing comma before "}" (line 4, column 1)`]);
    expect(bad('{"id": "foo"')).toEqual([`${LABEL}: not valid JSON: expected "," or "}", found the end of the file (line 1, column 13)`]);
    expect(bad('{id: "foo"}')).toEqual([`${LABEL}: not valid JSON: expected a double-quoted property name, found "i" (line 1, column 2)`]);
    expect(bad('{"id" "foo"}')).toEqual([`${LABEL}: not valid JSON: expected ":" after the property name, found "\\"" (line 1, column 7)`]);
    expect(bad('{"id": "f\\x"}')).toEqual([`${LABEL}: not valid JSON: bad escape "\\x" (line 1, column 10)`]);
    expect(bad('{"id": "fo\no"}')).toEqual([`${LABEL}: not valid JSON: control character inside a string (use \\n, \\t, ...) (line 1, column 11)`]);
    expect(bad('{"id": "foo')).toEqual([`${LABEL}: not valid JSON: unterminated string (line 1, column 12)`]);
    expect(bad('{"order": tru}')).toEqual([`${LABEL}: not valid JSON: unexpected "t" (line 1, column 11)`]);
    expect(bad('{"order": [1,]}')).toEqual([`${LABEL}: not valid JSON: trailing comma before "]" (line 1, column 14)`]);
    expect(bad('{} {}')).toEqual([`${LABEL}: not valid JSON: unexpected "{" after the end of the JSON value (line 1, column 4)`]);
    expect(bad('// comment\n{}')).toEqual([`${LABEL}: not valid JSON: unexpected "/" (line 1, column 1)`]);
  });

  it('reports an empty file', () => {
    expect(parseManifest('  \n', LABEL).errors).toEqual([`${LABEL}: file is empty; expected a JSON object with at least "id", "name" and "command"`]);
  });

  it('reports a root that is not an object', () => {
    expect(parseManifest('[1, 2]', LABEL).errors).toEqual([`${LABEL}: expected a JSON object at the top level, got a list`]);
    expect(parseManifest('"claude"', LABEL).errors).toEqual([`${LABEL}: expected a JSON object at the top level, got a string`]);
    expect(parseManifest('null', LABEL).errors).toEqual([`${LABEL}: expected a JSON object at the top level, got null`]);
    expect(parseManifestValue(42, LABEL).errors).toEqual([`${LABEL}: expected a JSON object at the top level, got a number`]);
  });

  it('refuses deep nesting before parsing it', () => {
    const deep = `{"id":"foo","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(parseManifest(deep, LABEL).errors).toEqual([`${LABEL}: nested too deeply (more than 32 levels at line 1, column 48)`]);
  });

  it('accepts many brackets that are not deeply nested', () => {
    const events = Array.from({ length: 60 }, (_, i) => ({ on: `Event${i}`, state: 'working' }));
    expect(check({ hooks: { type: 'json', file: '~/.x/settings.json', dialect: 'x', events } }).errors).toEqual([]);
  });

  it('does not count brackets inside strings as nesting', () => {
    const r = check({ comment: '['.repeat(100) });
    expect(r.errors).toEqual([]);
  });

  it('refuses a file over 1 MB', () => {
    const big = JSON.stringify({ ...minimal, comment: 'x'.repeat(2_000_000) });
    expect(parseManifest(big, LABEL).errors).toEqual([`${LABEL}: file is too large (1.9 MB); a manifest is at most 1.0 MB`]);
  });
});

describe('parseManifest: fields', () => {
  it('names missing required fields and what they are', () => {
    expect(errorsOf({}, { replace: true })).toEqual([
      `${LABEL}: id: missing; expected a string: stable identifier and safe file name (a lowercase slug such as "my-agent" is the recommended style)`,
      `${LABEL}: name: missing; expected a string: display name in the picker and sidebar`,
    ]);
    // No command is the login shell (ATP's plain terminal).
    expect(errorsOf({ id: 'foo', name: 'Foo' }, { replace: true })).toEqual([]);
  });

  it('reports wrong types with the value found', () => {
    expect(errorsOf({ name: 42, order: 'first', icon: [] })).toEqual([
      `${LABEL}: name: expected a string, got 42`,
      `${LABEL}: icon: expected an object, got a list`,
      `${LABEL}: order: expected a number, got "first"`,
    ]);
    expect(errorsOf({ order: 1.5 })).toEqual([`${LABEL}: order: expected an integer, got 1.5`]);
  });

  it('requires id to be a stable id that is a safe file name (slugs recommended, camelCase accepted)', () => {
    for (const id of ['my agent', '-a', '.a', '..', 'a/b', 'a\\b', 'ä', '']) {
      expect(errorsOf({ id })).toEqual([
        `${LABEL}: id: expected a stable id that is a safe file name: letters, digits, ".", "_" and "-", starting with a letter or digit (e.g. "my-agent"), got ${JSON.stringify(id)}`,
      ]);
    }
    for (const id of ['claude', 'github-copilot', 'qwen3', 'a', 'claudeCode', 'a_b', 'a--b', 'a-', 'agent.v2']) expect(errorsOf({ id })).toEqual([]);
    expect(errorsOf({ id: 'a'.repeat(65) })).toEqual([`${LABEL}: id: must be at most 64 characters, got 65`]);
  });

  it('rejects a blank name', () => {
    expect(errorsOf({ name: '' })).toEqual([`${LABEL}: name: must not be empty`]);
    expect(errorsOf({ name: '   ' })).toEqual([`${LABEL}: name: must not be blank`]);
  });

  it('takes command as a program or a command line the login shell runs', () => {
    expect(errorsOf({ command: 'npx -y some-agent' })).toEqual([]);
    expect(errorsOf({ command: 'myagent --fancy' })).toEqual([]);
    expect(errorsOf({ command: `FOO=1 agent --name 'a b'` })).toEqual([]);
    expect(errorsOf({ command: '--foo' })).toEqual([`${LABEL}: command: expected a program or a command line, got the flag "--foo"`]);
    expect(errorsOf({ command: ' foo' })).toEqual([`${LABEL}: command: must not start or end with spaces, got " foo"`]);
    expect(errorsOf({ command: 'fo\no' })).toEqual([`${LABEL}: command: must not contain control characters`]);
    expect(errorsOf({ command: '/Applications/My Agent/bin/agent' })).toEqual([]);
    expect(errorsOf({ command: '~/bin/agent' })).toEqual([]);
  });

  it('launches the login shell with loginShell: true, and not with both', () => {
    const r = check({ id: 'sh', name: 'Shell', loginShell: true }, { replace: true });
    expect(r.errors).toEqual([]);
    expect(r.manifest?.loginShell).toBe(true);
    expect(errorsOf({ loginShell: true })).toEqual([`${LABEL}: loginShell: use either "command" or "loginShell": true, not both`]);
    expect(errorsOf({ id: 'sh', name: 'Shell', loginShell: false }, { replace: true })).toEqual([`${LABEL}: loginShell: expected true, got false`]);
  });

  it('checks the bypass flag and the install URL', () => {
    expect(errorsOf({ permissionBypassFlag: 'yolo' })).toEqual([`${LABEL}: permissionBypassFlag: expected a flag starting with "-", got "yolo"`]);
    expect(errorsOf({ install: 'x.ai/cli' })).toEqual([`${LABEL}: install: expected an http(s) URL, got "x.ai/cli"`]);
    expect(errorsOf({ permissionBypassFlag: '--approval-mode=yolo', install: 'https://x.ai/cli' })).toEqual([]);
  });

  it('never refuses a manifest for its icon kind; checks a known file type and a colour tint', () => {
    expect(errorsOf({ icon: {} })).toEqual([]);
    expect(check({ icon: {} }).disabled).toEqual([
      { feature: 'icon', reason: 'no icon kind this version draws (expected one of "vector", "path" or "symbol"); the generic mark is shown' },
    ]);
    expect(errorsOf({ icon: { vector: 'foo', symbol: 'terminal' } })).toEqual([]);
    expect(warningsOf({ icon: { vector: 'foo', symbol: 'terminal' } })).toEqual([
      `${LABEL}: icon: expected one of "vector", "path" or "symbol", got "vector" and "symbol"; "vector" is used`,
    ]);
    expect(errorsOf({ icon: { path: 'foo.gif' } })).toEqual([`${LABEL}: icon.path: expected a .png or .svg file, got "foo.gif"`]);
    expect(errorsOf({ icon: { symbol: 'Terminal Fill' } })).toEqual([
      `${LABEL}: icon.symbol: expected an SF Symbol name such as "terminal.fill", got "Terminal Fill"`,
    ]);
    expect(errorsOf({ icon: { vector: 'foo', tint: 'red' } })).toEqual([`${LABEL}: icon.tint: expected a colour like "#D97757" or "#fa0", got "red"`]);
    expect(errorsOf({ icon: { path: 'icons/Foo.SVG', tint: '#abc' } })).toEqual([]);
    expect(errorsOf({ icon: { symbol: 'terminal.fill', tint: '#AABBCC' } })).toEqual([]);
  });
});

describe('parseManifest: resume families', () => {
  it('infers pinned from create/storeRoot/storeMatch and requires all four fields', () => {
    const r = check({ resume: pinned });
    expect(r.errors).toEqual([]);
    expect(manifestResumeFamily(r.manifest!)).toBe('pinned');
    expect(manifestResumeSpec(r.manifest!)).toEqual({ family: 'pinned', ...pinned });
    expect(errorsOf({ resume: { create: '--session-id {id}', resume: '--resume {id}' } })).toEqual([
      `${LABEL}: resume: pinned-id resume (it has "create") is missing "storeRoot", "storeMatch"`,
    ]);
    expect(errorsOf({ resume: { storeRoot: '~/.foo' } })).toEqual([
      `${LABEL}: resume: pinned-id resume (it has "storeRoot") is missing "create", "resume", "storeMatch"`,
    ]);
  });

  it('infers discovered from discover and requires resume plus every discover field', () => {
    const r = check({ resume: { resume: 'resume {id}', discover } });
    expect(r.errors).toEqual([]);
    expect(manifestResumeFamily(r.manifest!)).toBe('discovered');
    expect(errorsOf({ resume: { discover } })).toEqual([
      `${LABEL}: resume: discovered-id resume is missing "resume" (the arguments that continue conversation {id}, e.g. "--resume {id}")`,
    ]);
    expect(errorsOf({ resume: { resume: 'resume {id}', discover: { ...discover, format: 'yaml', cwd: undefined } } })).toEqual([
      `${LABEL}: resume.discover.format: expected "jsonl" or "json", got "yaml"`,
      `${LABEL}: resume.discover.cwd: missing; expected a string: key path of the working directory inside the record (e.g. "payload.cwd")`,
    ]);
    expect(errorsOf({ resume: { resume: 'resume {id}', discover: { ...discover, root: 'sessions', id: 'payload..id' } } })).toEqual([
      `${LABEL}: resume.discover.root: expected an absolute path or one starting with "~/", got "sessions"`,
      `${LABEL}: resume.discover.id: expected a dotted key path such as "payload.id", got "payload..id"`,
    ]);
  });

  it('infers discovered from a resume template plus hooks.conversation', () => {
    const r = check({ resume: { resume: '--session {id}' }, hooks: { ...hooks, conversation: 'session_id' } });
    expect(r.errors).toEqual([]);
    expect(manifestResumeSpec(r.manifest!)).toEqual({ family: 'discovered', resume: '--session {id}', conversation: 'session_id' });
    expect(errorsOf({ resume: { resume: '--session {id}' } })).toEqual([
      `${LABEL}: resume: cannot tell which conversation to resume: add "create", "storeRoot" and "storeMatch" (pinned id), "discover" (discovered id), or "hooks.conversation" (the id arrives in a hook payload)`,
    ]);
  });

  it('is none without resume, and rejects an empty or mixed resume', () => {
    expect(manifestResumeFamily(check({}).manifest!)).toBe('none');
    expect(errorsOf({ resume: {} })).toEqual([
      `${LABEL}: resume: empty; expected "resume" plus either "create", "storeRoot" and "storeMatch" (pinned id) or "discover" (discovered id)`,
    ]);
    expect(errorsOf({ resume: { ...pinned, discover } })).toEqual([
      `${LABEL}: resume: mixes families: "create", "storeRoot", "storeMatch" belong to a pinned-id resume and "discover" to a discovered-id one; keep one family`,
    ]);
  });

  it('requires {id} in templates and allows no other placeholder', () => {
    expect(errorsOf({ resume: { ...pinned, create: '--session-id', resume: '--resume {sid}' } })).toEqual([
      `${LABEL}: resume.create: must contain {id}, got "--session-id"`,
      `${LABEL}: resume.resume: unknown placeholder {sid}; the only placeholder is {id}`,
    ]);
    expect(errorsOf({ resume: { ...pinned, resume: '' } })).toEqual([`${LABEL}: resume.resume: must not be empty`]);
  });

  it('checks storeMatch: dir/file, a name below literal subfolders, {id} or {id:N}', () => {
    const bad = (storeMatch: string) => errorsOf({ resume: { ...pinned, storeMatch } });
    expect(bad('{id}.jsonl')).toEqual([
      `${LABEL}: resume.storeMatch: expected "dir:<name>" or "file:<name>", e.g. "dir:{id}" or "file:{id}.jsonl", got "{id}.jsonl"`,
    ]);
    expect(bad('file:chats/{id}.jsonl')).toEqual([]);
    expect(bad('file:a//{id}.jsonl')).toEqual([
      `${LABEL}: resume.storeMatch: expected "dir:<name>" or "file:<name>", e.g. "dir:{id}" or "file:{id}.jsonl", got "file:a//{id}.jsonl"`,
    ]);
    expect(bad('file:../{id}.jsonl')).toEqual([`${LABEL}: resume.storeMatch: must not contain "." or ".." folders, got "file:../{id}.jsonl"`]);
    expect(bad('file:{id}/x.jsonl')).toEqual([
      `${LABEL}: resume.storeMatch: the subfolders before the name are literal names (no {id} or *), got "file:{id}/x.jsonl"`,
    ]);
    expect(bad('dir:session')).toEqual([`${LABEL}: resume.storeMatch: must contain {id} (or {id:N}), got "dir:session"`]);
    expect(bad('file:{uuid}.json')).toEqual([`${LABEL}: resume.storeMatch: unknown placeholder {uuid}; expected {id} or {id:N} (the first N characters)`]);
    expect(bad('file:{id:0}.json')).toEqual([`${LABEL}: resume.storeMatch: unknown placeholder {id:0}; expected {id} or {id:N} (the first N characters)`]);
    expect(bad('file:session-*-{id:8}.jsonl')).toEqual([]);
    expect(bad('dir:{id}')).toEqual([]);
  });
});

describe('parseManifest: status channels', () => {
  it('accepts only the four states as titleStatus/status keys', () => {
    expect(errorsOf({ titleStatus: { busy: ['x'] } })).toEqual([
      `${LABEL}: titleStatus.busy: not a state; expected one of "working", "attention", "done" or "idle"`,
    ]);
    expect(errorsOf({ status: { waiting: ['x'], working: ['y'] } })).toEqual([
      `${LABEL}: status.waiting: not a state; expected one of "working", "attention", "done" or "idle"`,
    ]);
    // A failed turn is read by failureScreen, which the error names.
    expect(errorsOf({ status: { failure: ['^Error: '] } })).toEqual([
      `${LABEL}: status.failure: not a state; expected one of "working", "attention", "done" or "idle" (a failed turn on screen is read by "failureScreen")`,
    ]);
  });

  it('requires regexes that compile', () => {
    expect(errorsOf({ titleStatus: { working: ['^✦', 'a('], attention: ['[z-a]'] } })).toEqual([
      `${LABEL}: titleStatus.working[1]: not a valid regular expression: Unterminated group`,
      `${LABEL}: titleStatus.attention[0]: not a valid regular expression: Range out of order in character class`,
    ]);
    expect(errorsOf({ status: { idle: [''] } })).toEqual([`${LABEL}: status.idle[0]: must not be empty`]);
    expect(errorsOf({ titleStatus: { done: [] } })).toEqual([`${LABEL}: titleStatus.done: must have at least 1 entry`]);
    expect(errorsOf({ titleStatus: { done: 'Done' } })).toEqual([`${LABEL}: titleStatus.done: expected a list, got "Done"`]);
    expect(errorsOf({ failureScreen: ['^Error: (\\d+', '^(a+)+$'] })).toEqual([
      `${LABEL}: failureScreen[0]: not a valid regular expression: Unterminated group`,
      `${LABEL}: failureScreen[1]: "(a+)+" repeats a group that itself repeats (a nested quantifier): a backtracking engine can take exponential time on it; repeat once, e.g. "(a+)+" as "a+"`,
    ]);
  });

  it('compiles patterns with the m flag', () => {
    expect(compileManifestPattern('^> $').test('output\n> ')).toBe(true);
  });

  it('warns about an empty rule set and about status next to hooks', () => {
    expect(warningsOf({ titleStatus: {} })).toEqual([`${LABEL}: titleStatus: declares no rules`]);
    const r = check({ status: { attention: ['Allow\\?'] }, hooks });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([`${LABEL}: status: ignored because hooks are declared (hooks are the single source of truth)`]);
    expect(manifestStatusChannels(r.manifest!)).toEqual(['hooks']);
    expect(manifestStatusChannels(check({ status: { attention: ['x'] }, titleStatus: { idle: ['y'] } }).manifest!)).toEqual(['title', 'screen']);
  });

  it('checks hook events: states, duplicates, file or dir', () => {
    expect(errorsOf({ hooks: { ...hooks, events: [{ on: 'Stop', state: 'finished' }] } })).toEqual([
      `${LABEL}: hooks.events[0].state: expected "working", "attention", "done" or "idle", got "finished"`,
    ]);
    expect(errorsOf({ hooks: { ...hooks, events: [] } })).toEqual([`${LABEL}: hooks.events: must have at least 1 entry`]);
    expect(
      errorsOf({
        hooks: {
          ...hooks,
          events: [
            { on: 'Notification', state: 'attention', matcher: 'permission_prompt' },
            { on: 'Notification', state: 'idle', matcher: 'idle_prompt' },
            { on: 'Notification', state: 'done', matcher: 'permission_prompt' },
          ],
        },
      }),
    ).toEqual([`${LABEL}: hooks.events[2]: duplicate of hooks.events[0] (on "Notification", matcher "permission_prompt")`]);
    expect(errorsOf({ hooks: { ...hooks, file: undefined } })).toEqual([
      `${LABEL}: hooks: missing "file" or "dir" (where the agent reads its hook configuration)`,
    ]);
    expect(errorsOf({ hooks: { ...hooks, dir: '~/.foo/hooks' } })).toEqual([`${LABEL}: hooks: expected "file" or "dir", not both`]);
    expect(errorsOf({ hooks: { ...hooks, type: 'yaml' } })).toEqual([]);
    expect(check({ hooks: { ...hooks, type: 'yaml' } })).toMatchObject({
      manifest: { id: 'foo', name: 'Foo', command: 'foo' },
      disabled: [{ feature: 'hooks', reason: 'unknown hook type "yaml" (known: "json", "toml", "plugin" or "scripts")' }],
    });
    expect(errorsOf({ hooks: { ...hooks, dialect: 'Claude Code' } })).toEqual([
      `${LABEL}: hooks.dialect: expected a dialect name: lowercase letters and digits, words joined by single hyphens (e.g. "my-agent"), got "Claude Code"`,
    ]);
    expect(errorsOf({ hooks: { ...hooks, conversation: '' } })).toEqual([
      `${LABEL}: hooks.conversation: expected a dotted key path such as "payload.id", got ""`,
    ]);
  });

  it('takes a failure event that reports attention, and refuses one that reports another state', () => {
    const failing = (state: string, failure: unknown = 'error') => ({ hooks: { ...hooks, events: [...hooks.events, { on: 'StopFailure', state, failure }] } });
    const r = check(failing('attention'));
    expect(r.errors).toEqual([]);
    expect(r.manifest?.hooks?.events[1]).toEqual({ on: 'StopFailure', state: 'attention', failure: 'error' });
    expect(errorsOf(failing('done'))).toEqual([
      `${LABEL}: hooks.events[1].state: an event with "failure" reports a failure, so its state must be "attention", got "done"`,
    ]);
    expect(errorsOf(failing('attention', 'error details'))).toEqual([
      `${LABEL}: hooks.events[1].failure: expected a dotted key path such as "payload.id", got "error details"`,
    ]);
  });

  it('checks the hook file against the hook type', () => {
    expect(errorsOf({ hooks: { ...hooks, type: 'toml', file: undefined, dir: '~/.codex' } })).toEqual([
      `${LABEL}: hooks.dir: a "toml" hook configuration is one file: use "file"`,
    ]);
    expect(warningsOf({ hooks: { ...hooks, type: 'toml', dialect: 'codex' } })).toEqual([
      `${LABEL}: hooks.file: "type" is "toml" but the file does not end in .toml`,
    ]);
    expect(warningsOf({ hooks: { ...hooks, file: '~/.codex/config.toml' } })).toEqual([
      `${LABEL}: hooks.file: "type" is "json" but the file does not end in .json`,
    ]);
    expect(errorsOf({ hooks: { ...hooks, type: 'plugin', file: undefined, dir: '~/.config/opencode/plugins' } })).toEqual([]);
  });
});

describe('parseManifest: newer protocol versions', () => {
  it('loads a manifest with unknown fields, each one a warning', () => {
    const r = check({ sandbox: { network: false }, icon: { vector: 'foo', animated: true }, hooks: { ...hooks, retries: 3 } });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      `${LABEL}: icon.animated: unknown field, ignored by this version of Termio`,
      `${LABEL}: hooks.retries: unknown field, ignored by this version of Termio`,
      `${LABEL}: sandbox: unknown field, ignored by this version of Termio`,
    ]);
    const m: Manifest = r.manifest!;
    expect(m).not.toHaveProperty('sandbox');
    expect(m.icon).toEqual({ vector: 'foo' });
  });

  it('suggests the field a typo meant', () => {
    expect(warningsOf({ comand: 'x', hooks: { ...hooks, evnts: [] } })).toEqual([
      `${LABEL}: hooks.evnts: unknown field, ignored by this version of Termio (did you mean "events"?)`,
      `${LABEL}: comand: unknown field, ignored by this version of Termio (did you mean "command"?)`,
    ]);
  });

  it('reports unknown fields alongside real errors', () => {
    const r = check({ orderr: 1, name: '' });
    expect(r.manifest).toBeUndefined();
    expect(r.errors).toEqual([`${LABEL}: name: must not be empty`]);
    expect(r.warnings).toEqual([`${LABEL}: orderr: unknown field, ignored by this version of Termio (did you mean "order"?)`]);
  });

  it('quotes odd keys and long values readably', () => {
    const r = check({ 'my field': 1, name: 5, install: `https:/${'x'.repeat(100)}` });
    expect(r.warnings).toEqual([`${LABEL}: ["my field"]: unknown field, ignored by this version of Termio`]);
    expect(r.errors).toEqual([`${LABEL}: name: expected a string, got 5`, `${LABEL}: install: expected an http(s) URL, got "https:/${'x'.repeat(50)}…"`]);
  });
});

describe('messages stay on one line', () => {
  it('shows a bad escape of a control character escaped (found by the damaged-text property)', () => {
    const r = parseManifest('{"id": "a\\\n"}', 'x.json');
    expect(r.errors).toEqual(['x.json: not valid JSON: bad escape "\\\\n" (line 1, column 10)']);
  });
});
