// The hub: this host's connections to the saved machines (one MachineLink each, following
// machines.json live), and the union of their sessions as every client of this host sees them —
// each tagged with its machine, found by id or unique prefix like a local one.
import { Emitter } from '../../../protocol/events';
import type { SessionInfo } from '../../../protocol/sessionInfo';
import type { Machine, MachineInfo } from '../../../protocol/machines';
import { ConnectGate, MachineLink, type LinkDeps } from './machineLink';
import type { MachinesStore } from './machinesStore';
import { LinkViews } from './relay';
import { NetworkWatch, type NetworkWatchDeps } from './networkWatch';
import { AskpassBroker } from './askpass';

/** What the hub is told besides the links' own needs: its own host's id (a saved machine that
 *  reaches this very host is not connected). */
export interface HubDeps extends LinkDeps {
  hostId?: string;
  /** Where the network's return is noticed (tests inject one); default: this machine's interfaces. */
  network?: NetworkWatchDeps;
}

export type HubFind = { ok: true; link: MachineLink; id: string } | { ok: false; code: 'noSuchSession' | 'ambiguousSession'; message: string };

export class MachinesHub {
  private readonly links = new Map<string, MachineLink>();
  private readonly linkViews = new Map<MachineLink, LinkViews>();
  private readonly sessionChanged = new Emitter<SessionInfo>();
  private readonly sessionRemoved = new Emitter<string>();
  private readonly machinesChanged = new Emitter<MachineInfo[]>();
  private readonly bell = new Emitter<string>();
  readonly onSessionChanged = this.sessionChanged.event;
  readonly onSessionRemoved = this.sessionRemoved.event;
  readonly onMachinesChanged = this.machinesChanged.event;
  readonly onBell = this.bell.event;
  private disposed = false;
  /** Which link holds each remote host (by host id): the first to connect it keeps it. */
  private readonly holders = new Map<string, MachineLink>();
  private readonly network: NetworkWatch;
  /** ssh's questions while connecting (passphrases, codes), asked in the app. */
  readonly askpass: AskpassBroker;
  /** Only a few machines connect at once (machineLink.ts, MAX_CONCURRENT_CONNECTS). */
  private readonly gate = new ConnectGate();
  /** Whether this host has a session of that id (set by start). */
  private isLocal: (id: string) => boolean = () => false;

  constructor(
    readonly store: MachinesStore,
    private readonly deps: HubDeps,
  ) {
    this.network = new NetworkWatch((added) => this.networkBack(added), deps.network);
    this.askpass = deps.askpass?.broker ?? new AskpassBroker();
    this.askpass.onNoApp((name) => this.links.get(name)?.needsAnswer());
    this.askpass.onAsk((a) => this.links.get(a.machine)?.asking());
  }

  /** An app attached: a machine that waited for one to ask its passphrase tries again now. */
  appArrived(): void {
    for (const l of this.links.values()) if (l.waitsForApp) l.retryNow({ fresh: true });
  }

  /** This host's own id (said in its hello too). */
  get hostId(): string | undefined {
    return this.deps.hostId;
  }

  /** Connects the saved machines and follows machines.json; `isLocal` says which ids this host's
   *  own sessions have (a machine's session under one of them is dropped). */
  start(isLocal: (id: string) => boolean = () => false): void {
    this.isLocal = isLocal;
    this.apply(this.store.machines);
    this.store.onChange((load) => this.apply(load.machines));
    this.store.watch();
  }

  get size(): number {
    return this.links.size;
  }

  /** Follows the saved list: new machines connect, removed ones disconnect (their sessions keep
   *  running there), changed ones reconnect with their new settings. */
  private apply(machines: Machine[]): void {
    if (this.disposed) return;
    const wanted = new Map(machines.map((m) => [m.name, m]));
    for (const [name, link] of [...this.links]) {
      const next = wanted.get(name);
      if (next && JSON.stringify(next) === JSON.stringify(link.machine)) continue;
      this.drop(link);
    }
    for (const m of machines) if (!this.links.has(m.name)) this.open(m);
    // The network is watched while there is a machine to reach.
    if (this.links.size) this.network.start();
    else this.network.dispose();
    this.machinesChanged.fire(this.list());
  }

