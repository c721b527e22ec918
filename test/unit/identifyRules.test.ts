// The bundled manifests' identify rules against what the real CLIs answered, recorded from the
// npm releases in test/fixtures/identify (claude 2.1.332, codex 0.171.0, gemini 0.61.0,
// opencode-ai 1.18.33, qwen 0.24.4, copilot 1.0.102, cline 3.0.65, pi 0.73.1, droid 0.225.2, and
// npm's other grok, @vibe-kit/grok-cli 0.0.34). Grok Build cannot be installed here: grok.txt is
// its version line as published answers quote it. Each rule matches its own product and no other
// one; and the fake agents the tests run answer so that their rule takes them for the real thing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_MANIFESTS } from '../../src/app/services/catalog';
import { identifyArgs } from '../../src/app/services/programIdentity';
import { compileManifestPattern } from '../../src/protocol/manifestParse';
import type { Manifest } from '../../src/protocol/manifestSchema';

const REPO = join(__dirname, '..', '..');
const ANSWERS = join(REPO, 'test', 'fixtures', 'identify');
const manifests = readdirSync(join(REPO, 'agents'))
  .filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f))
  .map((f) => JSON.parse(readFileSync(join(REPO, 'agents', f), 'utf8')) as Manifest)
  .filter((m): m is Manifest & { identify: NonNullable<Manifest['identify']> } => m.identify !== undefined);
/** The product each recorded answer is from (OpenCode 2 is the same program as OpenCode). */
const answers = readdirSync(ANSWERS).map((f) => ({ product: f.replace(/\.txt$/, ''), text: readFileSync(join(ANSWERS, f), 'utf8') }));
const productOf = (id: string) => (id === 'opencode2' ? 'opencode' : id);

describe('bundled identify rules', () => {
  it('cover every agent whose real CLI could be checked here', () => {
    expect(manifests.map((m) => m.id).sort()).toEqual([
      'claude',
      'cline',
      'codex',
      'copilot',
      'droid',
      'gemini',
      'grok',
      'opencode',
      'opencode2',
      'pi',
      'qwen',
    ]);
  });

  it.each(manifests.map((m) => [m.id, m] as const))('%s matches its own CLI’s answer and no other one', (id, m) => {
    const rule = compileManifestPattern(m.identify.match);
    const matched = answers.filter((a) => rule.testAll(a.text)).map((a) => a.product);
    expect(matched).toEqual([productOf(id)]);
  });

  it.each(manifests.map((m) => [m.id, m] as const))('%s: the fake agent answers as the real one', (id, m) => {
    const r = spawnSync(process.execPath, [join(REPO, 'test', 'fakes', 'fake-agent.mjs'), productOf(id), ...identifyArgs(m.identify)], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(compileManifestPattern(m.identify.match).testAll(r.stdout)).toBe(true);
  });
});
