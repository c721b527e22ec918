// OpenAI Codex (npm @openai/codex) signed in with an API key, on a loopback provider of its
// config.toml (Responses API over plain HTTP, no retries), the project trusted. It asks nothing
// before `touch`: 0.170 and 0.171 refuse approval_policy "untrusted" ("no longer supported"), and
// under "on-request" only the model asks for approval (an escalated call), so a write in the
// project runs in its workspace-write sandbox unasked. A turn the API refuses (400) runs no hook at
// all on 0.170 and 0.171 (UserPromptSubmit, then only the error line `■ {"error":…}` on screen): its
// end is expected as Stop, which Codex does not send, so the failed step fails until Termio reads
// that failure some other way.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareCodexHome } from '../../../helpers/codexLoopback';
import type { AgentRecipe } from '../recipe';

export const codex: AgentRecipe = {
  id: 'codex',
  pkg: '@openai/codex',
  candidates: ['node_modules/.bin/codex'],
  prepare: ({ home, project, modelUrl, cli }) => {
    prepareCodexHome(home, cli, modelUrl);
    const config = join(home, '.codex', 'config.toml');
    writeFileSync(config, `${readFileSync(config, 'utf8')}\n[projects."${project}"]\ntrust_level = "trusted"\n`);
    return {};
  },
  question: null,
  events: { working: 'UserPromptSubmit', done: 'Stop', failed: 'Stop' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /400/,
  resume: 'discovered',
};
