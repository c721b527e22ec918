// Auggie (npm @augmentcode/auggie) as a returning user has it: logged in (AUGMENT_SESSION_AUTH, the
// session JSON its own `auggie login` prints, with the tenant URL pointed at the loopback model
// server, which speaks Augment's /chat-stream), its onboarding seen (~/.augment/.auggie.json
// onboardingVersion) and the project's indexing question answered "Never" (settings.json
// indexingDenyDirs, what that choice writes), auto-update off.
// Hooks run only where the service's get-models turns its enableHooks flag on (the model server
// does). Measured on 0.25.2 and 0.36.0: SessionStart at launch; a turn is PreToolUse → PostToolUse
// (launch-process, run without asking: no question) → Stop (agent_stop_cause "end_turn"), each
// naming conversation_id; a 400 on /chat-stream ends the turn at once with 'API Error:
// "invalidArgument: HTTP error: 400 Bad Request"' on screen and no hook, which the manifest's
// failureScreen reads once the prompt was sent.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

export const auggie: AgentRecipe = {
  id: 'auggie',
  pkg: '@augmentcode/auggie',
  candidates: ['node_modules/.bin/auggie'],
  prepare: ({ home, project, modelUrl }) => {
    mkdirSync(join(home, '.augment'), { recursive: true });
    writeFileSync(join(home, '.augment', '.auggie.json'), JSON.stringify({ onboardingVersion: '1.0.0' }));
    writeFileSync(join(home, '.augment', 'settings.json'), JSON.stringify({ indexingDenyDirs: [project] }));
    const session = { accessToken: 'termio-loopback', tenantURL: `${modelUrl}/`, scopes: ['email'] };
    return { AUGMENT_SESSION_AUTH: JSON.stringify(session), AUGMENT_DISABLE_AUTO_UPDATE: '1' };
  },
  question: null,
  // No prompt hook both releases take (PromptSubmit is 0.36.0's): a turn's first event is its tool's.
  events: { working: 'PreToolUse', done: 'Stop', failed: 'failure on screen' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /^API error 400: .*HTTP error: 400 Bad Request/,
  resume: 'discovered',
};
