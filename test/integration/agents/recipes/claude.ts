// Claude Code (npm @anthropic-ai/claude-code) as a returning user has it: onboarding done, the
// project trusted and an API key approved, pointed at the loopback model server through
// ANTHROPIC_BASE_URL. It asks before running Bash ("Do you want to proceed?", 1. Yes); it retries
// a 429 or a 5xx for minutes, while a 400 ends the turn at once with its StopFailure hook.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_TEST_API_KEY as API_KEY } from '../../../helpers/codexLoopback';
import type { AgentRecipe } from '../recipe';

export const claude: AgentRecipe = {
  id: 'claude',
  pkg: '@anthropic-ai/claude-code',
  candidates: ['node_modules/.bin/claude', `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`],
  prepare: ({ home, project, modelUrl }) => {
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        projects: { [project]: { hasTrustDialogAccepted: true } },
        customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      }),
    );
    return { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: modelUrl, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  },
  question: { allow: 'Yes', mentions: /touch probe\.txt/ },
  events: { working: 'UserPromptSubmit', attention: 'PermissionRequest', done: 'Stop', failed: 'StopFailure' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /API error 400/,
  resume: 'pinned',
};
