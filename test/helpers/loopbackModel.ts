// The loopback model server (modelServer.ts) in three fixed scripts, for the release tests that
// only need a turn of a real agent CLI to end at once and on purpose:
// - `refuse`: every turn is answered 400 in the API's error shape (Claude Code ends it with
//   StopFailure, Gemini CLI with AfterAgent, OpenCode goes idle).
// - `complete`: every turn gets a short reply and completes (Codex runs no hook when a turn fails,
//   having no StopFailure event, so its tests need a turn that ends well to see its Stop hook).
// - `tool`: every turn calls the agent's shell tool with `echo hi`: an agent told to ask before
//   running it shows its permission question.
import type { ModelScript } from './modelScript';
import { startModelServer, type ModelServer } from './modelServer';

export type LoopbackModel = ModelServer;

const SCRIPTS: Record<'refuse' | 'complete' | 'tool', ModelScript> = {
  refuse: { steps: [], then: { error: 400, message: 'refused on purpose by the test endpoint' } },
  complete: { steps: [], then: { reply: 'Hello from the loopback model.' } },
  tool: { steps: [], then: { tool: 'echo hi', reply: 'Done.', description: 'Say hi' } },
};

export function startLoopbackModel(mode: 'refuse' | 'complete' | 'tool' = 'refuse'): Promise<LoopbackModel> {
  return startModelServer(SCRIPTS[mode]);
}
