// Continue's CLI (npm @continuedev/cli, command `cn`). Measured on 1.5.45 and 1.5.47 in a throwaway
// HOME against a loopback OpenAI Chat Completions server: ~/.continue/config.yaml names one model
// (provider openai, apiBase on the server) and ~/.continue/.onboarding_complete skips the first-run
// API-key question, so the prompt shows at once with no login (a "Model Capability Warning" about
// the unknown model name is only text). Its Bash tool asks first: a box "Would you like to
// continue?" with Continue (tab) / Continue + don't ask again (shift+tab) / No (esc), Continue
// selected. Neither release fires hooks (a Claude-shaped loader is there, nothing calls it) and
// the title is never set, so the manifest reads the screen: "esc to interrupt)" while working,
// the question box, and (its failureScreen) "Error: <status> <message>" right above the input box
// when a turn failed (a 401 or 400 at once; a 429 or 5xx is retried up to 9 times). The session record is
// ~/.continue/sessions/<sessionId>.json (sessionId, workspaceDirectory), written when a turn ends;
// there is no resume by id (--resume takes the newest session of any folder), so the manifest
// resumes with --fork <id>, which shows the conversation again under a new id.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../helpers/controlHost';
import type { AgentRecipe } from '../recipe';

/** The bundled manifest's screen rules and failure pattern, which the matrix expects `sessions why` to name. */
const manifest = JSON.parse(readFileSync(join(repoRoot, 'agents', 'continue.json'), 'utf8')) as { status: Record<string, string[]>; failureScreen: string[] };
const rules = manifest.status;

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
  // The reader keeps the first option's "(tab)" (only a letter or esc is taken as a shortcut), and
  // "Continue" alone is the start of two labels.
  question: { allow: 'Continue (tab)', mentions: /touch/ },
  // No hooks: these are the manifest's screen rules, as `termio sessions why` names them.
  statusChannel: 'screen',
  events: { working: rules.working![0]!, attention: rules.attention![0]!, done: 'no rule matches', failed: manifest.failureScreen[0]! },
  failure: { error: 401, message: 'refused on purpose by the release matrix' },
  failureReason: /^API error 401: log in again$/,
  resume: 'discovered',
};
