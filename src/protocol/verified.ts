// agents/verified.json: which bundled agents the release matrix ran for real, on which releases of
// their CLI, and what each check gave. The matrix writes it; Termio only reads it, to say which
// bundled agents are verified ("verified on 0.24.3, 0.24.4") and which are not. Pure: parsing
// and the per-agent answer; the catalog reads the file.
import { z } from 'zod';
import { describeJsonSyntaxError } from './jsonSyntax';
import { describeIssue, errorMessage, formatPath, type PathKey } from './manifestMessages';

/** The file's name beside the bundled manifests (it is not a manifest). */
export const VERIFIED_FILE_NAME = 'verified.json';

/** What one check of one release gave: passed, failed, or does not apply to this agent. */
const CheckResult = z.enum(['pass', 'fail', 'n/a']);

/** One release's results. Checks the matrix adds later are ignored here rather than refused. */
const ReleaseResultSchema = z.object({
  launch: CheckResult.describe('The agent started in a real terminal and reached its prompt.'),
  working: CheckResult.optional().describe('A turn showed as working.'),
  attention: CheckResult.optional().describe('A permission question showed as needing you.'),
  done: CheckResult.optional().describe('The end of a turn showed as done.'),
  failed: CheckResult.optional().describe('A failed turn showed as failed.'),
  resume: CheckResult.optional().describe('A relaunch continued the same conversation.'),
});

const VerifiedAgentSchema = z.object({
  package: z.string().min(1).describe('The npm package the releases are of, e.g. "@qwen-code/qwen-code".'),
  releases: z.record(z.string().min(1), ReleaseResultSchema).describe('Results by release version.'),
});

export const VerifiedFileSchema = z.object({
  generated: z.iso.datetime({ offset: true }).or(z.iso.date()).describe('When the matrix wrote the file (ISO date or time).'),
  agents: z.record(z.string().min(1), VerifiedAgentSchema).describe('By bundled agent id; an agent not here is not verified.'),
});

export type VerifiedFile = z.infer<typeof VerifiedFileSchema>;
export type VerifiedAgent = z.infer<typeof VerifiedAgentSchema>;
export type ReleaseResult = z.infer<typeof ReleaseResultSchema>;

/** What Termio says of one bundled agent: the releases whose every check passed (or did not
 *  apply), and those the matrix ran that failed a check, oldest first. */
export interface Verification {
  package: string;
  releases: string[];
  failed: string[];
}

/** The file's content, or one line saying what is wrong and where (prefixed with `label`). */
export function parseVerifiedFile(text: string, label: string): { ok: true; file: VerifiedFile } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `${label}: not valid JSON: ${describeJsonSyntaxError(text) ?? errorMessage(err).split('\n')[0]!}` };
  }
  const r = VerifiedFileSchema.safeParse(value);
  if (r.success) return { ok: true, file: r.data };
  const issue = r.error.issues[0]!;
  const path = issue.path.filter((k): k is PathKey => typeof k !== 'symbol');
  return { ok: false, error: `${label}: ${formatPath(path) || '(top level)'}: ${describeIssue(issue, path, value)}` };
}

/** An agent's verification: the releases the matrix ran it on, oldest first, split by whether
 *  every check passed; null when it ran none. */
export function verificationOf(file: VerifiedFile | null, agentId: string): Verification | null {
  const a = file?.agents[agentId];
  if (!a) return null;
  const all = Object.keys(a.releases).sort(compareVersions);
  const passed = (v: string) => Object.values(a.releases[v]!).every((r) => r === undefined || r === 'pass' || r === 'n/a');
  return all.length ? { package: a.package, releases: all.filter(passed), failed: all.filter((v) => !passed(v)) } : null;
}

/** What verifiedNote says of a bundled agent the matrix did not run. */
export const NOT_VERIFIED = 'not verified here';

/** How lists say it: "verified on 0.24.3, 0.24.4", "verified on 1.2; failed checks on 1.3",
 *  "failed checks on 0.170.0" (docs/agents.md says which), "not verified here", or null when
 *  there is nothing to say (the user's manifests, the plain Terminal: `undefined`). */
export function verifiedNote(v: Verification | null | undefined): string | null {
  if (v === undefined) return null;
  if (!v) return NOT_VERIFIED;
  const failed = v.failed.length ? `failed checks on ${v.failed.join(', ')}` : '';
  return v.releases.length ? `verified on ${v.releases.join(', ')}${failed ? `; ${failed}` : ''}` : failed;
}

/** Dotted versions by number where both parts are numbers ("0.9.1" before "0.10.0"), else as text. */
function compareVersions(a: string, b: string): number {
  const x = a.split(/[.-]/);
  const y = b.split(/[.-]/);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const [p, q] = [x[i] ?? '', y[i] ?? ''];
    if (p === q) continue;
    const [n, m] = [Number(p), Number(q)];
    if (p !== '' && q !== '' && Number.isInteger(n) && Number.isInteger(m)) return n - m;
    return p < q ? -1 : 1;
  }
  return 0;
}
