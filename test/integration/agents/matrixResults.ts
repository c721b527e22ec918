// The release matrix's record: test-output/agent-matrix/<agent>.json, one entry per release × step
// (pass, fail with its reason, or n/a), written as each step ends so a run cut short still says
// how far every release got. One file per agent, as each agent has its own test file: a run of
// some agents leaves the others' files as they were.
// scripts/agent-matrix-doc.mjs renders them as docs/agents.md and agents/verified.json.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../helpers/controlHost';

/** The steps of one release's scenario, in order; the names verified.json uses. */
export const MATRIX_STEPS = ['launch', 'working', 'attention', 'done', 'failed', 'resume'] as const;
export type MatrixStep = (typeof MATRIX_STEPS)[number];
export type StepOutcome = 'pass' | 'fail' | 'n/a';

export interface ReleaseResult {
  steps: Record<MatrixStep, StepOutcome>;
  /** Why a step failed or does not apply, by step. */
  notes: Partial<Record<MatrixStep, string>>;
  /** Set when the release is known broken on npm itself (the recipe's brokenOnNpm): why. */
  brokenOnNpm?: string;
  /** Wall-clock seconds from the install to the last step. */
  seconds?: number;
  /** When this release last ran (ISO). */
  ranAt: string;
}

export interface MatrixResults {
  generated: string;
  agents: Record<string, { package: string; error?: string; releases: Record<string, ReleaseResult> }>;
}

export const MATRIX_RESULTS_DIR = join(repoRoot, 'test-output', 'agent-matrix');

const fileOf = (id: string) => join(MATRIX_RESULTS_DIR, `${id}.json`);

function load(id: string): MatrixResults {
  try {
    return JSON.parse(readFileSync(fileOf(id), 'utf8')) as MatrixResults;
  } catch {
    return { generated: new Date().toISOString(), agents: {} };
  }
}

function save(id: string, r: MatrixResults): void {
  mkdirSync(MATRIX_RESULTS_DIR, { recursive: true });
  r.generated = new Date().toISOString();
  const tmp = `${fileOf(id)}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(r, null, 2)}\n`);
  renameSync(tmp, fileOf(id));
}

function agentEntry(r: MatrixResults, id: string, pkg: string): MatrixResults['agents'][string] {
  return (r.agents[id] ??= { package: pkg, releases: {} });
}

/** Starts a release's record afresh: every step n/a until it runs (a previous run's entry goes). */
export function beginRelease(id: string, pkg: string, version: string, extra: Partial<ReleaseResult> = {}): void {
  const r = load(id);
  const a = agentEntry(r, id, pkg);
  delete a.error;
  a.releases[version] = {
    steps: Object.fromEntries(MATRIX_STEPS.map((s) => [s, 'n/a'])) as Record<MatrixStep, StepOutcome>,
    notes: {},
    ranAt: new Date().toISOString(),
    ...extra,
  };
  save(id, r);
}

/** Records one step's outcome (and why, for a failure or an n/a). */
export function recordStep(id: string, version: string, step: MatrixStep, outcome: StepOutcome, note?: string): void {
  const r = load(id);
  const rel = r.agents[id]?.releases[version];
  if (!rel) throw new Error(`the matrix results have no ${id}@${version} to record ${step} in (beginRelease first)`);
  rel.steps[step] = outcome;
  if (note) rel.notes[step] = note.split('\n')[0]!.slice(0, 300);
  else delete rel.notes[step];
  save(id, r);
}

/** Records that an agent's releases could not even be listed. */
export function recordAgentError(id: string, pkg: string, error: string): void {
  const r = load(id);
  agentEntry(r, id, pkg).error = error;
  save(id, r);
}

/** Records how long a release took, once its scenario is over. */
export function recordSeconds(id: string, version: string, seconds: number): void {
  const r = load(id);
  const rel = r.agents[id]?.releases[version];
  if (rel) rel.seconds = seconds;
  save(id, r);
}
