// The JSON Schema of an ATP manifest, generated from the zod schema (never written by hand):
// scripts/gen-manifest-schema.mjs writes it to agents/manifest.schema.json for editors, and a
// unit test fails when that file is stale.
import * as z from 'zod';
import { ManifestSchema } from './manifestSchema';

/** Where the generated schema lives, relative to the repository root. */
export const MANIFEST_JSON_SCHEMA_FILE = 'agents/manifest.schema.json';

type JsonObject = Record<string, unknown>;

/**
 * The manifest's JSON Schema (draft-07: the draft editors such as VS Code understand best).
 * The "exactly one of" rules that zod expresses in code (manifestParse.ts) are added as oneOf so
 * editors flag them too; the other cross-field rules are checked only by Termio.
 */
export function manifestJsonSchema(): JsonObject {
  const schema = z.toJSONSchema(ManifestSchema, { target: 'draft-7', io: 'input' }) as JsonObject;
  const props = schema.properties as Record<string, JsonObject>;
  const exactlyOne = (keys: string[]) => keys.map((k) => ({ required: [k] }));
  // At most one of command and loginShell: neither is the login shell too (ATP's plain terminal).
  schema.not = { required: ['command', 'loginShell'] };
  if (props.icon) props.icon.oneOf = exactlyOne(['vector', 'path', 'symbol']);
  if (props.hooks) props.hooks.oneOf = exactlyOne(['file', 'dir']);
  const { $schema, ...rest } = schema;
  return { $schema, title: 'ATP agent manifest', ...rest };
}

/** The exact text of agents/manifest.schema.json. */
export function manifestJsonSchemaText(): string {
  return `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
}
