// Pi (npm @mariozechner/pi-coding-agent) as a returning user has it, measured on 0.73.0 and
// 0.73.1: a provider of its own models.json on the loopback model server's Chat Completions, made
// the default in settings.json, and PI_OFFLINE (no fd/ripgrep download, no update check).
// Pi has no shell hooks and never asks before running a tool (question: null). Its status reaches
// Termio only as OSC 9;4 progress (the manifest's progressStatus), which Pi writes once the user
// turns on "terminal.showTerminalProgress" (off by default; Termio's docs tell Pi users to), so
// the recipe turns it on: an indeterminate report while a turn runs ("0%" in `sessions why`),
// cleared when it ends, a failed turn too. A 400 or 401 ends the turn at once ("Error: 400 …" on
// screen); a 429 is retried three times. The conversation id is discovered: the record
// ~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl appears at the first reply, and
// `--session <id>` resumes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecipe } from '../recipe';

export const pi: AgentRecipe = {
  id: 'pi',
  pkg: '@mariozechner/pi-coding-agent',
  candidates: ['node_modules/.bin/pi'],
  prepare: ({ home, modelUrl }) => {
    const dir = join(home, '.pi', 'agent');
    mkdirSync(dir, { recursive: true });
    const provider = {
      baseUrl: `${modelUrl}/v1`,
      api: 'openai-completions',
      apiKey: 'sk-termio-loopback',
      compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
      models: [{ id: 'loopback-model' }],
    };
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ providers: { loopback: provider } }, null, 2));
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({ defaultProvider: 'loopback', defaultModel: 'loopback-model', terminal: { showTerminalProgress: true } }, null, 2),
    );
    return { PI_OFFLINE: '1' };
  },
  question: null,
  statusChannel: 'progress',
  events: { working: '0%', done: 'cleared', failed: 'cleared' },
  failure: { error: 400, message: 'refused on purpose by the release matrix' },
  failureReason: /Error: 400 .*refused on purpose/,
  resume: 'discovered',
};
