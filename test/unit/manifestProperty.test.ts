// Property: 10,000 random and mutated manifests never make the parser throw, and each result is
// exactly one of "a manifest" or "errors", every message a single line naming the file. The
// generated fast validator gives zod's verdict on every one of them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isManifestShape, parseManifest, parseManifestValue, type ManifestParseResult } from '../../src/protocol/manifestParse';
import { ManifestSchema } from '../../src/protocol/manifestSchema';
import { NOT_MANIFESTS } from '../../src/app/services/catalog';

const LABEL = 'agents/x.json';
const agentsDir = join(__dirname, '..', '..', 'agents');
const bundled: unknown[] = readdirSync(agentsDir)
  .filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f))
  .map((f) => JSON.parse(readFileSync(join(agentsDir, f), 'utf8')));

function assertWellFormed(r: ManifestParseResult): void {
  expect(r.manifest !== undefined).toBe(r.errors.length === 0);
  for (const m of [...r.errors, ...r.warnings]) {
    expect(m.startsWith(`${LABEL}: `)).toBe(true);
    expect(m).not.toContain('\n');
  }
  if (r.manifest) {
    // A loaded manifest is itself valid, with nothing left to warn about.
    const again = parseManifestValue(JSON.parse(JSON.stringify(r.manifest)), LABEL);
    expect(again.errors).toEqual([]);
    expect(again.warnings.filter((w) => w.includes('unknown field'))).toEqual([]);
  }
}

/** The generated validator and zod agree (it decides, alone, whether zod runs at all). */
function assertSameVerdict(value: unknown): boolean {
  const zod = ManifestSchema.safeParse(value).success;
  expect(isManifestShape(value)).toBe(zod);
  return zod;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

function pathsOf(value: Json, base: Path = [], out: Path[] = []): Path[] {
  out.push(base);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...base, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...base, k], out);
  return out;
}

type Mutation = { kind: 'delete' | 'replace' | 'addKey' | 'wrap'; pick: number; key: string; value: Json };

function mutate(root: Json, mutations: Mutation[]): Json {
  let doc: Json = structuredClone(root);
  for (const m of mutations) {
    const paths = pathsOf(doc);
    const path = paths[m.pick % paths.length]!;
    const parentPath = path.slice(0, -1);
    const last = path[path.length - 1];
    const parent = parentPath.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k]!, doc) as Record<string | number, Json> | Json[];
    const target = path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k]!, doc);
    if (m.kind === 'addKey') {
      if (target && typeof target === 'object' && !Array.isArray(target)) target[m.key] = m.value;
      continue;
    }
    if (last === undefined) {
      if (m.kind !== 'delete') doc = m.kind === 'wrap' ? [doc] : m.value;
      continue;
    }
    if (m.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete (parent as Record<string, Json>)[last as string];
    } else {
      (parent as Record<string | number, Json>)[last] = m.kind === 'wrap' ? [target] : m.value;
    }
  }
  return doc;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete', 'replace', 'addKey', 'wrap'),
  pick: fc.nat(),
  key: fc.oneof(
    fc.constantFrom('id', 'resume', 'create', 'discover', 'hooks', 'events', 'state', 'icon', 'order', '$schema', '__proto__', 'constructor'),
    fc.string(),
  ),
  value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
});

describe('manifest parser properties', () => {
  it('never throws on 4,000 random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        assertSameVerdict(value);
        assertWellFormed(parseManifestValue(value, LABEL));
        assertWellFormed(parseManifest(JSON.stringify(value), LABEL));
      }),
      { numRuns: 4000 },
    );
  });

  it('never throws on 4,000 mutated bundled manifests', () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.constantFrom(...bundled), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), (manifest, mutations) => {
        const doc = mutate(manifest as Json, mutations);
        if (assertSameVerdict(doc)) valid++;
        assertWellFormed(parseManifestValue(doc, LABEL));
        assertWellFormed(parseManifest(JSON.stringify(doc), LABEL));
      }),
      { numRuns: 4000 },
    );
    // Both verdicts were exercised, not only "invalid".
    expect(valid).toBeGreaterThan(100);
  });

  it('gives the validator and zod the same verdict at every edge of the schema', () => {
    const base = { id: 'a', name: 'A', command: 'a' };
    const astral = '\u{1F600}'; // two UTF-16 code units, one code point
    const edges: unknown[] = [
      base,
      { ...base, name: 'x'.repeat(80) },
      { ...base, name: 'x'.repeat(81) },
      { ...base, name: astral.repeat(40) }, // 80 code units
      { ...base, name: astral.repeat(41) }, // 82 code units, 41 code points: zod counts units
      { ...base, id: 'ab\uD800' },
      { ...base, order: 1.5 },
      { ...base, order: 1_000_000 },
      { ...base, order: 1_000_001 },
      { ...base, order: -0 },
      { ...base, loginShell: false },
      { ...base, loginShell: true },
      { ...base, icon: { path: 'ICON.PNG' } },
      { ...base, icon: { path: 'icon.Svg', tint: '#abc' } },
      { ...base, icon: { path: 'icon.gif' } },
      { ...base, icon: { tint: '#abcd' } },
      { ...base, install: 'https://example.com/x y' },
      { ...base, install: 'ftp://example.com' },
      { ...base, titleStatus: { working: [] } },
      { ...base, titleStatus: { working: Array(64).fill('x') } },
      { ...base, titleStatus: { working: Array(65).fill('x') } },
      { ...base, titleStatus: { busy: ['x'] } },
      { ...base, resume: { storeMatch: 'dir:a/b' } },
      { ...base, resume: { discover: { root: '~/x', format: 'yaml', id: 'a', cwd: 'b' } } },
      { ...base, resume: { discover: { root: 'x', format: 'json', id: 'a', cwd: 'b' } } },
      { ...base, hooks: { type: 'json', dialect: 'claude', events: [{ on: 'Stop', state: 'done' }] } },
      { ...base, hooks: { type: 'json', dialect: 'claude', events: [{ on: 'Stop', state: 'busy' }] } },
      { ...base, hooks: { type: 'yaml', dialect: 'claude', events: [{ on: 'Stop', state: 'done' }] } },
      JSON.parse('{"id":"a","name":"A","command":"a","__proto__":{"x":1}}'),
      JSON.parse('{"id":"a","name":"A","command":"a","constructor":1}'),
      Object.assign(Object.create({ inherited: 1 }), base),
      [],
      null,
      'a',
    ];
    for (const value of edges) assertSameVerdict(value);
  });

  it('never throws on 2,000 damaged manifest texts', () => {
    fc.assert(
      fc.property(fc.constantFrom(...bundled), fc.nat(), fc.nat(), fc.string({ maxLength: 8 }), (manifest, a, b, insert) => {
        const text = JSON.stringify(manifest, null, 2);
        const start = a % (text.length + 1);
        const end = Math.min(text.length, start + (b % 12));
        assertWellFormed(parseManifest(text.slice(0, start) + insert + text.slice(end), LABEL));
        assertWellFormed(parseManifest(text.slice(0, start), LABEL));
      }),
      { numRuns: 2000 },
    );
  });
});
