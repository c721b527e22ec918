// A real agent CLI under a real termio-host (in this process), in a throwaway HOME as a user would
// have it: the project folder inside HOME, the session environment with the CLI on PATH, its own
// TMPDIR, `termio hooks install` for the agent, and the host. Shared by the release matrix
// (test/integration/agents/matrixRunner.ts) and the host tests that run one real CLI. dispose()
// ends the host and whatever the CLI left running with this HOME (Codex's app-server daemon,
// Cline's hub daemon), removes HOME, and fails if anything would not end.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { HostProcess } from '../../src/app/host/hostProcess';
import { createLogger } from '../../src/app/services/log';
import { termio } from './controlHost';
import { endProcessesWithHome, processesWithHome } from './processes';

/** One `termio` command answers in a second or two; a loaded machine can starve a Node cold start. */
export const CLI_TIMEOUT_MS = 60_000;

export class AgentHome {
  /** The throwaway HOME (realpath: real CLIs report their cwd without symlinks). */
  readonly home: string;
  /** The folder sessions start in (inside home, not a git repository). */
  readonly project: string;
  /** The session's PATH: the CLI's folder first, then node's. */
  readonly path: string;
  /** The session environment; a caller adds the agent's own settings to it before startHost. */
  readonly env: NodeJS.ProcessEnv;
  host: HostProcess | null = null;
  private readonly tmp: string;

  /** `cli` is the installed CLI's executable; `prefix` names the temporary HOME. */
  constructor(cli: string, prefix: string) {
    this.home = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    // Kept short: the host's socket paths are made under it. What the CLI writes to its temporary
    // folder goes with the HOME.
    this.tmp = mkdtempSync(join(tmpdir(), 'tt-'));
    this.project = join(this.home, 'project');
    mkdirSync(this.project);
    this.path = `${dirname(cli)}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
    this.env = {
      HOME: this.home,
      TERMIO_HOME: join(this.home, '.termio'),
      PATH: this.path,
      SHELL: '/bin/sh',
      LANG: 'C.UTF-8',
      TERMIO_HOST_IDLE_MS: '0',
      TMPDIR: this.tmp,
    };
  }

  /** Runs the built bin/termio in this HOME. */
  termio(args: string[], timeoutMs = CLI_TIMEOUT_MS): Promise<{ status: number; stdout: string; stderr: string }> {
    return termio(args, this.env, this.home, timeoutMs);
  }

  /** `termio … --json`, parsed; a failure (exit code, no JSON) throws with what it printed. */
  async termioJson<T>(args: string[], timeoutMs = CLI_TIMEOUT_MS): Promise<T> {
    const r = await this.termio([...args, '--json'], timeoutMs);
    if (r.status !== 0) throw new Error(`termio ${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** `termio hooks install --agent <agent>`, which must succeed without a word on stderr. */
  async installHooks(agent: string): Promise<void> {
    const hooks = await this.termio(['hooks', 'install', '--agent', agent, '--json']);
    expect(hooks.stderr).toBe('');
    expect(hooks.status).toBe(0);
  }

  async startHost(): Promise<HostProcess> {
    const started = await HostProcess.start({ env: this.env, logger: createLogger(join(this.home, 'host.log')), idleExitMs: 0, path: this.path });
    if (!started.ok) throw new Error(`the host did not start: ${started.message}`);
    this.host = started.host;
    return started.host;
  }

  /** Stops the host; with keepAgents its holders keep the agents running for the next host. */
  async stopHost(keepAgents = false): Promise<void> {
    const host = this.host;
    this.host = null;
    await host?.stop(keepAgents ? 'test: host restart' : 'test over', { keepAgents });
  }

  /** Ends the host and everything running with this HOME, removes it, then fails if anything
   *  would not end. Safe to call twice. */
  async dispose(): Promise<void> {
    await this.stopHost();
    await endProcessesWithHome(this.home);
    const left = processesWithHome(this.home);
    rmSync(this.home, { recursive: true, force: true });
    rmSync(this.tmp, { recursive: true, force: true });
    expect(left, 'processes still running with the throwaway HOME').toEqual([]);
  }
}
