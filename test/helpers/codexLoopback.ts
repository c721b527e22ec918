// A fresh HOME for the real Codex CLI offline: signed in with a dummy API key and pointed at a
// loopback model endpoint (loopbackModel.ts in `complete` mode) over plain HTTP, without retries,
// so each turn ends at once and Codex runs its Stop hook. Shared by the release tests.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const CODEX_TEST_API_KEY = 'sk-termio-test-0123456789abcdefghij';

/** Signs `cli` in under `home` and writes ~/.codex/config.toml with the loopback provider. */
export function prepareCodexHome(home: string, cli: string, modelUrl: string): void {
  const login = spawnSync(cli, ['login', '--with-api-key'], {
    input: `${CODEX_TEST_API_KEY}\n`,
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
      '',
    ].join('\n'),
  );
}
