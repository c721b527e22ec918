// File I/O around the protocol's hook transforms: reads an agent's config, applies
// install/uninstall, re-parses TOML results with smol-toml, keeps a backup before our first edit
// of a file, and writes atomically (through symlinks, keeping the file's mode). Everything a
// user's file can cause is a result value naming the file; nothing here throws for it.
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { editHookConfig, hookConfigPath, inspectHookConfig, type HookOp, type ReporterLocation } from '../../protocol/hooks';
import { expandHome } from '../../protocol/homePath';
import { shellQuote } from './shellQuote';
import { writeFileAtomic } from './atomicWrite';
import type { TermioPaths } from './paths';
import { installRoot } from './install';
import { withCodexTrustGate } from './codexTrust';
import { applyScriptHooks, scriptHookStatus } from './scriptHookFolder';
import { readTextIfExists } from './textFile';
import type { AgentHookResult, AgentHookState, AgentHooks } from './hookResult';

export type { AgentHookResult, AgentHookState, AgentHooks } from './hookResult';

// smol-toml ships CommonJS beside its ES module, but its types are declared as ESM only.
const { parse: parseToml } = require('smol-toml') as { parse: (text: string) => unknown };

export interface HookInstallerOptions {
  paths: TermioPaths;
  /** HOME for `~/` in manifest paths (tests point it at a temporary folder). */
  home: string;
  reporter: ReporterLocation;
}

/** The Node reporter shipped with this build: bin/termio-hook, run by this Node. */
export function nodeReporterLocation(root = installRoot): ReporterLocation {
  return { reporterPath: join(root, 'bin', 'termio-hook'), nodePath: process.execPath };
}

/** Where scripts/setup.mjs compiles the native reporter (native/termio-hook/termio-hook.c). */
export function nativeReporterPath(root = installRoot): string {
  return join(root, 'native', 'termio-hook', 'build', 'termio-hook');
}

/** The reporter this build runs: the native one when it was built (milliseconds per hook call),
 *  else the Node one (Node's start-up, ~90 ms per call). Both send the same frame. Hook entries
 *  never name it: they run the launcher (ensureLauncher), which execs it. */
export function defaultReporterLocation(root = installRoot): ReporterLocation {
  const native = nativeReporterPath(root);
  try {
    accessSync(native, constants.X_OK);
    return { reporterPath: native };
  } catch {
    return nodeReporterLocation(root);
  }
}

/** $TERMIO_HOME/bin/termio-hook: the stable path every installed hook entry runs. */
export function launcherPath(paths: TermioPaths): string {
  return join(paths.home, 'bin', 'termio-hook');
}

/**
 * The launcher's text: exec the given reporter, or exit 0 at once when it is gone (a checkout
 * moved or deleted) or when not inside Termio, so an agent's hook never fails. `exec` keeps the
 * launcher out of the reporter's ancestors, which the host reads.
 */
export function launcherScript(target: ReporterLocation): string {
  const argv = [...(target.nodePath ? [target.nodePath] : []), target.reporterPath];
  return [
    '#!/bin/sh',
    "# Written by Termio at start and by `termio hooks install`; agents' hook entries run this file,",
    "# so moving or updating Termio rewrites this one line instead of breaking every agent's hooks.",
    '[ -n "$TERMIO_SESSION" ] || exit 0',
    ...argv.map((p) => `[ -x ${shellQuote(p)} ] || exit 0`),
    `exec ${argv.map(shellQuote).join(' ')} "$@"`,
    '',
  ].join('\n');
}

/** Writes the launcher for this build's reporter when it differs from what is there; the hook entries' reporter location. */
export function ensureLauncher(paths: TermioPaths, target: ReporterLocation = defaultReporterLocation()): ReporterLocation {
  const file = launcherPath(paths);
  const text = launcherScript(target);
  if (readTextIfExists(file) !== text) writeFileAtomic(file, text, { mode: 0o755, forceMode: true });
  return { reporterPath: file };
}

/** A copy of `file` as it was before Termio first edited it, under $TERMIO_HOME/backups/<kind>/<agent>/ (kept once made). */
export function backupOnce(paths: TermioPaths, kind: 'hooks' | 'mcp', agentId: string, file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const dir = join(paths.home, 'backups', kind, agentId);
  const backup = join(dir, `${basename(file)}.orig`);
  if (existsSync(backup)) return backup;
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, backup);
  return backup;
}

/** Why a TOML config's text does not parse, or null (no file parses). */
export function tomlError(text: string | null): string | null {
  if (text === null) return null;
  try {
    parseToml(text);
    return null;
  } catch (e) {
    return `not valid TOML: ${(e as Error).message.split('\n')[0]}`;
  }
}

