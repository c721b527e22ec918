// Crash safety of the state file: a child process changes sessions through the StateStore as fast
// as it can and is killed with SIGKILL at a random moment, 100 times over the same file. After
// every kill the file must parse and hold exactly a state the child had produced (never a torn or
// mixed one), and never one older than a write the child saw complete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { transpileForChild, type Transpiled } from '../helpers/transpileForChild';
import { waitFor } from '../helpers/waitFor';

const KILLS = 100;
/** Longest random wait before the kill; long enough for ~10-60 writes, short enough for 100 rounds. */
const MAX_KILL_DELAY_MS = 60;
/** Each round starts a Node child: about 0.3 s on an idle machine, 1.5-2.5 s on a 2-core one with
 *  the rest of the suite and more beside it (180 s was missed there). 100 rounds at 3 s each. */
const KILLS_TIMEOUT_MS = KILLS * 3_000;

let code: Transpiled;
let dir: string;
beforeAll(() => {
  code = transpileForChild([
    'src/app/host/state/stateStore.ts',
    'src/app/host/state/stateFile.ts',
    'src/app/services/atomicWrite.ts',
    'src/app/services/log.ts',
    'src/app/services/processes.ts',
  ]);
  dir = mkdtempSync(join(tmpdir(), 'termio-crash-'));
});
afterAll(() => {
  code?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Same as the child's: keys sorted at every level. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : v;

function runAndKill(file: string, logFile: string, iteration: number, seed: number): Promise<void> {
  const child = spawn(
    process.execPath,
    [resolve(__dirname, '../fixtures/stateCrashChild.cjs'), code.path('src/app/host/state/stateStore.ts'), file, logFile, String(iteration), String(seed)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  return (async () => {
    await waitFor(() => out.includes('ready') || child.exitCode !== null, { what: `child ${iteration} to start` });
    expect(child.exitCode, `child ${iteration} died by itself`).toBeNull();
    await new Promise((res) => setTimeout(res, Math.random() * MAX_KILL_DELAY_MS));
    child.kill('SIGKILL');
    await exited;
  })();
}

describe('state file under SIGKILL', () => {
  it(
    `always holds a committed state after ${KILLS} kills at random points`,
    async () => {
      const file = join(dir, 'state', 'sessions.json');
      let everWritten = false;
      let tornTempFiles = 0;
      let statesSeen = 0;
      for (let i = 0; i < KILLS; i++) {
        const logFile = join(dir, `log-${i}`);
        const seed = (Math.random() * 2 ** 32) >>> 0;
        await runAndKill(file, logFile, i, seed);

        const lines = readFileSync(logFile, 'utf8').split('\n');
        expect(
          lines.filter((l) => l.startsWith('problem')),
          `round ${i} (seed ${seed}) found a damaged file`,
        ).toEqual([]);
        const produced = new Map<string, number>();
        let lastWritten = -1;
        for (const line of lines) {
          const [tag, idx, fp] = line.split(' ');
          if (tag === 's' && fp) produced.set(fp, Number(idx));
          if (tag === 'w') lastWritten = Number(idx);
        }
        if (lastWritten >= 0) everWritten = true;
        if (readdirSync(join(dir, 'state')).some((n) => n.includes('.tmp-'))) tornTempFiles++;
        if (!existsSync(file)) {
          expect(everWritten, `round ${i} (seed ${seed}): the file vanished after a write`).toBe(false);
          continue;
        }
        const parsed = JSON.parse(readFileSync(file, 'utf8'));
        expect(parsed.version).toBe(1);
        delete parsed.savedAt;
        const fp = createHash('sha1')
          .update(JSON.stringify(canonical(parsed)))
          .digest('hex');
        const idx = produced.get(fp);
        expect(idx, `round ${i} (seed ${seed}): the file holds a state the child never produced`).toBeDefined();
        expect(idx!, `round ${i} (seed ${seed}): the file is older than a completed write`).toBeGreaterThanOrEqual(lastWritten);
        statesSeen += produced.size;
      }
      expect(everWritten).toBe(true);
      // The run must actually have churned: on average many states per round.
      expect(statesSeen).toBeGreaterThan(KILLS * 3);
      console.info(`crash test: ${statesSeen} states over ${KILLS} kills; ${tornTempFiles} kills left a temp file (killed mid-write)`);
    },
    KILLS_TIMEOUT_MS,
  );
});
