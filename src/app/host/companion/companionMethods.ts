// The `companion.*` requests of the host's client socket (the termio CLI, the app's Settings →
// Phone): each changes the settings the companion follows, waits until the server matches them,
// and answers the companion's status. Also the adapter from the SettingsStore to the narrow
// settings view the companion takes.
import type { CompanionResults } from '../../../protocol/companion';
import type { HostParams } from '../../../protocol/hostMessages';
import type { SettingsStore } from '../../shared/settings';
import type { Companion, CompanionDeps, CompanionSettings } from './companion';

type Ok<M extends keyof CompanionResults> = { ok: true; result: CompanionResults[M] };

/** One handler per companion method, in the shape clientConnection.ts's method table takes. */
export function companionMethods(companion: () => Companion | null): {
  [M in keyof CompanionResults]: (id: number, params: HostParams<M>) => Promise<Ok<M> | { ok: false; error: { code: 'busy'; message: string } }>;
} {
  const answer = async <M extends keyof CompanionResults>(change?: (c: Companion) => void): Promise<Ok<M> | { ok: false; error: { code: 'busy'; message: string } }> => {
    const c = companion();
    if (!c) return { ok: false, error: { code: 'busy', message: 'this host runs no web companion' } };
    change?.(c);
    await c.apply();
    return { ok: true, result: c.status() };
  };
  return {
    'companion.status': () => answer(),
    'companion.enable': (_id, p) => answer((c) => c.settings.set({ enabled: true, ...(p.network ? { network: p.network } : {}), ...(p.port ? { port: p.port } : {}) })),
    'companion.disable': () => answer((c) => c.settings.set({ enabled: false })),
    'companion.revoke': () => answer((c) => c.revoke()),
  };
}

/** The companion's view of a SettingsStore: its `companion` section, changed key by key so the
 *  rest of the user's file is kept as written. */
export function companionSettingsFrom(store: SettingsStore): CompanionDeps['settings'] {
  return {
    get: () => store.settings.companion,
    set: (patch: Partial<CompanionSettings>) => {
      for (const [key, value] of Object.entries(patch)) {
        if (value !== undefined && store.settings.companion[key as keyof CompanionSettings] !== value) store.set(['companion', key], value);
      }
    },
    onChange: store.onChange,
  };
}
