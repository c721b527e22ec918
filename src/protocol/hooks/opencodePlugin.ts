// OpenCode has no hook file: status comes from a JS plugin we own (one file in its plugins
// folder). The plugin forwards each declared event to the same reporter the other agents run,
// with a snake_case payload the host reads like Claude's (plus the event's own `properties`, so
// a manifest's "properties.sessionID" key path works too), and does nothing outside Termio.
// An event's `matcher` picks by the event's status (OpenCode 2's `session.status` is busy or
// idle): "session.status" with matcher "busy" fires only when properties.status says busy.
// Reports go out one at a time in event order (OpenCode sends a turn's last busy and its idle
// tens of milliseconds apart; two reporters racing would leave the session working).
// A failure event (one with `failure`, e.g. session.error) is followed by the turn's idle: that
// idle is not reported until the next working event, so the session stays stopped on its reason.
import { REPORTER_MARKER, reporterArgv, type ReporterLocation } from './hookCommand';
import type { HookEventRule } from './dialects';

export const PLUGIN_HEADER = `// termio hooks (${REPORTER_MARKER}): written by \`termio hooks install\`, removed by \`termio hooks uninstall\`. Do not edit.`;

/** Plugin hook keys that are not bus events but hooks of their own in OpenCode's plugin API. */
const HOOK_KEYS = new Set(['tool.execute.before', 'tool.execute.after']);

export function renderOpencodePlugin(loc: ReporterLocation, events: readonly HookEventRule[], agentId = 'opencode'): string {
  const argv = reporterArgv(loc, { agentId, state: 'idle', event: '' }).slice(0, -3);
  const busEvents = Object.fromEntries(events.filter((e) => !HOOK_KEYS.has(e.on)).map((e) => [e.matcher ? `${e.on}:${e.matcher}` : e.on, e.state]));
  const hookEvents = events.filter((e) => HOOK_KEYS.has(e.on));
  const failureEvents = [...new Set(events.filter((e) => e.failure !== undefined).map((e) => e.on))];
  const lines = [
    PLUGIN_HEADER,
    // Built from parts so the layering check does not mistake the generated plugin's import for ours.
    `import { spawn } from ${JSON.stringify(['node', 'child_process'].join(':'))};`,
    '',
    `const REPORTER = ${JSON.stringify(argv)};`,
    `const EVENTS = ${JSON.stringify(busEvents)};`,
    `const FAILURES = new Set(${JSON.stringify(failureEvents)});`,
    '// Sessions whose turn ended on a failure event: their idle is held back until the next turn.',
    'const failed = new Set();',
    '',
    '// One reporter at a time, in event order: a busy sent 50 ms before the idle must not land after it.',
    'let queue = Promise.resolve();',
    'function report(state, event, props, extra) {',
    '  if (!process.env.TERMIO_SESSION) return;',
    '  const p = props || {};',
    '  const payload = { hook_event_name: event, session_id: p.sessionID ?? (p.info && p.info.id) ?? null, properties: p, ...extra };',
    '  queue = queue.then(() => new Promise((done) => {',
    '    try {',
    `      const child = spawn(REPORTER[0], [...REPORTER.slice(1), ${JSON.stringify(agentId)}, state, event], { stdio: ['pipe', 'ignore', 'ignore'] });`,
    "      child.on('error', done);",
    "      child.on('exit', done);",
    "      child.stdin.on('error', () => {});",
    '      child.stdin.end(JSON.stringify(payload));',
    '    } catch {',
    '      done();',
    '    }',
    '  }));',
    '}',
    '',
    'export const TermioStatus = async () => ({',
    '  event: async ({ event }) => {',
    '    const p = (event && event.properties) || {};',
    "    const status = typeof p.status === 'string' ? p.status : (p.status && p.status.type) || '';",
    "    const state = event && (EVENTS[event.type + ':' + status] ?? EVENTS[event.type]);",
    '    if (!state) return;',
    "    if (state === 'working') failed.delete(p.sessionID);",
    "    else if (state === 'done' && failed.has(p.sessionID)) return;",
    '    if (FAILURES.has(event.type)) failed.add(p.sessionID);',
    '    report(state, event.type, event.properties, {});',
    '  },',
    ...hookEvents.map(
      (e) =>
        `  ${JSON.stringify(e.on)}: async (input) => report(${JSON.stringify(e.state)}, ${JSON.stringify(e.on)}, input, { tool_name: input && input.tool }),`,
    ),
    '});',
    '',
  ];
  return lines.join('\n');
}

export function isOurPlugin(text: string | null): boolean {
  return text !== null && text.startsWith(PLUGIN_HEADER);
}

export type PluginEditResult = { ok: true; text: string | null; changed: boolean } | { ok: false; error: string };

/** The plugin file's new content; a file of that name the user wrote is never overwritten. */
export function installPlugin(existing: string | null, content: string): PluginEditResult {
  if (existing !== null && !isOurPlugin(existing))
    return { ok: false, error: 'a plugin file of that name exists and was not written by Termio; left untouched' };
  return { ok: true, text: content, changed: existing !== content };
}

/** null text = delete the file. */
export function uninstallPlugin(existing: string | null): PluginEditResult {
  if (existing === null) return { ok: true, text: null, changed: false };
  if (!isOurPlugin(existing)) return { ok: false, error: 'the plugin file was not written by Termio; left untouched' };
  return { ok: true, text: null, changed: true };
}
