// GitHub Copilot CLI (npm @github/copilot) as a returning user has it, measured on 1.0.92 and
// 1.0.102: bring-your-own-key offline mode (COPILOT_OFFLINE and the COPILOT_PROVIDER_* variables;
// no GitHub login), pointed at the loopback model server's Chat Completions, self-update off, and
// the project among config.json's trustedFolders (what "Yes, and remember this folder" writes;
// without it every first launch in a folder stops at "Confirm folder trust", which no hook reports).
// It asks before running a shell command ("Do you want to run this command?", 1. Yes).
// Measured hooks: sessionStart (at the first prompt, not at launch) → userPromptSubmitted →
// preToolUse → permissionRequest (every tool call) → notification (permission_prompt, only when the
// dialog shows) → postToolUse → agentStop. A 400 ends the turn with one errorOccurred and no
// agentStop; a 401 is tried three times (three errorOccurred); Esc on the dialog sends no hook.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

export const copilot: AgentRecipe = {
  id: 'copilot',
  pkg: '@github/copilot',
  candidates: ['node_modules/.bin/copilot', `node_modules/@github/copilot-${process.platform}-${process.arch}/copilot`],
  prepare: ({ home, project, modelUrl }) => {
    mkdirSync(join(home, '.copilot'), { recursive: true });
    writeFileSync(join(home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [project] }, null, 2));
    return {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
      COPILOT_PROVIDER_API_KEY: 'sk-termio-loopback',
      COPILOT_MODEL: 'loopback-model',
      COPILOT_AUTO_UPDATE: 'false',
    };
  },
  question: { allow: '1', mentions: /touch probe\.txt/ },
  events: { working: 'userPromptSubmitted', attention: 'notification', done: 'agentStop', failed: 'errorOccurred' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /API error.*refused on purpose/,
  resume: 'pinned',
};
