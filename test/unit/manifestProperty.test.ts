// Property: 10,000 random and mutated manifests never make the parser throw, and each result is
// exactly one of "a manifest" or "errors", every message a single line naming the file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseManifest, parseManifestValue, type ManifestParseResult } from '../../src/protocol';

const LABEL = 'agents/x.json';
const agentsDir = join(__dirname, '..', '..', 'agents');
const bundled: unknown[] = readdirSync(agentsDir)
  .filter((f) => f.endsWith('.json') && f !== 'manifest.schema.json')
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
  key: fc.oneof(fc.constantFrom('id', 'resume', 'create', 'discover', 'hooks', 'events', 'state', 'icon', 'order', '$schema', '__proto__', 'constructor'), fc.string()),
  value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
});

describe('manifest parser properties', () => {
  it('never throws on 4,000 random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        assertWellFormed(parseManifestValue(value, LABEL));
        assertWellFormed(parseManifest(JSON.stringify(value), LABEL));
      }),
      { numRuns: 4000 },
    );
  });

  it('never throws on 4,000 mutated bundled manifests', () => {
    fc.assert(
      fc.property(fc.constantFrom(...bundled), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), (manifest, mutations) => {
        const doc = mutate(manifest as Json, mutations);
        assertWellFormed(parseManifestValue(doc, LABEL));
        assertWellFormed(parseManifest(JSON.stringify(doc), LABEL));
      }),
      { numRuns: 4000 },
    );
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
