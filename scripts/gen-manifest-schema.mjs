#!/usr/bin/env node
// Writes the two files generated from the zod manifest schema (never edit either by hand):
//   agents/manifest.schema.json                 the JSON Schema editors use
//   src/protocol/manifestValidate.generated.ts  Ajv's standalone validator of the same schema
// Usage: npm run schema            (compiles src/protocol, then writes)
//        node scripts/gen-manifest-schema.mjs --check   (exit 1 when either file is stale)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const distProtocol = join(root, 'dist', 'protocol');
const { manifestJsonSchemaText, MANIFEST_JSON_SCHEMA_FILE } = require(join(distProtocol, 'manifestJsonSchema.js'));
const { ManifestSchema } = require(join(distProtocol, 'manifestSchema.js'));
const { manifestValidatorSource, GENERATED_FILE } = require('./lib/manifestValidator.cjs');

const outputs = [
  [MANIFEST_JSON_SCHEMA_FILE, manifestJsonSchemaText()],
  [GENERATED_FILE, manifestValidatorSource(ManifestSchema)],
];
let stale = false;
for (const [name, text] of outputs) {
  const file = join(root, name);
  let current = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // Not generated yet.
  }
  if (process.argv.includes('--check')) {
    if (current !== text) {
      console.error(`${name} is stale; run \`npm run schema\``);
      stale = true;
    } else console.log(`${name} is up to date`);
  } else if (current === text) {
    console.log(`${name} unchanged`);
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${name}`);
  }
}
if (stale) process.exit(1);
