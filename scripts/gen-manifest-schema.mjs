#!/usr/bin/env node
// Writes agents/manifest.schema.json from the zod manifest schema (never edit that file by hand).
// Usage: npm run schema            (compiles src/protocol, then writes)
//        node scripts/gen-manifest-schema.mjs --check   (exit 1 when the file is stale)
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { manifestJsonSchemaText, MANIFEST_JSON_SCHEMA_FILE } = require(join(root, 'dist', 'protocol', 'manifestJsonSchema.js'));

const file = join(root, MANIFEST_JSON_SCHEMA_FILE);
const text = manifestJsonSchemaText();
let current = null;
try {
  current = readFileSync(file, 'utf8');
} catch {
  // Not generated yet.
}
if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${MANIFEST_JSON_SCHEMA_FILE} is stale; run \`npm run schema\``);
    process.exit(1);
  }
  console.log(`${MANIFEST_JSON_SCHEMA_FILE} is up to date`);
} else if (current === text) {
  console.log(`${MANIFEST_JSON_SCHEMA_FILE} unchanged`);
} else {
  writeFileSync(file, text);
  console.log(`wrote ${MANIFEST_JSON_SCHEMA_FILE}`);
}
