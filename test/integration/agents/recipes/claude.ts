// Claude Code (npm @anthropic-ai/claude-code) as a returning user has it: onboarding done, the
// project trusted and an API key approved, pointed at the loopback model server through
// ANTHROPIC_BASE_URL. It asks before running Bash ("Do you want to proceed?", 1. Yes); it retries
// a 429 or a 5xx for minutes, while a 400 ends the turn at once with its StopFailure hook.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOOPBACK_API_KEY as API_KEY, type AgentRecipe } from '../recipe';

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
    // Since 2.1.332 auto mode is the default and runs `touch` unasked: the user chose to be asked.
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
    return { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: modelUrl, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  },
  // 2.1.332 then offers to make auto mode the default once: keep manual mode.
  startup: [
    { screen: /Make auto mode your default permission mode\?/, keys: '\x1b[B' },
    { screen: /❯ No, keep manual mode/, keys: '\r' },
  ],
  question: { allow: 'Yes', mentions: /touch probe\.txt/ },
  events: { working: 'UserPromptSubmit', attention: 'PermissionRequest', done: 'Stop', failed: 'StopFailure' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /API error 400/,
  resume: 'pinned',
};
