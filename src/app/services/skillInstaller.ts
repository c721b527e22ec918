// The Termio skill (assets/skills/termio/SKILL.md: how an agent drives other sessions with the
// termio command) in each agent's skills folder, `<skills>/termio/SKILL.md`, installed and removed
// together with live status. A file there is Termio's only while it carries our marker line: a
// user's own file of that name is never overwritten or removed, and nothing else in the folder is
// touched.
import { existsSync, readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expandHome } from '../../protocol/homePath';
import { writeFileAtomic } from './atomicWrite';
import { readTextIfExists } from './textFile';
import { installPath } from './install';

/** The folder name inside the agent's skills folder (also the skill's `name`). */
export const SKILL_NAME = 'termio';
/** The line that marks the file as Termio's; the bundled skill carries it. */
export const SKILL_MARKER = '<!-- termio-skill:';

export type SkillState = 'installed' | 'absent' | 'foreign' | 'error';

export interface SkillResult {
  agentId: string;
  file: string;
  /** installed: ours is there; foreign: a file of that name that is not ours (left alone). */
  state: SkillState;
  action: 'wrote' | 'removed' | 'none';
  error?: string;
}

export interface SkillOptions {
  home: string;
  /** The skill to install. Default: the bundled one. */
  source?: string;
}

export function bundledSkillFile(): string {
  return installPath('assets', 'skills', SKILL_NAME, 'SKILL.md');
}

export function skillFile(skillsDir: string, home: string): string {
  return join(resolve(home, expandHome(skillsDir, home)), SKILL_NAME, 'SKILL.md');
}

function ours(text: string): boolean {
  return text.split('\n').some((l) => l.startsWith(SKILL_MARKER));
}

function attempt(agentId: string, file: string, work: () => SkillResult): SkillResult {
  try {
    return work();
  } catch (e) {
    return { agentId, file, state: 'error', action: 'none', error: `${file}: ${(e as Error).message}` };
  }
}

export function skillStatus(agentId: string, skillsDir: string, opts: SkillOptions): SkillResult {
  const file = skillFile(skillsDir, opts.home);
  return attempt(agentId, file, () => {
    const text = readTextIfExists(file);
    return { agentId, file, state: text === null ? 'absent' : ours(text) ? 'installed' : 'foreign', action: 'none' };
  });
}

/** Writes (or updates) our skill; a file of that name without our marker is the user's and stays. */
export function installSkill(agentId: string, skillsDir: string, opts: SkillOptions): SkillResult {
  const file = skillFile(skillsDir, opts.home);
  return attempt(agentId, file, () => {
    const existing = readTextIfExists(file);
    if (existing !== null && !ours(existing)) return { agentId, file, state: 'foreign', action: 'none' };
    const text = readFileSync(opts.source ?? bundledSkillFile(), 'utf8');
    if (!ours(text)) throw new Error(`the skill to install (${opts.source ?? bundledSkillFile()}) has no ${SKILL_MARKER} line`);
    if (existing === text) return { agentId, file, state: 'installed', action: 'none' };
    writeFileAtomic(file, text);
    return { agentId, file, state: 'installed', action: 'wrote' };
  });
}

/** Removes our skill, and its folder once empty; a user's file of that name stays. */
export function uninstallSkill(agentId: string, skillsDir: string, opts: SkillOptions): SkillResult {
  const file = skillFile(skillsDir, opts.home);
  return attempt(agentId, file, () => {
    const existing = readTextIfExists(file);
    if (existing === null) return { agentId, file, state: 'absent', action: 'none' };
    if (!ours(existing)) return { agentId, file, state: 'foreign', action: 'none' };
    unlinkSync(file);
    const dir = join(file, '..');
    if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
    return { agentId, file, state: 'absent', action: 'removed' };
  });
}
