// Qwen Code (npm @qwen-code/qwen-code) as a returning user has it, measured on 0.24.3 and 0.24.4:
// the OpenAI-compatible auth chosen by its three environment variables (no auth or trust dialog),
// pointed at the loopback model server. settings.json holds what such a user set once:
// - approval mode "default": 0.24 starts in "auto" mode, where an LLM classifier (one more model
//   request) decides about each tool call; "default" asks, as "Allow execution of: 'touch'?"
//   (1. Yes, allow once);
// - no self-update: a 0.24.3 that sees a newer release on npm runs `npm install` of it on its own;
// - no follow-up suggestions: after each turn it sends a "[SUGGESTION MODE …]" request that
//   carries tools, which a script step must not be spent on.
// Measured hooks: SessionStart at launch; UserPromptSubmit → PermissionRequest (the dialog shows;
// also Notification permission_prompt) → PreToolUse → PostToolUse → Stop → Notification
// idle_prompt. A 400 or 401 ends the turn at once with StopFailure (error "invalid_request",
// error_details "400 …") and no Stop; a 429 is retried for as long as it lasts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

export const qwen: AgentRecipe = {
  id: 'qwen',
  pkg: '@qwen-code/qwen-code',
  candidates: ['node_modules/.bin/qwen'],
  prepare: ({ home, modelUrl }) => {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    writeFileSync(
      join(home, '.qwen', 'settings.json'),
      JSON.stringify({ tools: { approvalMode: 'default' }, general: { enableAutoUpdate: false }, ui: { enableFollowupSuggestions: false } }, null, 2),
    );
    return { OPENAI_API_KEY: 'sk-termio-loopback', OPENAI_BASE_URL: `${modelUrl}/v1`, OPENAI_MODEL: 'loopback-model' };
  },
  question: { allow: '1', mentions: /touch probe\.txt/ },
  events: { working: 'UserPromptSubmit', attention: 'PermissionRequest', done: 'Stop', failed: 'StopFailure' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /API error 400/,
  resume: 'pinned',
};
