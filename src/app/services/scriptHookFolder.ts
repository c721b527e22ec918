// Install, inspect and remove "scripts" hooks: one executable per declared event in the agent's
// hooks folder, named after the event. A file is written or removed only when it is ours (our
// marker line); a user's own script of that name is left alone and reported. Uninstall removes
// exactly our scripts, and the folder too when we created it and it is left empty, so the folder
// ends as it was before install.
import { existsSync, mkdirSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOurScript, isScriptEventName, renderHookScript, type HookOp, type ReporterLocation } from '../../protocol/hooks';
import type { AgentHookResult, AgentHooks } from './hookResult';
import { writeFileAtomic } from './atomicWrite';
import { readTextIfExists } from './textFile';

/** Our mark that we created the hooks folder: uninstall removes the folder only then. */
const CREATED_MARK = '.termio-created';

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Which declared events have our script in the folder, and which do not. */
export function scriptHookStatus(agent: AgentHooks, dir: string): Omit<AgentHookResult, 'action'> {
  const events: string[] = [];
  const missing: string[] = [];
  for (const e of agent.hooks.events) (isOurScript(readTextIfExists(join(dir, e.on))) ? events : missing).push(e.on);
  const state = events.length === 0 ? 'absent' : missing.length ? 'partial' : 'installed';
  return { agentId: agent.agentId, file: dir, state, events, missing };
}

export function applyScriptHooks(op: HookOp, agent: AgentHooks, dir: string, reporter: ReporterLocation): AgentHookResult {
  const bad = agent.hooks.events.find((e) => !isScriptEventName(e.on));
  if (bad)
    return {
      ...scriptHookStatus(agent, dir),
      state: 'error',
      action: 'none',
      error: `${dir}: the event ${JSON.stringify(bad.on)} is not a file name; nothing written`,
    };
  let changed = false;
  const conflicts: string[] = [];
  if (op === 'install') {
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, CREATED_MARK), '');
    }
    const wanted = new Set(agent.hooks.events.map((e) => e.on));
    // Our scripts for events the manifest no longer declares go first.
    for (const name of entries(dir)) {
      if (!wanted.has(name) && isOurScript(readTextIfExists(join(dir, name)))) {
        unlinkSync(join(dir, name));
        changed = true;
      }
    }
    for (const rule of agent.hooks.events) {
      const file = join(dir, rule.on);
      const text = renderHookScript(reporter, agent.agentId, rule);
      const before = readTextIfExists(file);
      if (before === text) continue;
      if (before !== null && !isOurScript(before)) {
        conflicts.push(rule.on);
        continue;
      }
      writeFileAtomic(file, text, { mode: 0o755, forceMode: true });
      changed = true;
    }
  } else {
    for (const name of entries(dir)) {
      if (isOurScript(readTextIfExists(join(dir, name)))) {
        unlinkSync(join(dir, name));
        changed = true;
      }
    }
    const rest = entries(dir);
    if (rest.length === 1 && rest[0] === CREATED_MARK) {
      unlinkSync(join(dir, CREATED_MARK));
      rmdirSync(dir);
      changed = true;
    }
  }
  const status = scriptHookStatus(agent, dir);
  return {
    ...status,
    action: changed ? (op === 'install' ? 'written' : 'removed') : 'unchanged',
    ...(conflicts.length
      ? {
          error: `${dir}: ${conflicts.map((c) => JSON.stringify(c)).join(', ')} ${conflicts.length === 1 ? 'is' : 'are'} your own script${conflicts.length === 1 ? '' : 's'}; left untouched, so ${conflicts.length === 1 ? 'that event does' : 'those events do'} not report`,
        }
      : {}),
  };
}
