// Factory Droid (npm @factory/cli, a shim for the native @factory/cli-<platform> binary) as a
// returning user has it, measured on 0.225.1, the only release npm has. Its shim requires
// @factory/cli-linux-x64@0.225.1, which the registry lacks (it has 0.225.2): installed alone it
// prints "Could not find the droid binary" and exits 1. The shim finds the platform package by
// name, so the nearest one of the same minor line is installed beside it, as a user who read that
// message would, and the binary reports 0.225.2.
// Offline it needs airgap mode (FACTORY_AIRGAP_ENABLED) and a BYOK custom model in
// ~/.factory/settings.json; the folder-trust dialog is pre-answered there (trustedFolders, what
// "1. Trust this folder" writes).
// Measured hooks: SessionStart at launch; a turn is UserPromptSubmit → PreToolUse → Notification
// (permission_prompt; the dialog "Yes, allow") → PostToolUse → Stop. A 400 or 401 ends with a
// plain Stop whose payload carries nothing about the error; the screen's "BYOK Error: 400 …" line
// is the failure (the manifest's failureScreen); a 429 is retried. Resume: `--resume <id>`, the
// record ~/.factory/sessions/<cwd with / as ->/<id>.jsonl written at launch.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

/** The platform package the shim looks for (Factory names them after Node's platform and arch). */
const PLATFORM_PACKAGE = `@factory/cli-${process.platform}-${process.arch}`;

export const droid: AgentRecipe = {
  id: 'droid',
  pkg: '@factory/cli',
  candidates: ['node_modules/.bin/droid', `node_modules/${PLATFORM_PACKAGE}/bin/droid`],
  // "~": the release's own binary when npm has it, else the newest of its minor line.
  extraPackages: [`${PLATFORM_PACKAGE}@~{version}`],
  prepare: ({ home, project, modelUrl }) => {
    mkdirSync(join(home, '.factory'), { recursive: true });
    const settings = {
      customModels: [
        {
          model: 'loopback-model',
          displayName: 'Loopback',
          baseUrl: `${modelUrl}/v1`,
          apiKey: 'sk-termio-loopback',
          provider: 'generic-chat-completion-api',
          maxOutputTokens: 1024,
        },
      ],
      trustedFolders: { [project]: { trustedAt: new Date().toISOString() } },
    };
    writeFileSync(join(home, '.factory', 'settings.json'), JSON.stringify(settings, null, 2));
    return { FACTORY_AIRGAP_ENABLED: 'true' };
  },
  // Termio reads the question from the Notification hook: its message, Yes (Enter) or No (Esc).
  question: { allow: 'Yes', mentions: /needs permission to execute 1 tool/, hookOnly: true },
  events: { working: 'UserPromptSubmit', attention: 'Notification', done: 'Stop', failed: 'Stop' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /400/,
  resume: 'discovered',
  // Resumed, it redraws the conversation's tail on its 24 rows: the failed turn, not the reply
  // before it (which scrolled away).
  resumedShows: /BYOK Error: 400/,
};
