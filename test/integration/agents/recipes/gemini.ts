// Gemini CLI (npm @google/gemini-cli) with an API key, pointed at the loopback model server through
// GOOGLE_GEMINI_BASE_URL, folder trust off and self-update off. It asks before running a shell
// command (its Notification hook, whose details name the command: Termio's question reads "Run
// `touch probe.txt`?"), retries a 429 or a 5xx, and ends the turn on a 400 with AfterAgent, whose
// payload does not say the turn failed: the screen's `✕ [API Error: {…}]` line does (manifest
// failureScreen), measured on 0.60.0 and 0.61.0.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOOPBACK_API_KEY as API_KEY, type AgentRecipe } from '../recipe';

export const gemini: AgentRecipe = {
  id: 'gemini',
  pkg: '@google/gemini-cli',
  candidates: ['node_modules/.bin/gemini'],
  prepare: ({ home, modelUrl }) => {
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify(
        {
          security: { folderTrust: { enabled: false }, auth: { selectedType: 'gemini-api-key' } },
          general: { disableAutoUpdate: true },
        },
        null,
        2,
      ),
    );
    return { GEMINI_API_KEY: API_KEY, GOOGLE_GEMINI_BASE_URL: modelUrl, COLORTERM: 'truecolor' };
  },
  question: { allow: 'Allow once', mentions: /touch/, hookOnly: true },
  events: { working: 'BeforeAgent', attention: 'Notification', done: 'AfterAgent', failed: 'AfterAgent' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /^API error 400: refused on purpose by the release matrix$/,
  resume: 'pinned',
};
