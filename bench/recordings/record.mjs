#!/usr/bin/env node
// Records the terminal output of real agent TUIs working a turn, as asciicast v2 (asciinema's
// format: a JSON header line, then one `[seconds, "o", data]` line per read of the pty), gzipped
// into bench/recordings/<agent>.cast.gz: the workload bench/agents.mjs replays at its real pace.
// Each CLI is the npm release named below (installed into the release cache the tests use), run
// offline in a throwaway HOME against the loopback model server of the tests
// (test/helpers/modelServer.ts), set up as the release matrix's recipes set it up, with its tools
// allowed (as a user who lets it work unattended has it). One prompt, one turn: the model calls the
// shell four times (a listing, a file read, a `seq`, a `git log`-like printout) and then streams a
// long Markdown answer a word at a time, so the TUI redraws its spinner, tool boxes and the
// growing answer as it would live. The pty is 120×40; its queries (cursor position, device
// attributes) are answered by @xterm/headless, as a terminal would.
// Run: node bench/recordings/record.mjs [claude,codex,gemini]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'bench', 'recordings');
const COLS = 120;
const ROWS = 40;
/** A turn that has not ended in this long is a failed recording. */
const TURN_TIMEOUT_MS = 180_000;
/** The recording ends once output has been quiet this long after the answer's last word. */
const QUIET_MS = 2_000;
const PROMPT = 'Look around this project and explain what it does';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The answer the model streams: Markdown of ~450 words, headings, lists and code, as agents write. */
function longAnswer() {
  const parts = ['## What this project does', '', 'It is a small command-line tool that counts words in text files. Here is what I found:', ''];
  for (let i = 1; i <= 12; i++) {
    parts.push(
      `${i}. **src/module${i}.ts** reads its input line by line, splits each line on whitespace and adds the count to a running total of about ${i * 37} words.`,
    );
  }
  parts.push('', '```ts', 'export function count(text: string): number {', '  return text.split(/\\s+/).filter(Boolean).length;', '}', '```', '');
  for (let i = 0; i < 6; i++) {
    parts.push(
      `The ${['first', 'second', 'third', 'fourth', 'fifth', 'last'][i]} part of the design keeps the counting pure and the input and output at the edges, so each piece can be tested alone and the tool stays fast on large files.`,
    );
  }
  parts.push('', 'Nothing needs changing: the tests pass and the listing matches the notes.');
  return parts.join('\n');
}

/** The model's script: a turn of four shell calls, then the long answer a word every 25 ms. */
const SCRIPT = {
  steps: [{ tool: 'ls -la', more: ['cat notes.md', 'seq 1 80', 'cat history.txt'], reply: longAnswer(), paceMs: 25 }],
};

/** The agents recorded: the release, and how it runs with its tools allowed and the prompt given. */
const AGENTS = {
  claude: {
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.337',
    recipe: 'claude',
    argv: [PROMPT],
    /** Bash allowed, as a user who lets it run commands has it. */
    allow: (home) => writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'default', allow: ['Bash'] } })),
  },
  codex: {
    pkg: '@openai/codex',
    version: '0.171.0',
    recipe: 'codex',
    argv: ['--dangerously-bypass-approvals-and-sandbox', PROMPT],
  },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', recipe: 'gemini', argv: ['--yolo', '-i', PROMPT] },
};

/** The tests' TypeScript helpers (model server, release cache, recipes) bundled for this script. */
async function helpers(work) {
  const entry = join(work, 'entry.ts');
  writeFileSync(
    entry,
    [
      `export { startModelServer } from ${JSON.stringify(join(root, 'test/helpers/modelServer.ts'))};`,
      `export { ensureNpmAgentRelease } from ${JSON.stringify(join(root, 'test/helpers/agentCli.ts'))};`,
      `export { claude } from ${JSON.stringify(join(root, 'test/integration/agents/recipes/claude.ts'))};`,
      `export { signInCodex } from ${JSON.stringify(join(root, 'test/integration/agents/recipes/codex.ts'))};`,
      `export { gemini } from ${JSON.stringify(join(root, 'test/integration/agents/recipes/gemini.ts'))};`,
    ].join('\n'),
  );
  const file = join(work, 'helpers.cjs');
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: file, logLevel: 'warning', external: ['vitest'] });
  return require(file);
}

/** A project folder with the files the script's commands read. */
function project(home) {
  const dir = join(home, 'project');
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (let i = 1; i <= 12; i++) writeFileSync(join(dir, 'src', `module${i}.ts`), `export const n${i} = ${i};\n`);
  writeFileSync(join(dir, 'notes.md'), Array.from({ length: 30 }, (_, i) => `- note ${i + 1}: the counter handles case ${i + 1}`).join('\n'));
  writeFileSync(
    join(dir, 'history.txt'),
    Array.from({ length: 50 }, (_, i) => `${(0xa1b2c3 + i * 4099).toString(16)} change ${i + 1}: tidy module ${(i % 12) + 1}`).join('\n'),
  );
  return dir;
}