function status(agent: AgentHooks, file: string, text: string | null, reporter?: ReporterLocation): Omit<AgentHookResult, 'action'> {
  const declared = agent.hooks.events.map((e) => e.on);
  const base = { agentId: agent.agentId, file };
  if (agent.hooks.type === 'toml') {
    const err = tomlError(text);
    if (err) return { ...base, state: 'unparsable', events: [], missing: declared, error: `${file}: ${err}` };
  }
  const r = inspectHookConfig(text, agent.hooks);
  if (!r.ok) return { ...base, state: 'unparsable', events: [], missing: declared, error: `${file}: ${r.error}` };
  const missing = declared.filter((e) => !r.events.includes(e));
  let state: AgentHookState = r.events.length === 0 ? 'absent' : missing.length ? 'partial' : 'installed';
  if (state === 'installed' && reporter) {
    // Installed, yet installing now would change the file: the entries run another reporter.
    const again = editHookConfig('install', text, { agentId: agent.agentId, hooks: agent.hooks, reporter });
    if (again.ok && again.changed) state = 'stale';
  }
  return { ...base, state, events: r.events, missing };
}

export function hookConfigFile(agent: AgentHooks, home: string): string | null {
  const p = hookConfigPath(agent.hooks);
  // `~` expanded; a relative path is taken from the home folder.
  return p === null ? null : resolve(home, expandHome(p, home));
}

export function agentHookStatus(agent: AgentHooks, opts: HookInstallerOptions): AgentHookResult {
  const file = hookConfigFile(agent, opts.home);
  if (!file)
    return {
      agentId: agent.agentId,
      file: '',
      state: 'error',
      action: 'none',
      events: [],
      missing: [],
      error: 'the manifest gives neither hooks.file nor hooks.dir',
    };
  try {
    if (agent.hooks.type === 'scripts') return { ...scriptHookStatus(agent, file), action: 'none' };
    return withCodexTrustGate({ ...status(agent, file, readTextIfExists(file), opts.reporter), action: 'none' }, agent.hooks, 'check');
  } catch (e) {
    return { agentId: agent.agentId, file, state: 'error', action: 'none', events: [], missing: [], error: `${file}: ${(e as Error).message}` };
  }
}

function apply(op: HookOp, agent: AgentHooks, opts: HookInstallerOptions): AgentHookResult {
  const file = hookConfigFile(agent, opts.home);
  const fail = (state: AgentHookState, error: string, f = file ?? ''): AgentHookResult => ({
    agentId: agent.agentId,
    file: f,
    state,
    action: 'none',
    events: [],
    missing: agent.hooks.events.map((e) => e.on),
    error,
  });
  if (!file) return fail('error', 'the manifest gives neither hooks.file nor hooks.dir');
  try {
    if (agent.hooks.type === 'scripts') return applyScriptHooks(op, agent, file, opts.reporter);
    const before = readTextIfExists(file);
    if (agent.hooks.type === 'toml') {
      const err = tomlError(before);
      if (err) return fail('unparsable', `${file}: ${err}; left untouched`);
    }
    const edit = editHookConfig(op, before, { agentId: agent.agentId, hooks: agent.hooks, reporter: opts.reporter });
    if (!edit.ok) return { ...status(agent, file, before), state: 'unparsable', action: 'none', error: `${file}: ${edit.error}; left untouched` };
    if (agent.hooks.type === 'toml' && edit.text !== null) {
      const err = tomlError(edit.text);
      if (err) return fail('error', `${file}: our block would make it invalid (${err}); left untouched`);
    }
    const note = edit.note ? { note: edit.note } : {};
    if (!edit.changed) return { ...status(agent, file, before), action: 'unchanged', ...note };
    const backup = backupOnce(opts.paths, 'hooks', agent.agentId, file);
    if (edit.text === null) unlinkSync(file);
    else writeFileAtomic(file, edit.text);
    return {
      ...status(agent, file, edit.text),
      action: edit.text === null ? 'removed' : 'written',
      ...note,
      ...(backup ? { backup } : {}),
    };
  } catch (e) {
    return fail('error', `${file}: ${(e as Error).message}`);
  }
}

export function installAgentHooks(agent: AgentHooks, opts: HookInstallerOptions): AgentHookResult {
  return withCodexTrustGate(apply('install', agent, opts), agent.hooks, 'sync');
}

export function uninstallAgentHooks(agent: AgentHooks, opts: HookInstallerOptions): AgentHookResult {
  return withCodexTrustGate(apply('uninstall', agent, opts), agent.hooks, 'sync');
}

/** The status, and stale entries rewritten to run this Termio's launcher (`termio hooks status`). */
export function checkAndRepairAgentHooks(agent: AgentHooks, opts: HookInstallerOptions): AgentHookResult {
  const now = agentHookStatus(agent, opts);
  if (now.state !== 'stale') return now;
  const fixed = installAgentHooks(agent, opts);
  return fixed.action === 'written' ? { ...fixed, action: 'repaired' } : fixed;
}
