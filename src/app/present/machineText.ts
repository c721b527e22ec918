// How a machine's state reads, in `termio machines list` and Settings → Machines: connected with
// its Termio version and sessions, or the state with why and when the next try is.
import type { MachineInfo } from '../../protocol/machines';

export function machineStateLine(m: MachineInfo, now: number): string {
  const retry = m.retryAt !== null && m.state !== 'connected' ? `; retrying in ${Math.max(0, Math.ceil((m.retryAt - now) / 1000))} s` : '';
  const version = m.remoteVersion ? ` (Termio ${m.remoteVersion})` : '';
  const count = (n: number) => `${n} session${n === 1 ? '' : 's'}`;
  if (m.state === 'connected') return `connected${version}, ${count(m.sessions)}`;
  // Not an error to fix: the host is reached already (or is this one), and stays listed once.
  if (m.state === 'sameMachine') return m.sameAs ? `same machine as ${m.sameAs}` : 'this machine itself';
  return `${m.state}${m.why ? `: ${m.why}` : ''}${retry}${m.sessions ? ` (${count(m.sessions)} last seen)` : ''}`;
}

/** The ssh destination as typed: `me@host`, with `:port` when one is set. */
export function machineTarget(m: Pick<MachineInfo, 'target' | 'port'>): string {
  return `${m.target}${m.port ? `:${m.port}` : ''}`;
}
