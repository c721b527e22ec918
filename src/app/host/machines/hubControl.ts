// The session verbs' view of the other machines (both sockets answer through them): `sessions
// list` shows their sessions (from the hub's last known state: a machine that is away never slows
// a listing), and the verbs that name a remote session, or `spawn|run --machine NAME`, run on that
// machine's host through the hub's link.
import { ControlErrorCodeSchema, type Outcome } from '../../../protocol/control';
import type { HostMethod } from '../../../protocol/hostMessages';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { MachinesHub } from './hub';
import type { MachineLink } from './machineLink';

/** An answer names the session it is about: tagged with its machine on the way back. */
function tag(result: unknown, machine: string): unknown {
  if (result === null || typeof result !== 'object') return result;
  const r = result as { session?: SessionInfo };
  return r.session ? { ...r, session: { ...r.session, machine } } : result;
}

/** Beyond a verb's own wait, the time a machine's host gets to answer. */
const ANSWER_MS = 15_000;

/** A remote session as a listing shows it: while its machine is away, the why says so. */
export function remoteSessionInfo(s: SessionInfo): SessionInfo {
  return s.reachable === false ? { ...s, stateWhy: `${s.machine} is away; last known: ${s.stateWhy}` } : s;
}

export interface RemoteSessions {
  list(): SessionInfo[];
  /** The verb for a session another machine runs; null when `ref` names none there. */
  forSession(ref: string, verb: string, args: Record<string, unknown>): Promise<Outcome> | null;
  /** `sessions focus` of a remote session: the app here shows it. */
  focus(ref: string): Outcome | null;
  /** spawn and run with `--machine NAME`. */
  onMachine(machine: string, verb: string, args: Record<string, unknown>): Promise<Outcome>;
  /** The saved machines connected now (a search of every machine asks them). */
  connected(): string[];
}

function waitOf(args: Record<string, unknown>): number {
  const w = args.wait as { timeoutMs?: number } | undefined;
  if (typeof args.timeoutMs === 'number') return args.timeoutMs;
  return typeof w?.timeoutMs === 'number' ? w.timeoutMs : 0;
}

async function call(link: MachineLink, verb: string, args: Record<string, unknown>): Promise<Outcome> {
  const c = link.client;
  if (!c) return { ok: false, code: 'machineUnreachable', message: `${link.name} is not connected: ${link.why ?? link.state}` };
  // The machine's host serves the same session verbs on its host socket.
  const r = await c.requestAny(verb as HostMethod, args, waitOf(args) + ANSWER_MS);
  if (r.ok) return { ok: true, result: tag(r.result, link.name) };
  // Its own refusals keep their code; a lost link or a timeout is the machine being unreachable.
  const own = ControlErrorCodeSchema.safeParse(r.error.code);
  return { ok: false, code: own.success && !c.closed ? own.data : 'machineUnreachable', message: `${link.name}: ${r.error.message}` };
}

export function hubRemoteSessions(hub: MachinesHub, show: (id: string) => void): RemoteSessions {
  return {
    list: () => hub.sessions().map(remoteSessionInfo),
    connected: () => hub.list().flatMap((m) => (m.state === 'connected' ? [m.name] : [])),
    focus: (ref) => {
      const f = hub.findSession(ref);
      if (!f.ok) return f.code === 'ambiguousSession' ? { ok: false, code: f.code, message: f.message } : null;
      show(f.id);
      return { ok: true, result: { id: f.id } };
    },
    forSession: (ref, verb, args) => {
      const f = hub.findSession(ref);
      if (!f.ok) return f.code === 'ambiguousSession' ? Promise.resolve({ ok: false, code: f.code, message: f.message }) : null;
      return call(f.link, verb, { ...args, id: f.id });
    },
    onMachine: (machine, verb, args) => {
      const link = hub.link(machine);
      if (!link) {
        const known = hub.list().map((m) => m.name);
        return Promise.resolve({
          ok: false,
          code: 'noSuchMachine',
          message: `no machine '${machine}' (${known.length ? `saved: ${known.join(', ')}` : 'none saved; add one with termio machines add'})`,
        });
      }
      // A parent is a session of this machine: meaningless there.
      const { machine: _m, parent: _p, ...rest } = args;
      return call(link, verb, rest);
    },
  };
}
