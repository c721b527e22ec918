// Who sent a hook report, judged from the ancestors the reporter sends: the session's own agent,
// a nested agent (one its tools started, which inherits the session's environment and hooks), or
// a process outside the agent's tree. Only the first may change the session's state or rebind it.
//
// The agent is the process the session launched (the pty's child; agents are exec'd, so its pid
// is the session's pid). An agent runs a hook command either itself or through a shell
// (`sh -c '<command>'`, perhaps a shell or two deep), so the reporter's ancestors up to the agent
// are shells only. A nested agent is a non-shell process between them: `claude -p` run by the
// outer agent's Bash tool gives reporter → sh → claude → bash → agent. A chain that never reaches
// the agent (a detached daemon, a process started elsewhere) is outside.
import type { HookReport } from './hookReport';

/** Process names of the shells agents run hook commands through (Linux comm / macOS p_comm). */
export const HOOK_SHELL_NAMES: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'busybox', 'tcsh', 'csh']);

export type HookOrigin =
  | { kind: 'agent' }
  | { kind: 'nested'; pid: number; name: string }
  | { kind: 'outside' };

export function hookOrigin(parents: HookReport['parents'], agentPid: number): HookOrigin {
  const at = parents.findIndex(([pid]) => pid === agentPid);
  if (at < 0) return { kind: 'outside' };
  // The deepest non-shell process between the reporter and the agent: the agent that ran the hook.
  const runner = parents.slice(0, at).find(([, name]) => !HOOK_SHELL_NAMES.has(name));
  return runner ? { kind: 'nested', pid: runner[0], name: runner[1] } : { kind: 'agent' };
}

/** One line for `sessions why` and the log. */
export function describeHookOrigin(origin: Exclude<HookOrigin, { kind: 'agent' }>, agentPid: number): string {
  return origin.kind === 'nested'
    ? `from a nested agent (pid ${origin.pid}, ${origin.name}) started inside this session's agent (pid ${agentPid})`
    : `from a process outside this session's agent (pid ${agentPid})`;
}
