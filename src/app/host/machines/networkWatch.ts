// Notices the network coming back (Wi-Fi joined, a VPN up, a cable in, the laptop awake on a new
// network) so the hub retries its unreachable machines at once instead of when the backoff says.
// Cheap by design: this machine's interface addresses (getifaddrs, microseconds) compared every
// few seconds; an address that was not there at the last look is the signal. One that goes away
// is not: ssh's keepalives and the hub's heartbeat notice a link that died. The source and the
// timer are injected, so the trigger is tested without waiting.
import { networkInterfaces } from 'node:os';

/** How often the addresses are compared: a machine is retried within this of the network's return. */
export const NETWORK_POLL_MS = 3_000;

export interface NetworkWatchDeps {
  /** The addresses this machine has now, each a stable string. */
  addresses(): string[];
  /** Runs `fn` every `ms`; returns the stop. */
  every(ms: number, fn: () => void): () => void;
}

/** Every external address, as `interface/family/address` (loopback is no network). */
export function interfaceAddresses(): string[] {
  const out: string[] = [];
  for (const [name, list] of Object.entries(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal) out.push(`${name}/${a.family}/${a.address}`);
  }
  return out;
}

export const systemNetwork: NetworkWatchDeps = {
  addresses: interfaceAddresses,
  every: (ms, fn) => {
    const t = setInterval(fn, ms);
    t.unref();
    return () => clearInterval(t);
  },
};

export class NetworkWatch {
  private last: Set<string> | null = null;
  private stop: (() => void) | null = null;

  constructor(
    private readonly onAppeared: (added: string[]) => void,
    private readonly deps: NetworkWatchDeps = systemNetwork,
  ) {}

  get running(): boolean {
    return this.stop !== null;
  }

  /** Starts comparing (the addresses now are the baseline); a second start does nothing. */
  start(): void {
    if (this.stop) return;
    this.last = new Set(this.deps.addresses());
    this.stop = this.deps.every(NETWORK_POLL_MS, () => this.check());
  }

  /** One comparison: fires with the addresses that appeared since the last one, if any. */
  check(): void {
    const now = new Set(this.deps.addresses());
    const added = [...now].filter((a) => !this.last?.has(a));
    this.last = now;
    if (added.length) this.onAppeared(added);
  }

  dispose(): void {
    this.stop?.();
    this.stop = null;
    this.last = null;
  }
}
