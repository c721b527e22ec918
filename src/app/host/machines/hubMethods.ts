// The client protocol's requests about machines, on the hub: `machines.list|add|remove|retry`
// (the CLI, Settings → Machines), and ssh's questions: `machines.ask` (the askpass helper) and
// `machines.answerAsk` (the app). A machine entry is a command line the host runs outside every
// session (ssh with its target and options, on every retry and start), so adding or removing one
// from inside a session takes the same check as starting an agent with permission bypass.
import type { HostError, HostParams, HostResults } from '../../../protocol/hostMessages';
import type { Asker, Refusal } from '../status/bypassPolicy';
import type { MachinesHub } from './hub';
import { MachinesEditRefused } from './machinesStore';

/** The bypass policy's check for a change the host will run outside the asking session. */
export type ChangeGuard = (who: Asker, change: string, door: string) => Refusal | null;

type Reply<M extends 'machines.list' | 'machines.add' | 'machines.remove' | 'machines.retry' | 'machines.ask' | 'machines.answerAsk'> =
  { ok: true; result: HostResults[M] } | { ok: false; error: HostError };

export function machineMethods(
  hub: () => MachinesHub | null,
  from: { readonly asker: Asker },
  guard: ChangeGuard,
): {
  'machines.list': (id: number, p: HostParams<'machines.list'>) => Reply<'machines.list'>;
  'machines.add': (id: number, p: HostParams<'machines.add'>) => Reply<'machines.add'>;
  'machines.remove': (id: number, p: HostParams<'machines.remove'>) => Reply<'machines.remove'>;
  'machines.retry': (id: number, p: HostParams<'machines.retry'>) => Reply<'machines.retry'>;
  'machines.ask': (id: number, p: HostParams<'machines.ask'>) => Promise<Reply<'machines.ask'>>;
  'machines.answerAsk': (id: number, p: HostParams<'machines.answerAsk'>) => Reply<'machines.answerAsk'>;
} {
  const refusal = (o: Refusal): { ok: false; error: HostError } => ({ ok: false, error: { code: o.code, message: o.message } });
  const none = { ok: false, error: { code: 'unknownMethod', message: 'this host keeps no machines' } } as const;
  return {
    'machines.list': () => {
      const h = hub();
      return h ? { ok: true, result: { machines: h.list(), errors: h.store.errors } } : none;
    },
    'machines.add': (_id, p) => {
      const h = hub();
      if (!h) return none;
      const refused = guard(from.asker, `add machine '${p.name}' (the host would run ssh to it, with its options, outside the session)`, 'host: machines.add');
      return refused ? refusal(refused) : addMachine(h, p);
    },
    'machines.remove': (_id, p) => {
      const h = hub();
      if (!h) return none;
      const refused = guard(from.asker, `remove machine '${p.name}'`, 'host: machines.remove');
      if (refused) return refusal(refused);
      if (!h.store.remove(p.name)) return { ok: false, error: { code: 'noSuchMachine', message: `no machine '${p.name}' in ${h.store.label}` } };
      return { ok: true, result: {} };
    },
    'machines.retry': (_id, p) => {
      const link = hub()?.link(p.name);
      if (!link) return { ok: false, error: { code: 'noSuchMachine', message: `no machine '${p.name}' is saved` } };
      link.retryNow();
      return { ok: true, result: {} };
    },
    'machines.ask': async (_id, p) => {
      const h = hub();
      return h ? h.askpass.ask(p.token, p.prompt) : none;
    },
    'machines.answerAsk': (_id, p) => {
      const h = hub();
      return h ? { ok: true, result: { answered: h.askpass.answer(p.id, p.answer) } } : none;
    },
  };
}

/** Saves a machine (a corrupt file set aside first, said in `notice`) and answers what it now is. */
function addMachine(h: MachinesHub, p: HostParams<'machines.add'>): Reply<'machines.add'> {
  let notice: string | null;
  try {
    ({ notice } = h.store.put(p));
  } catch (err) {
    if (err instanceof MachinesEditRefused) return { ok: false, error: { code: 'badParams', message: err.message } };
    throw err;
  }
  const info = h.link(p.name)?.info();
  if (!info)
    return {
      ok: false,
      error: { code: 'badParams', message: `machine ${p.name} was written to ${h.store.label} but could not be read back: ${h.store.errors.join('; ')}` },
    };
  return { ok: true, result: { machine: info, notice: notice || undefined } };
}
