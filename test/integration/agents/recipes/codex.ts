// OpenAI Codex (npm @openai/codex) signed in with an API key, on a loopback provider of its
// config.toml (Responses API over plain HTTP, no retries), the project trusted and every command
// that is not read-only asked about first (approval_policy "untrusted"), so `touch` shows its
// approval question.
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
    // Top-level keys come before the provider's table; the project's trust is a table of its own.
    writeFileSync(config, `approval_policy = "untrusted"\n${readFileSync(config, 'utf8')}\n[projects."${project}"]\ntrust_level = "trusted"\n`);
    return {};
  },
  question: { allow: 'Yes, proceed', mentions: /touch probe\.txt/ },
  events: { working: 'UserPromptSubmit', attention: 'PermissionRequest', done: 'Stop', failed: 'Stop' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /400/,
  resume: 'discovered',
};
