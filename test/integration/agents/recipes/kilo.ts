// Kilo Code's CLI (npm @kilocode/cli), a fork of OpenCode 2 that loads OpenCode's JS plugins from
// ~/.config/kilo/plugins. Measured on 7.7.7 in a throwaway HOME against a loopback OpenAI Chat
// Completions server: kilo.json names a custom provider (@ai-sdk/openai-compatible, bundled in the
// binary) and its model, and the prompt shows at once — no login, no first-run dialog. Bash runs
// without asking unless the config says "permission": {"bash": "ask"}; then `touch probe.txt`
// shows "Permission required" with Allow once / Allow always / Reject (permission.asked, whose
// properties {permission, patterns, metadata: {command}} Termio reads as the question; the buttons
// are OpenCode's, Allow once highlighted, so "Allow once" is Return; Allow always asks to confirm
// "permanently", a second Return). Each turn
// sends session.status busy … idle; a 401 ends the turn at once with session.error
// (properties.error = {name: "APIError", data: {message, statusCode: 401}}) followed by idle; a
// 429 is retried with backoff (session.status type "retry"). Esc cancels with idle and no error.
// The conversation (ses_…) lives in SQLite (~/.local/share/kilo/kilo.db) and its id comes from
// the plugin's events; `kilo --session <id>` shows it again. 7.8.1 cannot be installed on Linux
// x64: npm has no @kilocode/cli-linux-x64 (nor -baseline) 7.8.1 for its postinstall to fetch.
import { join } from 'node:path';
import { writeOpenCodeConfig, type AgentRecipe } from '../recipe';

export const kilo: AgentRecipe = {
  id: 'kilo',
  pkg: '@kilocode/cli',
  candidates: ['node_modules/.bin/kilo', `node_modules/@kilocode/cli-${process.platform}-${process.arch}/bin/kilo`],
  prepare: ({ home, modelUrl }) => {
    writeOpenCodeConfig(join(home, '.config', 'kilo', 'kilo.json'), '@ai-sdk/openai-compatible', modelUrl, { small_model: 'loopback/m' });
    return { KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_MODELS_FETCH: '1' };
  },
  question: { allow: 'Allow once', mentions: /touch/, hookOnly: true },
  events: { working: 'session.status', attention: 'permission.asked', done: 'session.status', failed: 'session.error' },
  failure: { error: 401, message: 'refused on purpose by the release matrix' },
  failureReason: /API error 401/,
  resume: 'discovered',
  // Only this platform's package was seen missing; elsewhere the release is tried.
  brokenOnNpm:
    process.platform === 'linux' && process.arch === 'x64'
      ? { '7.8.1': 'no @kilocode/cli-linux-x64@7.8.1 (nor -baseline) on npm: the postinstall that fetches the binary fails with ETARGET' }
      : {},
};
