// A repository's worktree set-up, `.termio/worktree.json`: files to copy from the main checkout
// (an .env git does not track) and commands to run (npm ci) in a new worktree before its agent
// starts. The steps run in the session's own terminal, so the user watches them; a failing step
// stops there with its message, and the agent is not started. It may also name the repository's
// test command, which a fan-out's compare view runs in each member's worktree.
import { readFileSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import * as z from 'zod';

export const SETUP_FILE = join('.termio', 'worktree.json');

/** Steps a set-up may list: far more than any real one, few enough to bound a broken file. */
const MAX_STEPS = 64;

const SetupSchema = z.strictObject({
  copy: z.array(z.string().min(1)).max(MAX_STEPS).default([]).describe('paths relative to the repository, copied into the new worktree'),
  run: z.array(z.string().min(1)).max(MAX_STEPS).default([]).describe('shell command lines run in the new worktree, in order'),
  test: z.string().trim().min(1).optional().describe("a shell command line that tests a worktree (exit status 0 = passed); a fan-out's compare view runs it"),
});
type SetupFile = z.infer<typeof SetupSchema>;

export interface SetupPlan {
  /** [from, to] absolute paths. */
  copy: Array<[string, string]>;
  run: string[];
}

export type SetupRead = { ok: true; plan: SetupPlan | null } | { ok: false; message: string };

/** The set-up file of a main checkout, parsed: null when there is none; a broken one is reported by file and field. */
function readSetupFile(repoRoot: string): { ok: true; file: string; data: SetupFile | null } | { ok: false; message: string } {
  const file = join(repoRoot, SETUP_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, file, data: null };
    return { ok: false, message: `cannot read ${file}: ${(err as Error).message}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `${file} is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = SetupSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      ok: false,
      message: `${file}: ${issue.path.join('.') || '(file)'}: ${issue.message} (expected {"copy": ["paths"], "run": ["commands"], "test": "command"})`,
    };
  }
  return { ok: true, file, data: parsed.data };
}

/** The repository's test command, if its set-up file names one. */
export function readTestCommand(repoRoot: string): { ok: true; command: string | null } | { ok: false; message: string } {
  const read = readSetupFile(repoRoot);
  return read.ok ? { ok: true, command: read.data?.test ?? null } : read;
}

/** Reads the set-up from the main checkout; none is fine, a broken one is reported by file and field. */
export function readSetup(repoRoot: string, worktree: string): SetupRead {
  const read = readSetupFile(repoRoot);
  if (!read.ok) return read;
  if (!read.data) return { ok: true, plan: null };
  const { file, data } = read;
  const copy: Array<[string, string]> = [];
  for (const p of data.copy) {
    const rel = normalize(p);
    if (isAbsolute(rel) || rel === '..' || rel.startsWith('../')) return { ok: false, message: `${file}: copy: '${p}' must be a path inside the repository` };
    copy.push([join(repoRoot, rel), join(worktree, rel)]);
  }
  if (copy.length === 0 && data.run.length === 0) return { ok: true, plan: null };
  return { ok: true, plan: { copy, run: data.run } };
}

// The script the session runs first. Arguments: the number of copies, then from/to pairs, the
// number of commands, the commands, then the program to exec. Each step is echoed before it runs.
const SETUP_SCRIPT = `
dim=$(printf '\\033[2m'); red=$(printf '\\033[31m'); off=$(printf '\\033[0m')
printf '%sTermio: setting up this worktree (.termio/worktree.json)%s\\n' "$dim" "$off"
n=$1; shift
while [ "$n" -gt 0 ]; do
  from=$1; to=$2; shift 2; n=$((n - 1))
  if [ -e "$from" ]; then
    printf '%scopy %s%s\\n' "$dim" "$from" "$off"
    mkdir -p -- "$(dirname -- "$to")" && cp -R -p -- "$from" "$to" || { printf '%sTermio: copying %s failed; the agent was not started.%s\\n' "$red" "$from" "$off"; exit 1; }
  else
    printf '%sskip %s (not in the main checkout)%s\\n' "$dim" "$from" "$off"
  fi
done
n=$1; shift
while [ "$n" -gt 0 ]; do
  cmd=$1; shift; n=$((n - 1))
  printf '%s$ %s%s\\n' "$dim" "$cmd" "$off"
  /bin/sh -c "$cmd"
  st=$?
  if [ "$st" -ne 0 ]; then
    printf '\\n%sTermio: the worktree set-up failed: "%s" exited with status %s; the agent was not started.%s\\n' "$red" "$cmd" "$st" "$off"
    exit "$st"
  fi
done
printf '%sTermio: set-up done%s\\n\\n' "$dim" "$off"
exec "$@"
`;

/** The argv that runs the set-up in the terminal, then becomes `program` (exec: same process). */
export function setupArgv(plan: SetupPlan, program: string[]): string[] {
  return ['/bin/sh', '-c', SETUP_SCRIPT, 'termio-setup', String(plan.copy.length), ...plan.copy.flat(), String(plan.run.length), ...plan.run, ...program];
}
