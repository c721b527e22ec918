// The history verbs: search this machine's index and every connected machine's (merged, best
// first), resume a conversation in a new tab through its agent's resume plan (exact or nothing),
// the index's progress, and usage with its estimated cost. `--machine NAME` asks only that
// machine's host, which answers from its own index.
import { existsSync, statSync } from 'node:fs';
import type { ControlArgs, Outcome } from '../../../protocol/control';
import type { HistoryResult } from '../../../protocol/controlHistory';
import { PRICE_TABLE, withUserPrices, type ModelPrice } from '../../../protocol/history';
import { manifestResumeFamily } from '../../../protocol/manifestParse';
import { checkConversationId } from '../../../protocol/resumePlan';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { AgentCatalog } from '../../services/catalog';
import type { RemoteSessions } from '../machines/hubControl';
import type { SessionRecord, SessionRegistry } from '../sessions/sessionRegistry';
import type { StateStore } from '../state/stateStore';
import type { IndexedConversation } from './historyIndex';
import { DEFAULT_RESULTS, type HistoryService } from './historyService';

export interface HistoryVerbsDeps {
  /** The history service once the host is up; null when the index could not be opened (the reason). */
  service: () => Promise<HistoryService | string>;
  registry: SessionRegistry;
  catalog: () => Promise<AgentCatalog>;
  store: () => Promise<StateStore>;
  describe: (r: SessionRecord) => SessionInfo;
  prices: () => Promise<Record<string, ModelPrice>>;
  remote: () => RemoteSessions | null;
}

type Ok<T> = { ok: true; result: T };
type SearchAnswer = { results: HistoryResult[]; progress: unknown };

export class HistoryVerbs {
  constructor(private readonly d: HistoryVerbsDeps) {}

  private async withService(act: (s: HistoryService) => Outcome | Promise<Outcome>): Promise<Outcome> {
    const s = await this.d.service();
    if (typeof s === 'string') return { ok: false, code: 'internal', message: `the conversation index is not available: ${s}` };
    return act(s);
  }

  private machine(machine: string, verb: string, args: Record<string, unknown>): Promise<Outcome> {
    const hub = this.d.remote();
    if (!hub) return Promise.resolve({ ok: false, code: 'noSuchMachine', message: `no machine '${machine}': none is saved (termio machines add)` });
    const { machine: _m, ...rest } = args;
    return hub.onMachine(machine, verb, rest);
  }

  async search(args: ControlArgs<'history.search'>): Promise<Outcome> {
    if (args.machine !== undefined) return this.tagged(args.machine, await this.machine(args.machine, 'history.search', args));
    const local = await this.withService((s) => {
      const results = s.search(args);
      if (results === null) return { ok: false, code: 'badRequest', message: `history.search: '${args.query}' holds no word to search for` };
      return { ok: true, result: { results, progress: s.progress() } };
    });
    if (!local.ok) return local;
    const here = (local as Ok<SearchAnswer>).result;
    const machines = this.d.remote()?.connected() ?? [];
    const answers = await Promise.all(machines.map(async (m) => this.tagged(m, await this.machine(m, 'history.search', args))));
    const unreachable = machines.filter((_, i) => !answers[i]!.ok);
    // Each index ranks its own results: merged by taking each machine's next best in turn.
    const lists = [here.results, ...answers.map((o) => (o.ok ? (o as Ok<SearchAnswer>).result.results : []))];
    const results = interleave(lists).slice(0, args.limit ?? DEFAULT_RESULTS);
    return { ok: true, result: { results, progress: here.progress, unreachable: unreachable.length ? unreachable : undefined } };
  }

  /** A machine's answer with its name on every result. */
  private tagged(machine: string, o: Outcome): Outcome {
    if (!o.ok) return o;
    const r = (o as Ok<{ results?: HistoryResult[] }>).result;
    return r.results ? { ok: true, result: { ...r, results: r.results.map((x) => ({ ...x, machine })) } } : o;
  }

  status(args: ControlArgs<'history.status'>): Promise<Outcome> {
    if (args.machine !== undefined) return this.machine(args.machine, 'history.status', args);
    return this.withService((s) => ({ ok: true, result: s.progress() }));
  }

