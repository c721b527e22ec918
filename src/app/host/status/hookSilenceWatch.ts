// Naming the release whose hooks do not report: when a session's "hooks not reporting" note goes
// up, the host asks its agent's program for its version (`--version`, through the catalog: once per
// program file, and not at all when identify asked the same), names "<agent> <version>"
// in the note (the why strip, `termio sessions why`) and notes that release for `termio hooks
// status` (src/app/services/hookSilence.ts); a later session of the same release whose hooks do
// report drops it again.
import type { Disposable } from '../../../protocol/events';
import type { AgentCatalog } from '../../services/catalog';
import { readHookSilence, versionFromOutput, writeHookSilence } from '../../services/hookSilence';
import type { Logger } from '../../services/log';
import type { StatusTracker } from './statusTracker';

export interface HookSilenceOptions {
  tracker: Pick<StatusTracker, 'onStateChange' | 'nameRelease'>;
  /** The session's agent: its id, its name and the program file it runs (resolved on PATH). */
  agentOf: (sessionId: string) => { agentId: string; name: string; program: string | undefined } | null;
  /** Asks a program (the catalog: once per program file). */
  programs: Pick<AgentCatalog, 'answerOf'>;
  file: string;
  logger: Logger;
}

export function watchHookSilence(o: HookSilenceOptions): Disposable {
  const looked = new Set<string>();
  const release = async (sessionId: string) => {
    const agent = o.agentOf(sessionId);
    if (!agent) return null;
    const answer = agent.program ? await o.programs.answerOf(agent.program, ['--version']) : null;
    const version = answer?.ok ? versionFromOutput(answer.text) : null;
    return { agent, version, release: version ? `${agent.name} ${version}` : agent.name };
  };
  const silent = async (sessionId: string) => {
    const r = await release(sessionId);
    if (!r) return;
    o.tracker.nameRelease(sessionId, r.release);
    o.logger.warn('hooks: a release whose hooks did not report', { sessionId, agent: r.agent.agentId, release: r.release });
    writeHookSilence(o.file, r.agent.agentId, { release: r.release, version: r.version ?? 'unknown', at: new Date().toISOString() });
  };
  const reported = async (sessionId: string) => {
    const agent = o.agentOf(sessionId);
    if (!agent || !(agent.agentId in readHookSilence(o.file))) return;
    const r = await release(sessionId);
    if (r && readHookSilence(o.file)[r.agent.agentId]?.version === (r.version ?? 'unknown')) writeHookSilence(o.file, r.agent.agentId, null);
  };
  const run = (what: Promise<void>) => what.catch((e: unknown) => o.logger.warn('hooks: could not note a release', { error: String(e) }));
  return o.tracker.onStateChange((c) => {
    if (c.status.health.some((h) => h.code === 'hooksNotReporting') && !looked.has(`${c.sessionId} silent`)) {
      looked.add(`${c.sessionId} silent`);
      void run(silent(c.sessionId));
    }
    if (c.status.why.channel === 'hooks' && !looked.has(`${c.sessionId} reported`)) {
      looked.add(`${c.sessionId} reported`);
      void run(reported(c.sessionId));
    }
  });
}
