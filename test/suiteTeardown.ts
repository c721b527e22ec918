// The suite leaves nothing running. Before any test, every test process gets a private temporary
// folder (TMPDIR, which os.tmpdir() reads), so each temporary HOME and TERMIO_HOME a test makes
// lies under it; after the last test, any process whose environment still points there (an app,
// a host, a shell, a daemon that left its session like Codex's `app-server`, an Xvfb) is listed,
// ended, and fails the run: the list goes to stderr and to test-output/leftover-processes.txt,
// which `npm test` (scripts/setup.mjs) also reads.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const reportFile = resolve(__dirname, '..', 'test-output', 'leftover-processes.txt');
/** A test's own cleanup may still be reaping its last child as the run ends: up to this long. */
const SETTLE_MS = 5_000;
/** How often /proc is read meanwhile. */
const POLL_MS = 100;

interface Leftover {
  pid: number;
  command: string;
  why: string;
}

/** Why this process belongs to the suite (its environment points into the suite's folder), or null. */
function belongs(pid: number, dir: string): string | null {
  let env: string[];
  try {
    env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
    if (readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')) return null;
  } catch {
    return null; // gone, or not ours to read
  }
  const hit = env.find((kv) => /^(TMPDIR|HOME|TERMIO_HOME|XDG_RUNTIME_DIR)=/.test(kv) && (kv.slice(kv.indexOf('=') + 1) + '/').startsWith(`${dir}/`));
  return hit ?? null;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ').slice(0, 200);
  } catch {
    return '?';
  }
}

/** The test runner itself and its workers are not leftovers. */
function isRunner(pid: number, cmd: string): boolean {
  return pid === process.pid || /node_modules\/(vitest|tinypool)\/|vitest\/dist\//.test(cmd);
}

export function leftoverProcesses(dir: string): Leftover[] {
  const out: Leftover[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const why = belongs(pid, dir);
    if (!why) continue;
    const command = commandOf(pid);
    if (!isRunner(pid, command)) out.push({ pid, command, why });
  }
  return out;
}

async function settle(dir: string): Promise<Leftover[]> {
  const deadline = Date.now() + SETTLE_MS;
  let left = leftoverProcesses(dir);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    left = leftoverProcesses(dir);
  }
  return left;
}

export function setup(): () => Promise<void> {
  // Short: unix socket paths under a test's TERMIO_HOME must stay within the 108-byte limit.
  const dir = mkdtempSync(join(tmpdir(), 'ts-'));
  process.env.TMPDIR = dir;
  rmSync(reportFile, { force: true });
  return async () => {
    if (process.platform !== 'linux') {
      rmSync(dir, { recursive: true, force: true });
      return;
    }
    const left = await settle(dir);
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    if (left.length === 0) return;
    const lines = left.map((p) => `pid ${p.pid} (${p.why}): ${p.command}`);
    mkdirSync(resolve(reportFile, '..'), { recursive: true });
    writeFileSync(reportFile, `${lines.join('\n')}\n`);
    process.exitCode = 1;
    throw new Error(`the suite left ${left.length} process(es) running (ended now):\n  ${lines.join('\n  ')}`);
  };
}