  async usage(args: ControlArgs<'usage'>): Promise<Outcome> {
    if (args.machine !== undefined) return this.machine(args.machine, 'usage', args);
    const user = await this.d.prices();
    const table = withUserPrices(PRICE_TABLE, user);
    const by = args.by ?? 'agent';
    // A session's conversation, as its tab is bound to; one bound to none yet matches nothing.
    const conversation = args.session !== undefined ? ((await this.d.store()).getSession(args.session)?.conversationId ?? '\u0000none') : args.conversation;
    return this.withService((s) => {
      const { rows, total } = s.usage({ by, agent: args.agent, since: args.since, conversation }, table);
      return { ok: true, result: { by, rows, total, prices: { date: table.date, overridden: Object.keys(user) } } };
    });
  }

  async resume(args: ControlArgs<'history.resume'>): Promise<Outcome> {
    if (args.machine !== undefined) return this.machine(args.machine, 'history.resume', args);
    return this.withService(async (s) => {
      const found = pickConversation(s.conversations(args.conversation, args.agent), args.conversation);
      if (!found.ok) return found;
      return this.open(found.conversation);
    });
  }

  /** Opens a tab on the conversation, or brings forward the tab it is already open in. */
  private async open(c: IndexedConversation & { conversation: string }): Promise<Outcome> {
    const catalog = await this.d.catalog();
    const entry = catalog.get(c.agent);
    if (!entry)
      return { ok: false, code: 'spawnFailed', message: `conversation ${c.conversation} is ${c.agent}'s, and no agent with id '${c.agent}' is loaded` };
    const family = manifestResumeFamily(entry.manifest);
    if (family === 'none')
      return { ok: false, code: 'cannotResume', message: `${entry.manifest.name} cannot resume a conversation by id (its manifest has no resume)` };
    const unsafe = checkConversationId(c.conversation);
    if (unsafe !== null) return { ok: false, code: 'cannotResume', message: `conversation id ${JSON.stringify(c.conversation)} cannot be resumed: ${unsafe}` };
    const store = await this.d.store();
    const open = store.state.sessions.find((x) => x.agentId === c.agent && x.conversationId === c.conversation && this.d.registry.get(x.id));
    if (open) {
      const record = this.d.registry.get(open.id)!;
      this.d.registry.requestFocus(open.id);
      return { ok: true, result: { id: open.id, opened: false, session: this.d.describe(record) } };
    }
    if (!c.cwd || !isFolder(c.cwd)) {
      const where = c.cwd ? `its folder ${c.cwd} is gone (moved or deleted)` : 'its transcript does not say which folder it ran in';
      return { ok: false, code: 'folderGone', message: `cannot resume ${entry.manifest.name} conversation ${c.conversation} ("${c.title ?? ''}"): ${where}` };
    }
    const r = await this.d.registry.spawn({ agent: c.agent, cwd: c.cwd, conversation: { id: c.conversation, family } });
    if (!r.ok) return { ok: false, code: r.code, message: r.message };
    this.d.registry.requestFocus(r.record.id);
    return { ok: true, result: { id: r.record.id, opened: true, session: this.d.describe(r.record) } };
  }
}

type Picked =
  { ok: true; conversation: IndexedConversation & { conversation: string } } | { ok: false; code: 'noSuchConversation' | 'badRequest'; message: string };

/** The one conversation an id or prefix names: an exact id wins over prefixes. */
function pickConversation(found: IndexedConversation[], ref: string): Picked {
  const withId = found.filter((c): c is IndexedConversation & { conversation: string } => c.conversation !== null);
  const exact = withId.filter((c) => c.conversation === ref);
  const pool = exact.length > 0 ? exact : withId;
  const ids = [...new Set(pool.map((c) => `${c.agent} ${c.conversation}`))];
  if (ids.length === 0)
    return { ok: false, code: 'noSuchConversation', message: `no conversation '${ref}' in the history index (termio history search finds one)` };
  if (ids.length > 1)
    return {
      ok: false,
      code: 'badRequest',
      message: `'${ref}' names ${ids.length} conversations (${ids.slice(0, 5).join(', ')}): give more of the id, or --agent`,
    };
  return { ok: true, conversation: pool[0]! };
}

function isFolder(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The lists' items taken in turn: the first of each, then the second of each, … */
function interleave<T>(lists: T[][]): T[] {
  const out: T[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]!);
  return out;
}
