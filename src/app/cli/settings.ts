// `termio settings get [KEY] | set KEY VALUE | unset KEY [--json]`: reads and changes
// $TERMIO_HOME/config/settings.json. A change is made by the session host (started if none runs),
// the one process that writes the file, so it applies at once; only when no host can start is it
// written here (localWriter.ts). Reading asks the running host (what it applies now), else the file.
import { ControlClient } from '../client/controlClient';
import { SettingsFile } from '../services/settingsFile';
import { termioPaths } from '../services/paths';
import { ExitCode, parseOrUsage, type CliIo } from './cliIo';
import { changeSetting } from './localWriter';
import { printJsonError, printOk } from './output';

const HELP = `Usage: termio settings get [KEY] [--json]
       termio settings set KEY VALUE [--json]
       termio settings unset KEY [--json]

Reads or changes Termio's settings ($TERMIO_HOME/config/settings.json). The session host writes
the file (one is started if none runs) and applies the change at once; your comments and layout
in it are kept. A hand edit of the file applies live too.

KEY     a dotted path, e.g. terminal.fontSize, or a JSON array of keys when a key has a dot in
        it, e.g. '["worktrees","repositories","/src/app.v2"]'
VALUE   JSON (true, 14, "Menlo", ["a"]); anything that is not JSON is taken as a string
unset   removes the key, so its default applies

Exit codes: 0 ok, 2 bad usage, 1 the host refused the value (the message says why).
`;

/** A key path: a JSON array of strings, else dot-separated; or why it is not one. */
function keyPath(text: string): string[] | string {
  if (text.startsWith('[')) {
    try {
      const v: unknown = JSON.parse(text);
      if (Array.isArray(v) && v.length > 0 && v.every((k) => typeof k === 'string' && k !== '')) return v as string[];
    } catch {
      // Reported below.
    }
    return `KEY '${text}' is not a JSON array of non-empty strings`;
  }
  const parts = text.split('.');
  return parts.every((p) => p !== '') ? parts : `KEY '${text}' has an empty part`;
}

function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function valueAt(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const k of path) cur = cur !== null && typeof cur === 'object' && Object.hasOwn(cur, k) ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/** The settings as the running host applies them, else as the file reads. */
async function current(io: CliIo): Promise<{ file: string; settings: unknown; errors: string[] }> {
  const client = await ControlClient.connect(io.env);
  if (client instanceof ControlClient) {
    try {
      const r = await client.request('settings.get', {});
      if (r.ok) return r.result;
    } finally {
      client.close();
    }
  }
  const file = new SettingsFile(termioPaths(io.env).settingsFile, io.env.HOME);
  return { file: file.file, settings: file.settings, errors: file.errors };
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const parsed = parseOrUsage(io, 'settings', HELP, args, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (typeof parsed === 'number') return parsed;
  const [verb, key, value, ...extra] = parsed.positionals;
  const json = parsed.values.json === true;
  if (parsed.values.help || verb === 'help') {
    io.out(HELP);
    return ExitCode.ok;
  }
  const arity = { get: [0, 1], set: [2, 2], unset: [1, 1] } as const;
  const want = verb !== undefined && Object.hasOwn(arity, verb) ? arity[verb as keyof typeof arity] : null;
  const given = [key, value, ...extra].filter((x) => x !== undefined).length;
  if (!want || given < want[0] || given > want[1]) {
    io.err(verb === undefined || want ? `termio settings: wrong arguments\n\n${HELP}` : `termio settings: unknown verb '${verb}'\n\n${HELP}`);
    return ExitCode.usage;
  }
  const path = key === undefined ? [] : keyPath(key);
  if (typeof path === 'string') {
    io.err(`termio settings: ${path}\n`);
    return ExitCode.usage;
  }
  if (verb === 'get') {
    const s = await current(io);
    for (const e of s.errors) io.err(`termio settings: ${e}\n`);
    const v = valueAt(s.settings, path);
    if (v === undefined) {
      if (json) printJsonError(io, 'badSetting', `no setting '${path.join('.')}'`);
      else io.err(`termio settings: no setting '${path.join('.')}'\n`);
      return ExitCode.failed;
    }
    if (json) printOk(io, { file: s.file, key: path, value: v });
    else io.out(`${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}\n`);
    return ExitCode.ok;
  }
  const r = await changeSetting(io, { path, value: verb === 'set' ? jsonValue(value!) : undefined });
  if (!r.ok) {
    if (json) printJsonError(io, r.code, r.message);
    else io.err(`termio settings: ${r.message}\n`);
    return ExitCode.failed;
  }
  if (r.result.notice) io.err(`termio settings: ${r.result.notice}\n`);
  if (json) printOk(io, { file: r.result.file, key: path, written: r.local ? 'here' : 'host' });
  else io.out(`${path.join('.')} ${verb === 'set' ? 'set' : 'removed'}${r.local ? ' (no session host could start; written by this command)' : ''}\n`);
  return ExitCode.ok;
}
