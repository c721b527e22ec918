#!/usr/bin/env node
// Renders the agent release matrix's record (test-output/agent-matrix/<agent>.json, one file per
// agent, written by test/integration/agents/matrixRunner.ts) as docs/agents.md, a table people read, and
// agents/verified.json, the releases Termio was verified on, which the app reads. An agent the
// record does not have keeps its entry in verified.json (a run of some agents updates only
// theirs); an agent it has gets exactly the releases that ran.
//   node scripts/agent-matrix-doc.mjs [record folder]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = ['launch', 'working', 'attention', 'done', 'failed', 'resume'];
const HEADINGS = { launch: 'launch', working: 'working', attention: 'needs you', done: 'done', failed: 'failed', resume: 'resume' };
const OUTCOMES = new Set(['pass', 'fail', 'n/a']);

function fail(message) {
  process.stderr.write(`agent-matrix-doc: ${message}\n`);
  process.exit(1);
}

function readJson(file, what) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    fail(`cannot read ${what} ${file}: ${e.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    fail(`${what} ${file} is not JSON: ${e.message}`);
  }
}

/** Newest release first, by its numeric parts. */
function byVersionDesc(a, b) {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0);
  return 0;
}

/** The record's agents as verified.json has them, each step checked to be pass, fail or n/a. */
function verifiedFrom(record, file) {
  const agents = {};
  for (const [id, a] of Object.entries(record.agents ?? {})) {
    const releases = {};
    for (const [version, r] of Object.entries(a.releases ?? {})) {
      releases[version] = {};
      for (const step of STEPS) {
        const v = r.steps?.[step];
        if (!OUTCOMES.has(v)) fail(`${file}: ${id}@${version} step ${step} is ${JSON.stringify(v)}, not pass, fail or n/a`);
        releases[version][step] = v;
      }
    }
    agents[id] = { package: a.package, releases };
  }
  return agents;
}

function cell(r, step) {
  const v = r[step];
  return v === 'pass' ? 'pass' : v === 'fail' ? '**fail**' : 'n/a';
}

function markdown(verified, record, generated) {
  const lines = [
    '# Agents verified with Termio',
    '',
    'Each agent CLI below was run for real, from npm, on its newest two releases, by the release matrix',
    '(`test/integration/agents/matrixRunner.ts`, one recipe per agent in `test/integration/agents/recipes/`).',
    'Offline: a loopback model server plays the model. Per release, in one throwaway HOME under a real',
    'Termio host, the agent is started with a prompt (**launch**), reports the turn through its own hook',
    '(**working**), asks before running its shell tool and is answered through `termio sessions answer`',
    '(**needs you**; n/a for an agent that asks nothing), completes the turn with the tool run and its',
    'end-of-turn hook (**done**), reports the next turn that ends in an API error (**failed**), and',
    'survives a host restart and a reboot-style relaunch on its exact conversation (**resume**).',
    '',
    'To run it again: `npm run test:agents`',
    '(`npx vitest run test/integration/agents/claude.test.ts` for one agent), then `node scripts/agent-matrix-doc.mjs`,',
    'which writes this page and `agents/verified.json` from `test-output/agent-matrix/`.',
    '`node scripts/setup.mjs --run-tests` does both.',
    '',
    `Generated ${generated.slice(0, 10)}.`,
    '',
    `| Agent | npm package | Release | ${STEPS.map((s) => HEADINGS[s]).join(' | ')} |`,
    `| --- | --- | --- | ${STEPS.map(() => '---').join(' | ')} |`,
  ];
  const notes = [];
  for (const id of Object.keys(verified).sort()) {
    const a = verified[id];
    const rec = record.agents?.[id];
    if (rec?.error) notes.push(`- ${id}: ${rec.error}`);
    for (const version of Object.keys(a.releases).sort(byVersionDesc)) {
      const r = a.releases[version];
      const rr = rec?.releases?.[version];
      const mark = (s) => (r[s] === 'pass' && rr?.notes?.[s] ? 'pass, known gap' : cell(r, s));
      lines.push(`| ${id} | \`${a.package}\` | ${version} | ${STEPS.map(mark).join(' | ')} |`);
      if (rr?.brokenOnNpm) notes.push(`- ${id} ${version}: broken on npm: ${rr.brokenOnNpm}`);
      for (const step of STEPS)
        if (r[step] !== 'n/a' && rr?.notes?.[step] && !rr.brokenOnNpm)
          notes.push(
            `- ${id} ${version}, ${HEADINGS[step]}${r[step] === 'pass' ? ' (passed, with a known gap)' : ''}: ${rr.notes[step].replaceAll('|', '\\|')}`,
          );
    }
  }
  if (notes.length) lines.push('', '## What failed, and why', '', ...notes);
  const unrun = bundledAgents().filter((m) => !verified[m.id]);
  if (unrun.length)
    lines.push(
      '',
      '## Not verified here',
      '',
      'These bundled agents have no recipe: npm does not have their CLI, or it cannot run a turn offline.',
      'Their manifests follow the vendors\' documentation; Termio marks them "not verified here".',
      '',
      ...unrun.map((m) => `- ${m.name} (\`${m.id}\`)${m.comment ? `: ${firstSentence(m.comment).replaceAll('|', '\\|')}` : ''}`),
    );
  return `${lines.join('\n')}\n`;
}

/** A manifest comment's first sentence (the rest is in the manifest). */
function firstSentence(text) {
  const m = /^.*?[.!?](?=\s|$)/.exec(text);
  return (m ? m[0] : text).slice(0, 240);
}

/** The bundled manifests of agents (not the plain Terminal), as { id, name, comment }. */
function bundledAgents() {
  const dir = join(root, 'agents');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !['manifest.schema.json', 'verified.json'].includes(f))
    .map((f) => readJson(join(dir, f), 'the bundled manifest'))
    .filter((m) => typeof m.command === 'string')
    .sort((a, b) => a.id.localeCompare(b.id));
}

const recordDir = process.argv[2] ?? join(root, 'test-output', 'agent-matrix');
const parts = existsSync(recordDir)
  ? readdirSync(recordDir)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : [];
if (parts.length === 0) fail(`no agent records in ${recordDir}: run the matrix first (npm run test:agents)`);
const record = { generated: '', agents: {} };
for (const f of parts) {
  const one = readJson(join(recordDir, f), 'the matrix record');
  Object.assign(record.agents, one.agents ?? {});
  if (typeof one.generated === 'string' && one.generated > record.generated) record.generated = one.generated;
}
const generated = record.generated || new Date().toISOString();
const verifiedFile = join(root, 'agents', 'verified.json');
const previous = existsSync(verifiedFile) ? readJson(verifiedFile, 'the verified releases') : { agents: {} };
const verified = { generated, agents: { ...previous.agents, ...verifiedFrom(record, recordDir) } };
writeFileSync(verifiedFile, `${JSON.stringify(verified, null, 2)}\n`);
writeFileSync(join(root, 'docs', 'agents.md'), markdown(verified.agents, record, generated));
process.stdout.write(`agent-matrix-doc: wrote agents/verified.json and docs/agents.md (${Object.keys(verified.agents).length} agents)\n`);
