// The "scripts" hook type: a folder the agent runs one executable from per event, named after
// the event (Cline's ~/.cline/hooks/TaskStart). Pure: what each script says and how to tell ours
// from the user's; the host writes, sweeps and removes the files (src/app/services/scriptHookFolder.ts).
import { REPORTER_MARKER, reporterCommand, type ReporterLocation } from './hookCommand';
import type { HookEventRule } from './dialects';

/** The second line of every script we write: how install and uninstall recognise ours. */
export const SCRIPT_MARKER_LINE = '# termio hook script: written by `termio hooks install`, removed by `termio hooks uninstall`';

/** An event name that is safe as a file name in the hooks folder (no path, no hidden file). */
export function isScriptEventName(on: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(on);
}

/**
 * The script for one `on → state` rule. The reporter reads the agent's JSON payload from stdin.
 * Cline reads a hook's stdout as its JSON reply, so the script answers "go on" itself, whatever
 * the reporter did (outside Termio the reporter line is skipped and only the reply runs).
 */
export function renderHookScript(reporter: ReporterLocation, agentId: string, rule: HookEventRule): string {
  const report = reporterCommand(reporter, { agentId, state: rule.state, event: rule.on }, { guard: false });
  // The reply first, then `exec`: the reporter takes over the script's process, so the agent is
  // its parent, exactly as for a hook the agent runs through `sh -c`. (A script started by its
  // shebang carries the script's name, not a shell's, and would otherwise look like another
  // program between the agent and the reporter: a nested agent.)
  return [
    '#!/bin/sh',
    SCRIPT_MARKER_LINE,
    `printf '%s\\n' '{"cancel":false}'`,
    '[ -n "$TERMIO_SESSION" ] || exit 0',
    `exec ${report} >/dev/null 2>&1`,
    '',
  ].join('\n');
}

/** A script in the folder is ours when it carries our marker line and runs our reporter. */
export function isOurScript(text: string | null): boolean {
  return text !== null && text.includes(SCRIPT_MARKER_LINE) && text.includes(REPORTER_MARKER);
}