/** The environment the recipe gives the agent, with its tools allowed. */
function prepare(h, name, agent, { home, dir, modelUrl, cli }) {
  if (name === 'claude') {
    const env = h.claude.prepare({ home, project: dir, modelUrl, cli, version: agent.version });
    agent.allow(home);
    return env;
  }
  if (name === 'codex') {
    h.signInCodex(home, cli, modelUrl, `\n[projects."${dir}"]\ntrust_level = "trusted"\n`);
    return {};
  }
  return h.gemini.prepare({ home, project: dir, modelUrl, cli, version: agent.version });
}

async function record(h, name, work) {
  const agent = AGENTS[name];
  // The npm bin link, or Claude Code's platform binary where npm skipped the postinstall that links it.
  const candidates = [`node_modules/.bin/${name}`, `node_modules/${agent.pkg}-${process.platform}-${process.arch}/${name}`];
  const installed = await h.ensureNpmAgentRelease(agent.pkg, agent.version, candidates);
  if (!installed.ok) throw new Error(`${agent.pkg}@${agent.version}: ${installed.reason}`);
  const home = realpathSync(mkdtempSync(join(work, `${name}-`)));
  const dir = project(home);
  const model = await h.startModelServer(SCRIPT);
  const env = {
    HOME: home,
    PATH: `${dirname(installed.path)}:${dirname(process.execPath)}:/usr/bin:/bin`,
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    ...prepare(h, name, agent, { home, dir, modelUrl: model.url, cli: installed.path }),
  };
  const pty = require('node-pty');
  const { Terminal } = require('@xterm/headless');
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  const p = pty.spawn(installed.path, agent.argv, { cols: COLS, rows: ROWS, cwd: dir, env, encoding: null });
  const t0 = performance.now();
  const events = [];
  let last = t0;
  p.onData((d) => {
    last = performance.now();
    events.push([(last - t0) / 1000, d.toString('utf8')]);
    term.write(d);
  });
  // The terminal's answers to the TUI's queries go back to it.
  term.onData((d) => p.write(d));
  let exited = false;
  p.onExit(() => (exited = true));
  const answered = () => model.requests.filter((r) => r.kind === 'continuation').length >= SCRIPT.steps[0].more.length + 1;
  try {
    for (const t = Date.now(); !answered(); await sleep(100)) {
      if (exited) throw new Error(`${name} exited before its turn ended`);
      if (Date.now() - t > TURN_TIMEOUT_MS) throw new Error(`${name}: the turn did not end (${model.requests.length} requests)`);
    }
    // The answer streams for ~12 s; then the TUI settles.
    while (performance.now() - last < QUIET_MS) await sleep(100);
  } finally {
    p.kill('SIGKILL');
    await model.close();
    term.dispose();
  }
  const header = {
    version: 2,
    width: COLS,
    height: ROWS,
    timestamp: Math.floor(Date.now() / 1000),
    title: `${agent.pkg}@${agent.version}`,
    env: { TERM: 'xterm-256color' },
  };
  const lines = [JSON.stringify(header), ...events.map(([t, d]) => JSON.stringify([Number(t.toFixed(6)), 'o', d]))];
  const gz = gzipSync(`${lines.join('\n')}\n`, { level: 9 });
  writeFileSync(join(out, `${name}.cast.gz`), gz);
  const bytes = events.reduce((n, [, d]) => n + Buffer.byteLength(d), 0);
  console.log(
    `${name}: ${events.length} writes, ${(bytes / 1024).toFixed(0)} KiB in ${events.at(-1)[0].toFixed(1)} s → ${name}.cast.gz (${(gz.length / 1024).toFixed(0)} KiB)`,
  );
  // Codex leaves an app-server daemon behind in its HOME: anything still running there is ended.
  spawnSync('sh', ['-c', `for p in /proc/[0-9]*; do grep -qz "HOME=${home}" $p/environ 2>/dev/null && kill -9 \${p#/proc/}; done`]);
}

const names = (process.argv[2] ?? Object.keys(AGENTS).join(',')).split(',');
const work = mkdtempSync(join(tmpdir(), 'termio-record-'));
mkdirSync(out, { recursive: true });
let failed = 0;
try {
  const h = await helpers(work);
  for (const name of names) {
    try {
      await record(h, name, work);
    } catch (e) {
      failed++;
      console.log(`${name}: not recorded: ${e.message}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
