// One release's scenario in the release matrix (matrixRunner.ts): the throwaway HOME with its
// host (test/helpers/agentHome.ts), the loopback model server playing the matrix's script (the
// tool turn, then the recipe's failure), the session, and what its status said on the way, read
// by the steps in order.
import { randomBytes } from 'node:crypto';
import type { HostProcess } from '../../../src/app/host/hostProcess';
import type { SessionInfo } from '../../../src/protocol/sessionInfo';
import { AgentHome } from '../../helpers/agentHome';
import { startModelServer, type ModelServer } from '../../helpers/modelServer';
import { waitFor } from '../../helpers/waitFor';
import type { AgentRecipe } from './recipe';

/** One turn of a real CLI on the loopback model takes seconds; a cold start of a 300 MB binary
 *  on a loaded 2-core box much longer. Only a hung agent reaches this. */
export const TURN_TIMEOUT_MS = 120_000;

/** What `termio sessions why --json` prints. */
export interface Why {
  state: string;
  channel: string;
  event?: string;
  rule?: string;
  at: string;
  failure?: { kind: string; reason: string };
}

/** One release's scenario: its HOME, host and session, shared by its steps in order. */
export class Scenario {
  readonly word = `zephyr${randomBytes(3).toString('hex')}`;
  started = 0;
  /** The HOME, its environment and host (made at launch, once the CLI is installed). */
  agent: AgentHome | null = null;
  id = '';
  /** The permission question was answered (the done step needs it). */
  answered = false;
  /** "state event" of every hook report, across hosts. */
  readonly reports: string[] = [];
  readonly states: string[] = [];
  model: ModelServer | null = null;

  constructor(
    readonly recipe: AgentRecipe,
    readonly version: string,
  ) {}

  async setUp(cli: string): Promise<void> {
    const agent = (this.agent = new AgentHome(cli, `tm-${this.recipe.id}-`));
    // Every turn after the tool's fails: an agent that retries the failed turn in a shape the
    // server does not know as a retry (Claude Code 2.1.332 after a 400) gets the error again.
    this.model = await startModelServer({
      steps: [{ tool: 'touch probe.txt', reply: `Created it. ${this.word}` }, this.recipe.failure],
      then: this.recipe.failure,
    });
    Object.assign(agent.env, this.recipe.prepare({ home: agent.home, project: agent.project, modelUrl: this.model.url, cli, version: this.version }));
  }

  get host(): HostProcess | null {
    return this.agent?.host ?? null;
  }

  termio(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
    return this.agent!.termio(args);
  }

  termioJson<T>(args: string[]): Promise<T> {
    return this.agent!.termioJson<T>(args);
  }

  async startHost(): Promise<HostProcess> {
    const host = await this.agent!.startHost();
    host.registry.onStateChanged((c) => this.states.push(`${c.record.state} ${c.why}`));
    host.host.hooks.onReport((r) => this.reports.push(`${r.state} ${r.event}`));
    return host;
  }

  /** What the session shows now, as `termio sessions read` prints it. */
  async screen(): Promise<string> {
    return (await this.termio(['sessions', 'read', this.id])).stdout;
  }

  async session(): Promise<SessionInfo> {
    const list = await this.termioJson<{ sessions: SessionInfo[] }>(['sessions', 'list']);
    const s = list.sessions.find((x) => x.id === this.id);
    if (!s) throw new Error(`sessions list has no ${this.id}: ${list.sessions.map((x) => x.id).join(', ')}`);
    return s;
  }

