// Continue's CLI (npm @continuedev/cli, command `cn`). Measured on 1.5.45 and 1.5.47 in a throwaway
// HOME against a loopback OpenAI Chat Completions server: ~/.continue/config.yaml names one model
// (provider openai, apiBase on the server) and ~/.continue/.onboarding_complete skips the first-run
// API-key question, so the prompt shows at once with no login (a "Model Capability Warning" about
// the unknown model name is only text). Its Bash tool asks first: a box "Would you like to
// continue?" with Continue (tab) / Continue + don't ask again (shift+tab) / No (esc), Continue
// selected. Neither release fires hooks (a Claude-shaped loader is there, nothing calls it) and
// the title is never set, so the manifest reads the screen: "esc to interrupt)" while working,
// the question box, and "Error: <status> <message>" right above the input box when a turn failed
// (a 401 or 400 at once; a 429 or 5xx is retried up to 9 times). The session record is
// ~/.continue/sessions/<sessionId>.json (sessionId, workspaceDirectory), written when a turn ends;
// there is no resume by id (--resume takes the newest session of any folder), so the manifest
// resumes with --fork <id>, which shows the conversation again under a new id.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

const CONTINUE_STATUS = {
  working: 'esc to interrupt\\s*\\)',
  question: '^\\s*│?\\s*Would you like to continue\\?',
  failed: '^Error: [^\\n]*\\n\\s*╭─+╮\\s*\\n\\s*│ ● ',
};

export const continueCli: AgentRecipe = {
  id: 'continue',
  pkg: '@continuedev/cli',
  candidates: ['node_modules/.bin/cn'],
  prepare: ({ home, modelUrl }) => {
    const dir = join(home, '.continue');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.onboarding_complete'), new Date(0).toISOString());
    writeFileSync(
      join(dir, 'config.yaml'),
      [
        'name: Termio loopback',
        'version: 1.0.0',
        'schema: v1',
        'models:',
        '  - name: Loopback model',
        '    provider: openai',
        '    model: loopback-model',
        `    apiBase: ${modelUrl}/v1`,
        '    apiKey: termio-test-key',
        '    roles: [chat, edit, apply]',
        '',
      ].join('\n'),
    );
    return {};
  },
  question: { allow: 'Continue', mentions: /touch/ },
  // No hooks: these are the manifest's screen rules, as `termio sessions why` names them.
  events: { working: CONTINUE_STATUS.working, attention: CONTINUE_STATUS.question, done: 'no rule matches', failed: CONTINUE_STATUS.failed },
  failure: { error: 401, message: 'refused on purpose by the release matrix' },
  failureReason: /401/,
  resume: 'discovered',
};
