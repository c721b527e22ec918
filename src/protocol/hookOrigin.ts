// Who sent a hook report, judged from the ancestors the reporter sends: the session's own agent,
// a nested agent (one its tools started, which inherits the session's environment and hooks), or
// a process outside the session. Only the first may change the session's state or rebind it.
//
// The session's root is the process the pty started (its pid is the session's). Reading the
// reporter's ancestors upward: first the shells the hook command ran in (`sh -c '<command>'`, none
// when the agent runs it directly), then the process that ran the hook (the runner), then up to
// the root whatever launched it (the root itself runs the hook when the agent was exec'd; npm's
// `codex.js` spawns the native binary, which runs it). The shape alone cannot tell a launcher from
// an outer agent whose tool started a nested one (`claude -p` from a Bash tool whose bash exec'd
// it gives reporter → sh → claude → agent, like reporter → sh → codex → codex.js), so the
// session learns its agent's runner from its first report: an agent reports (SessionStart, or the
// first prompt) before any of its tools can run. From then on a report whose runner is another
// process is nested. A chain that never reaches the root (a detached daemon, a process started
// elsewhere) is outside.
import type { HookReport } from './hookReport';

/** Process names of shells (Linux comm / macOS p_comm), the hook commands' runners. */
export const SHELL_NAMES: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'busybox', 'tcsh', 'csh']);

export type HookOrigin = { kind: 'agent'; runner: number } | { kind: 'nested'; pid: number; name: string } | { kind: 'outside' };

/**
 * `agentRunner`: the runner the session learned from its first report (undefined before it);
 * the result's `runner` is what to learn.
 */
export function hookOrigin(parents: HookReport['parents'], rootPid: number, agentRunner?: number): HookOrigin {
  const at = parents.findIndex(([pid]) => pid === rootPid);
  if (at < 0) return { kind: 'outside' };
  const below = parents.slice(0, at);
  const [pid, name] = below.find(([, n]) => !SHELL_NAMES.has(n)) ?? parents[at]!;
  if (agentRunner !== undefined && pid !== agentRunner) return { kind: 'nested', pid, name };
  return { kind: 'agent', runner: pid };
}

/** One line for `sessions why` and the log. */
export function describeHookOrigin(origin: Exclude<HookOrigin, { kind: 'agent' }>, rootPid: number): string {
  return origin.kind === 'nested'
    ? `from a nested agent (pid ${origin.pid}, ${origin.name}) started inside the session's agent (pid ${rootPid})`
    : `from a process outside the session's agent (pid ${rootPid})`;
}