  /** An address appeared (a network joined, a VPN up): every machine that could not be reached
   *  is tried now, from the shortest backoff, rather than when its timer says. */
  private networkBack(added: string[]): void {
    const waiting = [...this.links.values()].filter((l) => l.state === 'unreachable' || l.state === 'reconnecting');
    if (!waiting.length) return;
    this.deps.logger.info('network changed: retrying machines now', { added, machines: waiting.map((l) => l.name) });
    for (const l of waiting) l.retryNow({ fresh: true });
  }

  private open(m: Machine): void {
    const link = new MachineLink(m, { ...this.deps, gate: this.gate, claim: (l, id) => this.claim(l, id), isLocal: (id) => this.isLocal(id) });
    this.links.set(m.name, link);
    this.linkViews.set(link, new LinkViews(link));
    link.onSessionChanged((s) => this.sessionChanged.fire(s));
    link.onSessionRemoved((id) => this.sessionRemoved.fire(id));
    link.onBell((id) => this.bell.fire(id));
    link.onStateChanged(() => this.machinesChanged.fire(this.list()));
    link.start();
  }

  /** Whether `link` may connect the host `hostId`: not when it is the hub's own, nor when another
   *  saved machine holds it (until that one is removed or reaches another host). */
  private claim(link: MachineLink, hostId: string): { sameAs: string | null } | null {
    if (hostId === this.deps.hostId) return { sameAs: null };
    const holder = this.holders.get(hostId);
    if (holder && holder !== link && this.links.get(holder.name) === holder) return { sameAs: holder.name };
    for (const [id, l] of this.holders) if (l === link) this.holders.delete(id);
    this.holders.set(hostId, link);
    return null;
  }

  private drop(link: MachineLink): void {
    let held = false;
    for (const [id, l] of this.holders) {
      if (l !== link) continue;
      this.holders.delete(id);
      held = true;
    }
    // The host it held is free: a machine that reaches it too may now connect it.
    if (held) for (const l of this.links.values()) if (l !== link && l.state === 'sameMachine') queueMicrotask(() => l.retryNow());
    this.links.delete(link.name);
    this.linkViews.delete(link);
    const ids = [...link.sessions.keys()];
    link.dispose();
    this.askpass.forget(link.name);
    for (const id of ids) this.sessionRemoved.fire(id);
  }

  link(name: string): MachineLink | undefined {
    return this.links.get(name);
  }

  viewsOf(link: MachineLink): LinkViews {
    return this.linkViews.get(link)!;
  }

  list(): MachineInfo[] {
    return [...this.links.values()].map((l) => l.info());
  }

  sessions(): SessionInfo[] {
    return [...this.links.values()].flatMap((l) => [...l.sessions.values()]);
  }

  session(id: string): SessionInfo | undefined {
    for (const l of this.links.values()) {
      const s = l.sessions.get(id);
      if (s) return s;
    }
    return undefined;
  }

  /** A remote session by id or unique prefix, as the registry finds a local one. */
  findSession(ref: string): HubFind {
    const hits: Array<{ link: MachineLink; id: string }> = [];
    for (const link of this.links.values()) {
      for (const id of link.sessions.keys()) {
        if (id === ref) return { ok: true, link, id };
        if (id.startsWith(ref)) hits.push({ link, id });
      }
    }
    if (hits.length === 1) return { ok: true, ...hits[0]! };
    if (hits.length > 1)
      return { ok: false, code: 'ambiguousSession', message: `'${ref}' matches ${hits.length} sessions on other machines; give more of the id` };
    return { ok: false, code: 'noSuchSession', message: `no session '${ref}'` };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.network.dispose();
    this.askpass.dispose();
    for (const link of [...this.links.values()]) link.dispose();
    this.links.clear();
    this.linkViews.clear();
    for (const e of [this.sessionChanged, this.sessionRemoved, this.machinesChanged, this.bell]) (e as Emitter<unknown>).dispose();
  }
}
