// The real-agent-CLI helper (test/helpers/agentCli.ts): where the CLI cannot be installed, a
// developer's run skips with the reason, while a CI run fails with it (never a quiet skip).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureNpmAgentCli } from '../helpers/agentCli';

const saved = { CI: process.env.CI, PATH: process.env.PATH, TERMIO_AGENT_CLI_CACHE: process.env.TERMIO_AGENT_CLI_CACHE };
let cache: string;

beforeEach(() => {
  // An empty cache and no npm on the PATH: the CLI can be neither found nor installed.
  cache = mkdtempSync(join(tmpdir(), 'termio-agentcli-'));
  process.env.TERMIO_AGENT_CLI_CACHE = cache;
  process.env.PATH = cache;
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(cache, { recursive: true, force: true });
});

describe('ensureNpmAgentCli', () => {
  it('outside CI: the reason, for the test to skip with', async () => {
    delete process.env.CI;
    expect(await ensureNpmAgentCli('@anthropic-ai/claude-code', ['node_modules/.bin/claude'])).toEqual({
      ok: false,
      reason: expect.stringMatching(/^npm could not run/),
    });
  });

  it('with CI set: fails with the reason', async () => {
    process.env.CI = 'true';
    await expect(ensureNpmAgentCli('@anthropic-ai/claude-code', ['node_modules/.bin/claude'])).rejects.toThrow(
      /CI is set, so the real @anthropic-ai\/claude-code must run here, but it cannot: npm could not run/,
    );
  });
});
