// OpenAI Codex (npm @openai/codex) signed in with an API key, on a loopback provider of its
// config.toml (Responses API over plain HTTP, no retries), the project folder not trusted
// (trust_level = "untrusted", as a user who has not trusted it has). At launch Codex says "Config,
// hooks, and exec policies from untrusted folders stay disabled" and offers "Open restricted",
// which the matrix chooses ("Open existing task" when relaunched on the conversation); then, on
// 0.170.0 and 0.171.0, it asks "Would you like to run the following command? $ touch probe.txt"
// with its PermissionRequest hook. In a trusted folder, or one never asked about (not a git
// repository), it asks nothing: both refuse approval_policy "untrusted" ("no longer supported"),
// and under the default "on-request" a write in the project runs in the workspace-write sandbox
// unasked ("Read Only" fails it in the sandbox, unasked; run by hand on 0.171.0). A turn the API
// refuses (400) runs no hook after UserPromptSubmit (no Stop) on 0.170 and 0.171: Codex prints the
// API's error body (`■ {"error":{"message":…}}`, without the HTTP status, which Codex records
// nowhere: its rollout has the same body as task_complete.error), so the manifest's failureScreen
// reads that line and the failed turn ends as "failure on screen" with the API's message.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LOOPBACK_API_KEY, type AgentRecipe } from '../recipe';

/** Signs `cli` in under `home` with an API key and writes ~/.codex/config.toml with the loopback
 *  provider (Responses API over plain HTTP, no retries, so a refused turn ends at once). `extra`
 *  is appended to the config. */
export function signInCodex(home: string, cli: string, modelUrl: string, extra = ''): void {
  const login = spawnSync(cli, ['login', '--with-api-key'], {
    input: `${LOOPBACK_API_KEY}\n`,
    encoding: 'utf8',
    env: { HOME: home, PATH: `${dirname(cli)}:${dirname(process.execPath)}:/usr/bin:/bin` },
  });
  if (login.status !== 0) throw new Error(`codex login failed: ${login.stderr}`);
  mkdirSync(join(home, '.codex'), { recursive: true });
  writeFileSync(
    join(home, '.codex', 'config.toml'),
    [
      'model_provider = "termio-loopback"',
      '',
      '[model_providers.termio-loopback]',
      'name = "Termio loopback"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'requires_openai_auth = true',
      'supports_websockets = false',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      extra,
    ].join('\n'),
  );
}

export const codex: AgentRecipe = {
  id: 'codex',
  pkg: '@openai/codex',
  candidates: ['node_modules/.bin/codex'],
  prepare: ({ home, project, modelUrl, cli }) => {
    signInCodex(home, cli, modelUrl, `\n[projects."${project}"]\ntrust_level = "untrusted"\n`);
    return {};
  },
  question: { allow: '1', mentions: /touch probe\.txt/ },
  // A relaunch on the conversation asks again, as "Open existing task".
  startup: [
    { screen: /Open restricted/, keys: '\r' },
    { screen: /Open existing task/, keys: '\r' },
  ],
  events: { working: 'UserPromptSubmit', attention: 'PermissionRequest', done: 'Stop', failed: 'failure on screen' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /^API error: refused on purpose by the release matrix$/,
  resume: 'discovered',
};