  /** Waits until the screen matches, showing it when it never does. */
  async shows(re: RegExp, what: string): Promise<void> {
    let screen = '';
    await waitFor(
      async () => {
        screen = await this.screen();
        return re.test(screen);
      },
      { what: `${what} on screen (${re})`, timeout: TURN_TIMEOUT_MS, interval: 500 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nscreen:\n${screen}`);
    });
  }

  why(): Promise<Why> {
    return this.termioJson<Why>(['sessions', 'why', this.id]);
  }

  /** The recipe's `events` name hook events, or OSC 9;4 progress events (statusChannel
   *  'progress'), or screen rules (statusChannel 'screen'), which no hook reports: the session's
   *  state changes say them ("done progress: cleared", "working status: esc to interrupt").
   *  `channel` is how the recipe says it, `whyChannel` how `sessions why` does. */
  get channel(): 'hooks' | 'progress' | 'screen' {
    return this.recipe.statusChannel ?? 'hooks';
  }

  get whyChannel(): string {
    return this.channel === 'screen' ? 'status' : this.channel;
  }

  /** What `sessions why` names as the cause: for a screen-status agent its rule; else its event
   *  (a failure read off the screen beside hooks names both: its rule, and "failure on screen"). */
  named(why: Why): string | undefined {
    return this.channel === 'screen' ? (why.rule ?? why.event) : (why.event ?? why.rule);
  }

  /** The state change "<state> <channel>: <event>" (a failure's reason may follow) was seen. */
  changed(state: string, event: string): boolean {
    const change = `${state} ${this.whyChannel}: ${event}`;
    return this.states.some((x) => x === change || x.startsWith(`${change} (`));
  }

  /** `state` reported through the recipe's channel with `event`. */
  async saw(state: string, event: string): Promise<void> {
    if (this.channel === 'hooks') return this.reported(`${state} ${event}`);
    await waitFor(() => this.changed(state, event), {
      what: `the state change "${state} ${this.whyChannel}: ${event}" (states: ${this.states.slice(-6).join(', ') || 'none'})`,
      timeout: TURN_TIMEOUT_MS,
      interval: 200,
    });
  }

  /** A hook report of `event` (state and event, "done Stop") after the first `from` reports. */
  async reported(report: string, from = 0): Promise<void> {
    await waitFor(() => this.reports.slice(from).includes(report), {
      what: `the hook report "${report}" (reports: ${this.reports.slice(from).join(', ') || 'none'}; states: ${this.states.slice(-6).join(', ')})`,
      timeout: TURN_TIMEOUT_MS,
      interval: 200,
    });
  }

  /** Waits for the session's state, saying what it showed instead. */
  async state(state: string): Promise<void> {
    let last = '';
    await waitFor(
      async () => {
        const s = await this.session();
        last = `${s.state} (${s.stateWhy})`;
        return s.state === state;
      },
      { what: `state ${state}`, timeout: TURN_TIMEOUT_MS, interval: 500 },
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; it was ${last}\nscreen:\n${await this.screen()}`);
    });
  }

  async tearDown(): Promise<void> {
    await this.agent?.stopHost();
    await this.model?.close();
    this.model = null;
    await this.agent?.dispose();
  }
}

/** Types each startup dialog's keys once its screen shows, until `ready` holds. */
export async function untilReady(sc: Scenario, ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const pending = [...(sc.recipe.startup ?? [])];
  const exited = () => sc.host?.registry.get(sc.id)?.session.exited;
  await waitFor(
    async () => {
      if (await ready()) return 'ready';
      if (exited()) return 'exited';
      if (pending.length) {
        const screen = await sc.screen();
        const i = pending.findIndex((d) => d.screen.test(screen));
        if (i >= 0) {
          const [d] = pending.splice(i, 1);
          // Keystrokes, as the app's terminal sends them (`sessions send` pastes text into a TUI
          // that asked for bracketed paste, where an arrow key would be text).
          sc.host!.registry.get(sc.id)?.session.write(d!.keys);
        }
      }
      return null;
    },
    { what, timeout: TURN_TIMEOUT_MS, interval: 500 },
  )
    .then((o) => {
      if (o === 'exited') throw new Error(`the agent exited (${JSON.stringify(exited())}) before ${what}`);
    })
    .catch(async (e: Error) => {
      const asked = sc.model!.requests.map((q) => `${q.kind} ${q.status}${q.prompt ? ` "${q.prompt.slice(0, 40)}"` : ''}`);
      throw new Error(`${e.message}\nstates: ${sc.states.join(', ')}\nmodel requests: ${asked.join('; ')}\nscreen:\n${await sc.screen()}`);
    });
}
