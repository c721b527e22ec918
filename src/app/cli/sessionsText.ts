// What `termio sessions` prints for people (without --json): the session table, short ids, states
// with their exit code or stall, and one line for how a wait ended.
import type { ControlResult, SessionInfo, WaitResult } from '../../protocol/control';
import { shortenHome } from '../../protocol/homePath';
import { formatDuration } from '../present/sidebarModel';

type WhyResult = ControlResult<'sessions.why'>;

/** The shortest prefix (at least 8 characters, like git) that tells each id apart from the others. */
export function shortIds(ids: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const id of ids) {
    let n = Math.min(8, id.length);
    while (n < id.length && ids.some((o) => o !== id && o.startsWith(id.slice(0, n)))) n++;
    out.set(id, id.slice(0, n));
  }
  return out;
}

export function ago(iso: string, now: number): string {
  return formatDuration(now - Date.parse(iso));
}

export function tilde(path: string, env: NodeJS.ProcessEnv): string {
  return env.HOME ? shortenHome(path, env.HOME) : path;
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join('  ')).join('\n') + '\n';
}

/** "working", "working (stalled)", "done (exited 7)", "attention (exited 1)", "attention (API error
 *  401: log in again)": a failure in a word or two; `sessions why` gives the whole reason. */
export function stateText(s: SessionInfo): string {
  const failure = s.status?.why.failure;
  if (failure && failure.kind !== 'exit') return `${s.state} (${failure.reason})`;
  if (s.exited) return `${s.state} (exited ${s.exited.signal ? `by signal ${s.exited.signal}` : s.exited.exitCode})`;
  return s.stalledSince ? `${s.state} (stalled)` : s.state;
}

export function listText(sessions: SessionInfo[], env: NodeJS.ProcessEnv): string {
  if (sessions.length === 0) return 'No sessions.\n';
  const short = shortIds(sessions.map((s) => s.id));
  const now = Date.now();
  // The machine column only once a session runs elsewhere: most people have one machine.
  const machines = sessions.some((s) => s.machine);
  const rows = [['ID', ...(machines ? ['MACHINE'] : []), 'AGENT', 'STATE', 'SINCE', 'CWD', 'TITLE']];
  for (const s of sessions) {
    const title = s.parentId ? `↳ ${short.get(s.parentId) ?? s.parentId.slice(0, 8)}${s.title ? ` ${s.title}` : ''}` : s.title;
    const at = s.machine ? s.cwd : tilde(s.cwd, env);
    const cwd = s.worktree ? `${at} [${s.worktree.branch}]` : at;
    rows.push([short.get(s.id) ?? s.id, ...(machines ? [s.machine ?? '-'] : []), s.agentId ?? 'shell', stateText(s), ago(s.stateSince, now), cwd, title]);
  }
  return table(rows);
}

export function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

export function waitSummary(w: WaitResult): string {
  const s = w.session;
  const what = {
    settled: s ? stateText(s) : 'closed',
    timeout: `still ${s ? stateText(s) : 'open'} after ${(w.waitedMs / 1000).toFixed(1)} s (timeout)`,
    attention: 'needs you',
    closed: 'closed before it settled',
    notReady: 'never became ready for input, or never showed the prompt; it was not submitted',
  }[w.outcome];
  return `${w.id.slice(0, 8)} ${what}`;
}

/** `sessions why`: "done (exited 7) since … — hooks Stop at …" ("attention: stopped: usage limit,
 *  resets 14:00 since … — hooks StopFailure at …" for a failure), then one line per health note. */
export function whyReport(w: WhyResult): string {
  const what = w.rule !== undefined ? `rule /${w.rule}/` : (w.event ?? '');
  const exit = w.failure ? `: ${w.failure.reason}` : w.exited ? ` (exited ${w.exited.signal ? `by signal ${w.exited.signal}` : w.exited.exitCode})` : '';
  const tool = w.tool !== undefined ? ` — waiting on ${w.tool}` : '';
  return `${w.state}${exit} since ${w.since} — ${w.channel}${what ? ` ${what}` : ''} at ${w.at}${tool}\n${w.health.map((h) => `  ! ${h}\n`).join('')}${noticeLines(w)}`;
}

/** What a session tells its parent, and as a parent what it was told and what waits for it. */
function noticeLines(w: WhyResult): string {
  const lines = [
    ...(w.tellsParent !== undefined ? [`tells parent ${w.tellsParent} when it finishes`] : []),
    ...(w.told ? [`told ${w.told.at}: ${w.told.text}`] : []),
    ...(w.queued ?? []).map((n) => `queued until it waits for input: ${n.text}`),
  ];
  return lines.map((l) => `  ${l}\n`).join('');
}
