// The `companion.*` requests of the host socket (the termio CLI, the app's Settings →
// Phone): each changes the settings the companion follows, waits until the server matches them,
// and answers the companion's status. Also the adapter from the SettingsStore to the narrow
// settings view the companion takes.
import type { CompanionResults } from '../../../protocol/companion';
import type { HostParams } from '../../../protocol/hostMessages';
import { SettingsEditRefused, type SettingsStore } from '../../services/settings';
import type { Asker } from '../status/bypassPolicy';
import type { Logger } from '../../services/log';
import type { Companion, CompanionDeps, CompanionSettings } from './companion';

type Ok<M extends keyof CompanionResults> = { ok: true; result: CompanionResults[M] };

type Refusal = { ok: false; error: { code: 'busy' | 'forbidden' | 'badSettings' | 'noSuchDevice'; message: string } };

/** Where the user can do what a session may not. */
const AS_THE_USER = 'from the Termio app (Settings → Phone) or a terminal outside Termio';

/**
 * One handler per companion method, in the shape server/connection.ts's method table takes. A
 * client inside a Termio session (an agent in a tab, or what it runs) may not put the companion
 * on the network nor read the pairing link (it carries the token): that needs the user, as
 * permission bypass does. Its answers carry no link.
 */
export function companionMethods(
  companion: () => Companion | null,
  from: { readonly asker: Asker },
  logger: Pick<Logger, 'warn'>,
): {
  [M in keyof CompanionResults]: (id: number, params: HostParams<M>) => Promise<Ok<M> | Refusal>;
} {
  const inside = () => from.asker.secret !== undefined || from.asker.session !== undefined;
  type StatusMethod = 'companion.status' | 'companion.enable' | 'companion.disable' | 'companion.revoke';
  const answer = async <M extends StatusMethod>(change?: (c: Companion) => string[] | void): Promise<Ok<M> | Refusal> => {
    const c = companion();
    if (!c) return { ok: false, error: { code: 'busy', message: 'this host runs no web companion' } };
    let notices: string[] = [];
    try {
      notices = change?.(c) ?? [];
    } catch (err) {
      if (err instanceof SettingsEditRefused) return { ok: false, error: { code: 'badSettings', message: err.message } };
      throw err;
    }
    await c.apply();
    const status = { ...c.status(), ...(notices.length ? { notices } : {}) };
    return { ok: true, result: inside() && status.url !== null ? { ...status, url: null, urlWithheld: true } : status };
  };
  const enable = (p: HostParams<'companion.enable'>): Promise<Ok<'companion.enable'> | Refusal> => {
    const c = companion();
    const network = p.network ?? c?.settings.get().network;
    if (inside() && network === 'lan') {
      logger.warn('companion: LAN enable refused (asked from inside a session)', { session: from.asker.session ?? 'unknown' });
      return Promise.resolve({
        ok: false,
        error: { code: 'forbidden', message: `a program inside a Termio session cannot put the companion on the network; do it ${AS_THE_USER}` },
      });
    }
    return answer((x) => x.settings.set({ enabled: true, network: p.network || undefined, port: p.port || undefined }));
  };
  return {
    ...deviceMethods(companion),
    'companion.status': () => answer(),
    'companion.enable': (_id, p) => enable(p),
    'companion.disable': () => answer((c) => c.settings.set({ enabled: false })),
    'companion.revoke': () => answer((c) => c.revoke()),
  };
}

/** The devices registered for Web Push: listed, and one removed (its phone is told nothing;
 *  pushes to it stop). A subscriptions file that does not check out is refused as badSettings. */
function deviceMethods(companion: () => Companion | null): {
  'companion.devices': () => Promise<Ok<'companion.devices'> | Refusal>;
  'companion.removeDevice': (id: number, p: HostParams<'companion.removeDevice'>) => Promise<Ok<'companion.removeDevice'> | Refusal>;
} {
  const list = (): Ok<'companion.devices'> | Refusal => {
    const push = companion()?.push;
    if (!push) return { ok: false, error: { code: 'busy', message: 'this host runs no web companion' } };
    const l = push.list();
    return l.ok ? { ok: true, result: { devices: l.value } } : { ok: false, error: { code: 'badSettings', message: l.message } };
  };
  return {
    'companion.devices': () => Promise.resolve(list()),
    'companion.removeDevice': (_id, p) => {
      const r = companion()?.push?.remove(p.id);
      if (r && !r.ok) return Promise.resolve({ ok: false, error: { code: 'badSettings', message: r.message } });
      if (r && !r.value) return Promise.resolve({ ok: false, error: { code: 'noSuchDevice', message: `no device ${p.id} is registered` } });
      const after = list();
      return Promise.resolve(after.ok ? { ok: true, result: { removed: p.id, devices: after.result.devices } } : after);
    },
  };
}

/** The companion's view of a SettingsStore: its `companion` section, changed key by key so the
 *  rest of the user's file is kept as written. */
export function companionSettingsFrom(store: SettingsStore): CompanionDeps['settings'] {
  return {
    get: () => store.settings.companion,
    set: (patch: Partial<CompanionSettings>) => {
      const notices: string[] = [];
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined || store.settings.companion[key as keyof CompanionSettings] === value) continue;
        const { notice } = store.set(['companion', key], value);
        if (notice) notices.push(notice);
      }
      return notices;
    },
    onChange: store.onChange,
  };
}
