// Cline (npm cline, a shim for the native @cline/cli-<platform> binary) as a returning user has it,
// measured on 3.0.64 and 3.0.65: an OpenAI-compatible provider set once with `cline auth` (offline,
// no login) pointed at the loopback model server, and the launch notices already seen (3.0.65's
// first launch shows "Try ClinePass"; with that one seen, 3.0.64 and 3.0.65 show "Get Cline
// Desktop"; each swallows the first key typed).
// Measured hooks (one executable per event; no setting enables them): a turn is TaskStart →
// PreToolUse → PostToolUse → TaskComplete; a 400 or 401 is TaskStart → TaskError (error.message is
// the API's message, no status) at once; a 429 is retried. Tools run without asking: auto-approve
// is on by default and what a user sees, so there is no question (switched off, the approval shows
// on screen after PreToolUse and no hook reports it). The conversation is
// sessionContext.rootSessionId (taskId changes on every launch), written at the first prompt to
// ~/.cline/data/sessions/<id>/<id>.json; `cline --id <id>` shows it again (3.0.64 and 3.0.65).
// Every TUI launch starts `cline --cline-hub-daemon` with the same HOME, which outlives the TUI.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

/** The launch notices measured, marked seen as Cline marks them when dismissed. */
const SEEN_NOTICES = ['cline-cli-cline-pass-intro', 'cline-cli-desktop-launch'];

export const cline: AgentRecipe = {
  id: 'cline',
  pkg: 'cline',
  candidates: ['node_modules/.bin/cline', 'node_modules/@cline/cli-linux-x64/bin/cline'],
  prepare: ({ home, modelUrl, cli }) => {
    const auth = spawnSync(cli, ['auth', '-p', 'openai-compatible', '-k', 'sk-termio-loopback', '-b', `${modelUrl}/v1`, '-m', 'loopback-model'], {
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (auth.status !== 0) throw new Error(`cline auth failed (exit ${auth.status}): ${auth.stderr || auth.stdout || auth.error?.message}`);
    const settings = join(home, '.cline', 'data', 'settings');
    mkdirSync(settings, { recursive: true });
    writeFileSync(join(settings, 'cli-notices.json'), JSON.stringify({ shown: Object.fromEntries(SEEN_NOTICES.map((n) => [n, true])) }, null, 2));
    return {};
  },
  question: null,
  events: { working: 'TaskStart', done: 'TaskComplete', failed: 'TaskError' },
  failure: { error: 401, message: 'Invalid API key' },
  failureReason: /API error: log in again/,
  resume: 'discovered',
};
