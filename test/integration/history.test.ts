// Conversation history with the real agent CLIs from npm: Claude Code, Codex, Gemini CLI, Qwen Code and Copilot each
// write a conversation offline (a loopback model server answers with a word no other turn has),
// in a throwaway HOME whose termio-host is already running; `termio history search` finds it by
// that word through the host's watcher, with its agent, folder and machine; and resuming the
// Claude Code hit opens a tab whose launch is Claude Code's own resume of that id, which shows
// the earlier turn.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentHome } from '../helpers/agentHome';
import { ensureNewestNpmAgentRelease, type AgentCli } from '../helpers/agentCli';
import { startModelServer, type ModelServer } from '../helpers/modelServer';
import { skipUnlessRequired } from '../helpers/required';
import { waitFor } from '../helpers/waitFor';
import type { AgentRecipe } from './agents/recipe';
import { claude } from './agents/recipes/claude';
import { codex } from './agents/recipes/codex';
import { copilot } from './agents/recipes/copilot';
import { gemini } from './agents/recipes/gemini';
import { qwen } from './agents/recipes/qwen';

/** A headless turn of a real CLI takes seconds; a cold start on a loaded machine much longer. Only a hang reaches this. */
const TURN_TIMEOUT_MS = 120_000;

/** How each CLI runs one prompt without its TUI (it writes the same transcript). */
const HEADLESS: Record<string, (prompt: string) => string[]> = {
  claude: (p) => ['-p', p],
  codex: (p) => ['exec', '--skip-git-repo-check', p],
  gemini: (p) => ['-p', p],
  qwen: (p) => ['-p', p],
  copilot: (p) => ['-p', p],
};

let agent: AgentHome | null = null;
let model: ModelServer | null = null;
afterEach(async () => {
  await agent?.dispose();
  await model?.close();
  agent = model = null;
});

type Search = { results: { agent: string; conversation: string; cwd: string; machine: string | null; snippet: string }[] };

/** Runs the CLI once on `prompt` in the project folder, stdin closed, and waits for it to end. */
function runHeadless(cli: string, args: string[], home: AgentHome): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cli, args, { cwd: home.project, env: home.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), TURN_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The CLI installed, its HOME prepared as its recipe says, the host started, one turn written; the word its reply held. */
async function conversationOf(recipe: AgentRecipe, skip: (why: string) => void): Promise<{ home: AgentHome; cli: string; word: string } | null> {
  const cli: AgentCli = await ensureNewestNpmAgentRelease(recipe.pkg, recipe.candidates);
  if (!cli.ok) {
    skip(skipUnlessRequired(`${recipe.pkg} cannot be installed: ${cli.reason}`)!);
    return null;
  }
  const word = `quokka${randomBytes(4).toString('hex')}`;
  model = await startModelServer({ steps: [{ reply: `The flaky upload test is fixed: ${word}.` }] });
  const home = (agent = new AgentHome(cli.path, `th-${recipe.id}-`));
  Object.assign(home.env, recipe.prepare({ home: home.home, project: home.project, modelUrl: model.url, cli: cli.path, version: cli.version }));
  await home.startHost();
  const run = await runHeadless(cli.path, HEADLESS[recipe.id]!('Where did we fix the flaky upload test?'), home);
  expect(run.output).toContain(word);
  return { home, cli: cli.path, word };
}

async function found(home: AgentHome, word: string): Promise<Search['results'][number]> {
  return waitFor(async () => (await home.termioJson<Search>(['history', 'search', word])).results[0], {
    what: `a search for ${word} to find it`,
    timeout: 30_000,
  });
}

describe('conversation history with the real agent CLIs', () => {
  for (const recipe of [codex, gemini, qwen, copilot]) {
    it(`${recipe.id}: its conversation is found by a word of the reply, with its agent and folder`, { timeout: 300_000 }, async (ctx) => {
      const c = await conversationOf(recipe, (why) => ctx.skip(why));
      if (!c) return;
      const hit = await found(c.home, c.word);
      expect(hit).toMatchObject({ agent: recipe.id, cwd: c.home.project, machine: null });
      expect(hit.snippet).toContain(c.word);
    });
  }

  it('claude: found by a word of the reply, resumed from the hit in a tab that shows the earlier turn', { timeout: 300_000 }, async (ctx) => {
    const c = await conversationOf(claude, (why) => ctx.skip(why));
    if (!c) return;
    const hit = await found(c.home, c.word);
    expect(hit).toMatchObject({ agent: 'claude', cwd: c.home.project, machine: null });
    const opened = await c.home.termioJson<{ id: string; opened: boolean }>(['history', 'resume', hit.conversation]);
    expect(opened.opened).toBe(true);
    type Listed = { sessions: { id: string; cwd: string; resume?: { argv: string[] | null; boundId: string | null } }[] };
    const session = (await c.home.termioJson<Listed>(['sessions', 'list'])).sessions.find((s) => s.id === opened.id)!;
    expect(session.cwd).toBe(c.home.project);
    expect(session.resume).toMatchObject({ boundId: hit.conversation });
    expect(session.resume!.argv!.slice(-2)).toEqual(['--resume', hit.conversation]);
    // Claude Code draws the resumed conversation: the earlier reply is on its screen.
    await waitFor(async () => (await c.home.termio(['sessions', 'read', opened.id])).stdout.includes(c.word), {
      what: 'the earlier turn on screen',
      timeout: 60_000,
    });
  });
});
