// Auggie (npm @augmentcode/auggie) as a returning user has it: logged in (AUGMENT_SESSION_AUTH, the
// session JSON its own `auggie login` prints, with the tenant URL pointed at the loopback model
// server, which speaks Augment's /chat-stream), its onboarding seen (~/.augment/.auggie.json
// onboardingVersion) and the project's indexing question answered "Never" (settings.json
// indexingDenyDirs, what that choice writes), auto-update off.
// It runs its shell tool (launch-process) without asking by default, so there is no question.
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
  events: { working: 'PreToolUse', done: 'Stop', failed: 'Stop' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /400/,
  resume: 'pinned',
};
