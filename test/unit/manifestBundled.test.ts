// The bundled manifests in agents/: each valid without a warning, named after its id, pointing at
// the generated schema, with a brand mark in assets/icons; and agents/manifest.schema.json is
// exactly what the zod schema generates, as is the fast validator (run `npm run schema` when this fails).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestJsonSchema, manifestJsonSchemaText, MANIFEST_JSON_SCHEMA_FILE } from '../../src/protocol/manifestJsonSchema';
import { manifestResumeFamily, parseManifest } from '../../src/protocol/manifestParse';
import { ManifestSchema } from '../../src/protocol/manifestSchema';
import { GENERATED_FILE, manifestValidatorSource } from '../../scripts/lib/manifestValidator.cjs';
import { NOT_MANIFESTS } from '../../src/app/services/catalog';

const REPO = join(__dirname, '..', '..');
const AGENTS = join(REPO, 'agents');
const files = readdirSync(AGENTS)
  .filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f))
  .sort();

describe('bundled manifests', () => {
  it('ship every agent agents/README.md lists, plus the Terminal', () => {
    expect(files.map((f) => f.replace(/\.json$/, ''))).toEqual([
      'aider',
      'amp',
      'antigravity',
      'auggie',
      'claude',
      'cline',
      'codex',
      'continue',
      'copilot',
      'crush',
      'cursor',
      'droid',
      'gemini',
      'goose',
      'grok',
      'hermes',
      'kilo',
      'kimi',
      'opencode',
      'opencode2',
      'pi',
      'qwen',
      'terminal',
    ]);
  });

  it.each(files)('%s is valid, named after its id, points at the schema and has an icon', (file) => {
    const text = readFileSync(join(AGENTS, file), 'utf8');
    const r = parseManifest(text, `agents/${file}`);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    const m = r.manifest!;
    expect(`${m.id}.json`).toBe(file);
    expect(JSON.parse(text).$schema).toBe('./manifest.schema.json');
    if (m.icon?.vector) expect(existsSync(join(REPO, 'assets', 'icons', `${m.icon.vector}.svg`))).toBe(true);
    if (m.icon?.symbol) expect(existsSync(join(REPO, 'assets', 'icons', 'symbols', `${m.icon.symbol}.svg`))).toBe(true);
    if (!m.loginShell) expect(m.install).toMatch(/^https:\/\//);
  });

  it('use unique ids and orders', () => {
    const ms = files.map((f) => parseManifest(readFileSync(join(AGENTS, f), 'utf8'), f).manifest!);
    expect(new Set(ms.map((m) => m.id)).size).toBe(ms.length);
    expect(new Set(ms.map((m) => m.order)).size).toBe(ms.length);
  });

  it('declare the resume families agents/README.md lists for each agent', () => {
    const family = Object.fromEntries(
      files.map((f) => [f.replace(/\.json$/, ''), manifestResumeFamily(parseManifest(readFileSync(join(AGENTS, f), 'utf8'), f).manifest!)]),
    );
    expect(family).toEqual({
      aider: 'none',
      amp: 'none',
      antigravity: 'none',
      auggie: 'discovered',
      claude: 'pinned',
      cline: 'discovered',
      codex: 'discovered',
      continue: 'discovered',
      copilot: 'pinned',
      crush: 'discovered',
      cursor: 'pinned',
      droid: 'discovered',
      gemini: 'pinned',
      goose: 'discovered',
      grok: 'pinned',
      hermes: 'none',
      kilo: 'discovered',
      kimi: 'none',
      opencode: 'discovered',
      opencode2: 'discovered',
      pi: 'discovered',
      qwen: 'pinned',
      terminal: 'none',
    });
  });

  it('the Terminal is the login shell: no command, nothing to resume, no status channel', () => {
    const m = parseManifest(readFileSync(join(AGENTS, 'terminal.json'), 'utf8'), 'terminal.json').manifest!;
    expect(m.loginShell).toBe(true);
    expect(m.command).toBeUndefined();
    expect(m.resume ?? m.hooks ?? m.titleStatus ?? m.status).toBeUndefined();
  });
});

describe('agents/manifest.schema.json', () => {
  it('is exactly what the zod schema generates (run `npm run schema` if not)', () => {
    expect(readFileSync(join(REPO, MANIFEST_JSON_SCHEMA_FILE), 'utf8')).toBe(manifestJsonSchemaText());
  });

  it('has a generated validator that is exactly what the zod schema generates (run `npm run schema` if not)', () => {
    expect(readFileSync(join(REPO, GENERATED_FILE), 'utf8')).toBe(manifestValidatorSource(ManifestSchema));
  });

  it('documents every field, requires id and name, and refuses command with loginShell', () => {
    const schema = manifestJsonSchema() as {
      properties: Record<string, { description?: string; properties?: Record<string, { description?: string }> }>;
      required: string[];
      not: unknown;
    };
    expect(schema.required).toEqual(['id', 'name']);
    expect(schema.not).toEqual({ required: ['command', 'loginShell'] });
    const undocumented: string[] = [];
    const walk = (props: Record<string, { description?: string; properties?: Record<string, unknown>; items?: unknown }> | undefined, path: string) => {
      for (const [key, value] of Object.entries(props ?? {})) {
        if (!value.description) undocumented.push(`${path}${key}`);
        walk(value.properties as never, `${path}${key}.`);
        const items = value.items as { properties?: Record<string, unknown> } | undefined;
        walk(items?.properties as never, `${path}${key}[].`);
      }
    };
    walk(schema.properties as never, '');
    expect(undocumented).toEqual([]);
  });
});
