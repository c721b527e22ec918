// One entry point for the host: given a manifest's `hooks` block and the current text of the
// agent's config file, the new text after installing or uninstalling our entries (null = delete
// the file), or an error value. Picks the JSON, TOML or plugin transform by `hooks.type`.
import { JSON_DIALECTS, KIMI_EVENTS, PLUGIN_DIALECTS, type HooksDeclaration } from './dialects';
import { reporterCommand, type ReporterLocation } from './hookCommand';
import { installJsonHooks, listJsonHooks, uninstallJsonHooks, type WantedEntry } from './jsonHooks';
import { installTomlHooks, tomlHooksBlock, uninstallTomlHooks } from './tomlHooks';
import { installPlugin, isOurPlugin, renderOpencodePlugin, uninstallPlugin } from './opencodePlugin';

export type HookOp = 'install' | 'uninstall';

export interface HookEditRequest {
  agentId: string;
  hooks: HooksDeclaration;
  reporter: ReporterLocation;
}

export type HookConfigEdit = { ok: true; /** null: delete the file */ text: string | null; changed: boolean; note?: string } | { ok: false; error: string };

/** Events that fire when the agent starts, so silence after launch means hooks are not reporting. */
const START_EVENTS = new Set(['SessionStart', 'sessionStart', 'session.created']);

export function hooksReportAtStart(hooks: Pick<HooksDeclaration, 'events'>): boolean {
  return hooks.events.some((e) => START_EVENTS.has(e.on));
}

/** Events that fire on every prompt the user submits, so a turn of work always brings a hook. */
const PROMPT_EVENTS = new Set(['UserPromptSubmit', 'userPromptSubmitted', 'beforeSubmitPrompt', 'BeforeAgent']);

export function hooksReportOnPrompt(hooks: Pick<HooksDeclaration, 'events'>): boolean {
  return hooks.events.some((e) => PROMPT_EVENTS.has(e.on));
}

/** The config file, as the manifest spells it (may start with ~/): `file`, or our file in `dir`. */
export function hookConfigPath(hooks: HooksDeclaration): string | null {
  if (hooks.file) return hooks.file;
  if (hooks.dir && hooks.type === 'scripts') return hooks.dir;
  // OpenCode 2 may share OpenCode's plugin folder: its plugin has a name of its own.
  const name = hooks.type === 'plugin' && hooks.dialect !== 'opencode' ? `termio-${hooks.dialect}` : 'termio';
  if (hooks.dir) return `${hooks.dir.replace(/\/+$/, '')}/${name}.${hooks.type === 'plugin' ? 'js' : 'json'}`;
  return null;
}

/** A file only we write (our own name in a hooks folder): uninstall deletes it when empty. */
export function ownsHookConfig(hooks: HooksDeclaration): boolean {
  const path = hookConfigPath(hooks);
  return hooks.dir !== undefined || (path !== null && /(^|\/)termio[^/]*$/.test(path));
}

function wantedEntries(req: HookEditRequest, guard: boolean): WantedEntry[] {
  return req.hooks.events.map((rule) => ({
    rule,
    command: reporterCommand(req.reporter, { agentId: req.agentId, state: rule.state, event: rule.on }, { guard }),
  }));
}

export function editHookConfig(op: HookOp, existing: string | null, req: HookEditRequest): HookConfigEdit {
  const { hooks } = req;
  if (hooks.type === 'scripts') return { ok: false, error: 'a "scripts" hook folder holds one file per event, not one config file' };
  if (hooks.type === 'plugin') {
    if (!(PLUGIN_DIALECTS as readonly string[]).includes(hooks.dialect))
      return { ok: false, error: `no plugin dialect '${hooks.dialect}' (known: ${PLUGIN_DIALECTS.join(', ')})` };
    return op === 'install' ? installPlugin(existing, renderOpencodePlugin(req.reporter, hooks.events, req.agentId)) : uninstallPlugin(existing);
  }
  if (hooks.type === 'toml') {
    // TOML configs run hooks through a shell; Kimi Code's entries are flat, Codex's nested.
    const shape = hooks.dialect === 'kimi' ? 'kimi' : 'codex';
    const unknown = shape === 'kimi' ? hooks.events.find((e) => !(KIMI_EVENTS as readonly string[]).includes(e.on)) : undefined;
    // Kimi Code refuses its whole config on an event it does not know: never write one.
    if (unknown) return { ok: false, error: `Kimi Code has no hook event '${unknown.on}' (known: ${KIMI_EVENTS.join(', ')})` };
    return op === 'install' ? installTomlHooks(existing, wantedEntries(req, true), shape) : uninstallTomlHooks(existing);
  }
  const dialect = JSON_DIALECTS[hooks.dialect];
  if (!dialect) return { ok: false, error: `unknown hooks dialect '${hooks.dialect}' (known: ${Object.keys(JSON_DIALECTS).join(', ')})` };
  const r = op === 'install' ? installJsonHooks(existing, dialect, wantedEntries(req, dialect.shell)) : uninstallJsonHooks(existing, dialect);
  if (!r.ok) return r;
  const remove = op === 'uninstall' && r.empty && ownsHookConfig(hooks) && existing !== null;
  return { ok: true, text: remove ? null : r.text, changed: r.changed || remove, ...(dialect.note ? { note: dialect.note } : {}) };
}

/** Whether our entries are in the config text, and which events they cover. */
export function inspectHookConfig(existing: string | null, hooks: HooksDeclaration): { ok: true; events: string[] } | { ok: false; error: string } {
  if (hooks.type === 'scripts') return { ok: false, error: 'a "scripts" hook folder holds one file per event, not one config file' };
  if (hooks.type === 'plugin') return { ok: true, events: isOurPlugin(existing) ? hooks.events.map((e) => e.on) : [] };
  if (hooks.type === 'toml') {
    const block = tomlHooksBlock(existing);
    const marker = (on: string) => (hooks.dialect === 'kimi' ? `event = ${JSON.stringify(on)}` : `[[hooks.${JSON.stringify(on)}]]`);
    return { ok: true, events: block ? hooks.events.filter((e) => block.includes(marker(e.on))).map((e) => e.on) : [] };
  }
  const dialect = JSON_DIALECTS[hooks.dialect];
  if (!dialect) return { ok: false, error: `unknown hooks dialect '${hooks.dialect}'` };
  const r = listJsonHooks(existing, dialect);
  return r.ok ? { ok: true, events: [...new Set(r.entries.map((e) => e.event))] } : r;
}
