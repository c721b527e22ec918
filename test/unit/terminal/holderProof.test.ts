// The proof that the pids a holder's hello names are its own and its agent's (holderProof.ts),
// against real processes and a real listening socket: the Linux branch (/proc) and the macOS
// branch (`ps`, whose options Linux's ps takes too), so the branch a Mac runs is tested here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holderPidsProblem } from '../../../src/terminal/node/holderProof';
import { waitForExit } from '../../helpers/processes';

let dir: string;
let server: Server | null;
let children: ChildProcess[];
let orphans: number[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'termio-holderproof-'));
  server = null;
  children = [];
  orphans = [];
});

afterEach(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const pid of orphans) process.kill(pid, 'SIGKILL');
  for (const pid of [...children.map((c) => c.pid!), ...orphans]) await waitForExit(pid, 'a test process to end');
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

/** A `sleep` child of this process: what a holder's agent is to its holder. */
function child(): number {
  const c = spawn('sleep', ['300'], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

/** A `sleep` that is no child of this process (its shell went; it was reparented). */
function notAChild(): number {
  const pid = Number(spawnSync('sh', ['-c', 'sleep 300 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).stdout.trim());
  orphans.push(pid);
  return pid;
}

/** A socket this process listens on, as a holder does on its own. */
async function listening(): Promise<string> {
  const path = join(dir, 'holder.sock');
  server = createServer();
  await new Promise<void>((r) => server!.listen(path, r));
  return path;
}

describe.each(['linux', 'darwin'] as const)('on %s', (platform) => {
  it('holds for a holder and its own child', async () => {
    expect(holderPidsProblem(await listening(), process.pid, child(), false, platform)).toBeNull();
  });

  it("refuses an agent that is not the holder's child, naming both", async () => {
    const victim = notAChild();
    expect(holderPidsProblem(await listening(), process.pid, victim, false, platform)).toBe(
      `process ${victim}, which its hello names as the agent, is not a child of holder ${process.pid}`,
    );
  });

  it('refuses a holder pid that names no process of its own (0, 1, not an integer)', async () => {
    const path = await listening();
    for (const pid of [0, 1, -5, 1.5, Number.NaN]) expect(holderPidsProblem(path, pid, child(), false, platform)).toBe(`its hello names holder pid ${pid}`);
  });

  it('does not look for the agent once it exited (its holder reaped it)', async () => {
    expect(holderPidsProblem(await listening(), process.pid, 999_999_999, true, platform)).toBeNull();
  });
});

describe('on Linux, the holder must be the process listening on the socket', () => {
  it('refuses a holder pid that does not listen on the path, even with its child as the agent', async () => {
    const path = join(dir, 'nobody.sock');
    expect(holderPidsProblem(path, process.pid, child(), false, 'linux')).toBe(
      `process ${process.pid}, which its hello names as the holder, does not listen on ${path}`,
    );
  });

  it('refuses a holder pid of another process than the one listening on the socket', async () => {
    const path = await listening();
    const other = child();
    expect(holderPidsProblem(path, other, child(), false, 'linux')).toBe(`process ${other}, which its hello names as the holder, does not listen on ${path}`);
  });
});
