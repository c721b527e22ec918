// Releases of agents whose hooks never reported in a session ($TERMIO_HOME/state/hook-silence.json):
// the host notes one when a session's "hooks not reporting" note goes up, with the release it
// probed (`<program> --version`), and drops it when a session of that release reports through its
// hooks; `termio hooks status` shows what is noted. Also how a version is read off that answer.
import { join } from 'node:path';
import { writeFileAtomic } from './atomicWrite';
import { readTextIfExists } from './textFile';
import type { TermioPaths } from './paths';

export interface SilentRelease {
  /** The agent's name and version as the note says it, e.g. "Codex 0.169.1". */
  release: string;
  version: string;
  /** When a session of it last had declared hooks that never reported (ISO time). */
  at: string;
}

export function hookSilenceFile(paths: Pick<TermioPaths, 'stateDir'>): string {
  return join(paths.stateDir, 'hook-silence.json');
}

/** The noted releases by agent id; an unreadable or malformed file reads as none. */
export function readHookSilence(file: string): Record<string, SilentRelease> {
  try {
    const parsed = JSON.parse(readTextIfExists(file) ?? '{}') as { agents?: Record<string, SilentRelease> };
    const agents = parsed.agents ?? {};
    return Object.fromEntries(
      Object.entries(agents).filter(([, v]) => typeof v?.release === 'string' && typeof v.version === 'string' && typeof v.at === 'string'),
    );
  } catch {
    return {};
  }
}

/** Notes (release) or drops (null) an agent's silent release. */
export function writeHookSilence(file: string, agentId: string, entry: SilentRelease | null): void {
  const agents = readHookSilence(file);
  if (entry) agents[agentId] = entry;
  else if (agentId in agents) delete agents[agentId];
  else return;
  writeFileAtomic(file, `${JSON.stringify({ agents }, null, 2)}\n`);
}

/** The version in a CLI's `--version` output ("codex-cli 0.169.1", "2.1.331 (Claude Code)"). */
export function versionFromOutput(text: string): string | null {
  return /\b(\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.]+)?)\b/.exec(text)?.[1] ?? null;
}
