// The modules that write state only the session host may write: settings.json and the agents' own
// hook, skill and MCP configs (paths under src/). scripts/check-layers.mjs refuses them in the
// app's and the CLI's code at run time (but for the CLI's fallback, cli/localWriter.ts), and
// test/unit/sharedStateWriters.test.ts checks that every other module that writes files writes
// something else.
export const HOST_OWNED_WRITERS = [
  'app/services/settings.ts',
  'app/services/agentConfigs.ts',
  'app/services/hookInstaller.ts',
  'app/services/scriptHookFolder.ts',
  'app/services/mcpInstaller.ts',
  'app/services/skillInstaller.ts',
  'app/services/codexTrust.ts',
];

/** The CLI's one door to them: it writes only when no host is there. */
export const WRITER_DOOR = 'app/cli/localWriter.ts';
