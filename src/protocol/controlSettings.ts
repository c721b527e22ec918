// The control protocol's shared-state part: the host is the one process that writes
// settings.json and the agents' hook, skill and MCP configs, so the app and the CLI change them
// (and read the host's view of them) through these verbs. control.ts spreads them into its tables.
import * as z from 'zod';
import { MAX_ID_CHARS } from './manifestSchema';

/** Settings nest three deep at most (agents.<id>.bypass); eight leaves room without inviting abuse. */
const MAX_SETTING_DEPTH = 8;
/** A key is a section, an agent id, a folder (picker.machines) or an action name. */
const MAX_KEY_CHARS = 4096;

const SettingPath = z
  .array(z.string().min(1).max(MAX_KEY_CHARS))
  .min(1)
  .max(MAX_SETTING_DEPTH)
  .describe('the key path in settings.json, e.g. ["terminal", "fontSize"]');

/** What `hooks.apply` does: put Termio's entries in, take them out, or check (and repair) them. */
export const HooksOpSchema = z.enum(['install', 'uninstall', 'status']);
export type HooksOp = z.infer<typeof HooksOpSchema>;

/** One agent's hook entries after the op (the shape of the services' AgentHookResult). */
const HookResultSchema = z.strictObject({
  agentId: z.string(),
  file: z.string().describe('the config file, absolute'),
  state: z.enum(['installed', 'partial', 'stale', 'absent', 'unparsable', 'error']),
  action: z.enum(['written', 'removed', 'unchanged', 'repaired', 'none']),
  events: z.array(z.string()).describe('declared events with our entry in the file'),
  missing: z.array(z.string()).describe('declared events without one'),
  error: z.string().optional(),
  note: z.string().optional().describe("a vendor gate that can still silence our hooks (Codex's trust review)"),
  backup: z.string().optional().describe('where the original was saved before our first edit'),
  trust: z.strictObject({ file: z.string(), state: z.enum(['recorded', 'none', 'failed']), error: z.string().optional() }).optional(),
  notReporting: z
    .strictObject({ release: z.string(), version: z.string(), at: z.string() })
    .optional()
    .describe('a release whose hooks ran in a session without one reaching Termio'),
});

const SkillResultSchema = z.strictObject({
  agentId: z.string(),
  file: z.string(),
  state: z.enum(['installed', 'absent', 'foreign', 'error']),
  action: z.enum(['wrote', 'removed', 'none']),
  error: z.string().optional(),
});

const McpResultSchema = z.strictObject({
  agentId: z.string(),
  file: z.string(),
  state: z.enum(['installed', 'stale', 'absent', 'error']),
  action: z.enum(['written', 'removed', 'unchanged', 'none']),
  backup: z.string().optional(),
  error: z.string().optional(),
});

export const SettingsArgsSchemas = {
  'settings.get': z.strictObject({}),
  'settings.set': z.strictObject({
    path: SettingPath,
    value: z.unknown().optional().describe('the new value (JSON); absent: the key is removed, so its default applies'),
  }),
  'hooks.apply': z.strictObject({
    op: HooksOpSchema,
    agent: z.string().min(1).max(MAX_ID_CHARS).optional().describe('only this agent (default: every agent whose manifest declares hooks)'),
    mcpOnly: z.boolean().optional().describe('status of the MCP registrations only (termio mcp status): nothing is repaired'),
  }),
  'agents.loginPath': z.strictObject({}),
};

export const SettingsResultSchemas = {
  'settings.get': z.strictObject({
    file: z.string(),
    settings: z.record(z.string(), z.unknown()).describe('every setting as the host applies it now (defaults filled in)'),
    errors: z.array(z.string()).describe('problems in the file, one line each'),
  }),
  'settings.set': z.strictObject({
    file: z.string(),
    notice: z.string().nullable().describe('the unreadable file was moved aside (where to), or null'),
  }),
  'hooks.apply': z.strictObject({
    agents: z.array(HookResultSchema),
    skills: z.array(SkillResultSchema),
    mcp: z.array(McpResultSchema),
    skipped: z.array(z.string()).describe('manifests that could not be read, one line each'),
  }),
  'agents.loginPath': z.strictObject({
    path: z.string().nullable().describe("the PATH the user's login shell exports (null: the shell gave none)"),
    source: z.string().describe('login-shell, or why the fallback was used'),
  }),
};

export const SETTINGS_ERROR_CODES = [
  'badSetting', // settings.set: the value is not one the setting takes, or the file holds something in its way
  'noSuchAgent', // hooks.apply: no manifest has that id, or it declares no hooks
] as const;
