// Claude Code (npm @anthropic-ai/claude-code) as a returning user has it: onboarding done, the
// project trusted and an API key approved, pointed at the loopback model server through
// ANTHROPIC_BASE_URL. It asks before running Bash ("Do you want to proceed?", 1. Yes); it retries
// a 429 or a 5xx for minutes, while a 400 ends the turn at once with its StopFailure hook.
// writeClaudeUser and CLAUDE_ENV below are that user's state and environment for every test that
// runs the real Claude Code (the matrix, the host tests and the e2e tests), and ensureNewestClaude
// the release they run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNewestNpmAgentRelease, type AgentCli } from '../../../helpers/agentCli';
import { LOOPBACK_API_KEY as API_KEY, type AgentRecipe } from '../recipe';

/** Self-updates off (one would run `npm install -g` on this machine) and no calls home beyond the
 *  model's: what every run of Claude Code in a test has in its environment. */
export const CLAUDE_ENV = { DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } as const;

/**
 * Claude Code's first-run state as a returning user has it, written into `home`: onboarding done
 * (without it the CLI wants api.anthropic.com and exits), manual mode as the user's default so it
 * asks before running tools (since 2.1.332 auto mode is the default and runs `touch` unasked), and
 * the one-time offer to make auto mode the default already seen (2.1.332 makes it to every user
 * whose settings name another default mode; hasSeenAutoDefaultNudge is the flag it sets once
 * answered). The `trusted` folders are trusted (others get the folder-trust question), and
 * `apiKey`, when given, approved (otherwise Claude asks whether to use the key it was given).
 * Written before `termio hooks install`, which adds its hooks to the same settings file.
 */
export function writeClaudeUser(home: string, { trusted = [], apiKey }: { trusted?: string[]; apiKey?: string } = {}): void {
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      hasSeenAutoDefaultNudge: true,
      projects: Object.fromEntries(trusted.map((folder) => [folder, { hasTrustDialogAccepted: true }])),
      ...(apiKey ? { customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } } : {}),
    }),
  );
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default' } }));
}

export const claude: AgentRecipe = {
  id: 'claude',
  pkg: '@anthropic-ai/claude-code',
  candidates: ['node_modules/.bin/claude', `node_modules/@anthropic-ai/claude-code-${process.platform}-${process.arch}/claude`],
  prepare: ({ home, project, modelUrl }) => {
    writeClaudeUser(home, { trusted: [project], apiKey: API_KEY });
    return { ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: modelUrl, ...CLAUDE_ENV };
  },
  question: { allow: 'Yes', mentions: /touch probe\.txt/ },
  events: { working: 'UserPromptSubmit', attention: 'PermissionRequest', done: 'Stop', failed: 'StopFailure' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /API error 400/,
  resume: 'pinned',
};

/** The newest Claude Code release npm has, installed into the release cache: what the tests that
 *  run one real Claude Code run. */
export function ensureNewestClaude(): Promise<AgentCli> {
  return ensureNewestNpmAgentRelease(claude.pkg, claude.candidates);
}
