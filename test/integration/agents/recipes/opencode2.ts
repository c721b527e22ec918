// OpenCode (npm opencode-ai), whose plugin events are the opencode2 manifest's (session.status,
// permission.asked, session.error). Its model is a provider of the user's config on the loopback
// model server, through the Anthropic SDK the binary bundles; bash is set to ask, so `touch` shows
// its "Permission required" dialog. Measured on 1.18.32 and 1.18.33: permission.asked carries
// {permission: "bash", patterns: ["touch probe.txt"], metadata: {command}}, which Termio reads as
// the question; the dialog's Allow once / Allow always / Reject are a row of buttons with Allow
// once highlighted (by colour only, so the screen cannot be read for it), Return chooses it and
// permission.replied follows. A 400 ends the turn without retries: session.error with
// properties.error {name: "APIError", data: {message, statusCode: 400}}, then idle (twice).
import { join } from 'node:path';
import { writeOpenCodeConfig, type AgentRecipe } from '../recipe';

export const opencode2: AgentRecipe = {
  id: 'opencode2',
  pkg: 'opencode-ai',
  candidates: ['node_modules/.bin/opencode', `node_modules/opencode-${process.platform}-${process.arch}/bin/opencode`],
  prepare: ({ home, modelUrl }) => {
    writeOpenCodeConfig(join(home, '.config', 'opencode', 'opencode.json'), '@ai-sdk/anthropic', modelUrl);
    return { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1' };
  },
  question: { allow: 'Allow once', mentions: /touch/, hookOnly: true },
  events: { working: 'session.status', attention: 'permission.asked', done: 'session.status', failed: 'session.error' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /API error 400: refused on purpose/,
  resume: 'discovered',
};
