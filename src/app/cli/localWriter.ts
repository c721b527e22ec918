// The CLI's one door to the state the session host owns: settings.json and the agents' hook,
// skill and MCP configs. Each change is asked of the host (settings.set, hooks.apply), which alone
// writes them. Only when no host is there does the CLI write the files itself, with the host's
// own modules; nothing else can be writing them then. Settings start a host first (a change is
// then applied live), so they are written here only when none can start; hook configs use a
// running host and are otherwise written here without starting one, so that `termio hooks
// install` in a set-up script leaves no host behind. The layer check lets the CLI load the
// writing modules through this file and no other (scripts/check-layers.mjs).
import type { ControlArgs, ControlErrorCode, ControlResult } from '../../protocol/control';
import { ControlClient } from '../client/controlClient';
import { applyAgentConfigs, hookAgentsOf } from '../services/agentConfigs';
import { AgentCatalog } from '../services/catalog';
import { termioPaths } from '../services/paths';
import { SettingsEditRefused, SettingsStore } from '../services/settings';
import type { CliIo } from './cliIo';

/** What the host answered, or what the CLI did itself (`local`), or why neither could. */
export type Asked<V extends 'hooks.apply' | 'settings.set'> =
  { ok: true; result: ControlResult<V>; local: boolean } | { ok: false; code: ControlErrorCode | 'hostNotRunning'; message: string };

/** A hook change or check can touch a dozen agents' files: more than a plain request's 10 s. */
const HOOKS_TIMEOUT_MS = 60_000;

async function ask<V extends 'hooks.apply' | 'settings.set'>(client: ControlClient, verb: V, args: ControlArgs<V>): Promise<Asked<V>> {
  try {
    const r = await client.request(verb, args, HOOKS_TIMEOUT_MS);
    return r.ok ? { ok: true, result: r.result, local: false } : { ok: false, code: r.error.code, message: r.error.message };
  } finally {
    client.close();
  }
}

/** `termio hooks install|uninstall|status`, `termio mcp status`: through a running host, else here. */
export async function applyHooks(io: CliIo, args: ControlArgs<'hooks.apply'>): Promise<Asked<'hooks.apply'>> {
  const client = await ControlClient.connect(io.env);
  if (client instanceof ControlClient) return ask(client, 'hooks.apply', args);
  // The same catalog the host loads (bundled + user, user overriding by id); no PATH look-up,
  // since installing hooks does not need the agent to be installed yet.
  const catalog = await AgentCatalog.create({ env: io.env, watch: false, path: '' });
  const agents = hookAgentsOf(catalog.list(), args.agent);
  const skipped = catalog.problems().map((p) => `skipped manifest: ${p.errors.join('; ')}`);
  await catalog.dispose();
  if ('error' in agents) return { ok: false, code: 'noSuchAgent', message: agents.error };
  const home = io.env.HOME ?? '';
  if (!home) return { ok: false, code: 'badRequest', message: "HOME is not set; cannot find the agents' config files" };
  try {
    const r = applyAgentConfigs(args.op, agents, { paths: termioPaths(io.env), home, env: io.env, mcpOnly: args.mcpOnly ? true : undefined });
    return { ok: true, result: { ...r, skipped }, local: true };
  } catch (e) {
    return { ok: false, code: 'internal', message: `cannot write the hook launcher: ${(e as Error).message}` };
  }
}

/** `termio settings set`: through the host (started if none runs), else here. */
export async function changeSetting(io: CliIo, args: ControlArgs<'settings.set'>): Promise<Asked<'settings.set'>> {
  const client = await ControlClient.connectOrStart(io.env);
  if (client instanceof ControlClient) return ask(client, 'settings.set', args);
  const store = new SettingsStore(termioPaths(io.env).settingsFile, io.env.HOME);
  try {
    return { ok: true, result: { file: store.file, notice: store.set(args.path, args.value).notice }, local: true };
  } catch (e) {
    if (e instanceof SettingsEditRefused) return { ok: false, code: 'badSetting', message: e.message };
    throw e;
  } finally {
    store.dispose();
  }
}
