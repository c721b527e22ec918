// The session host as the Qt app sees it: its sessions, the agents to start, the settings, and
// the requests behind what the user does. The UI is typed against this contract, not against the
// connection that serves it (RemoteHost over the local socket today).
import type { Event } from '../../protocol/events';
import type { ControlArgs, ControlResult } from '../../protocol/control';
import type { AppSnapshot, HostProblem, ReviewVerb } from '../../protocol/hostAppMessages';
import type { MachineInfo } from '../../protocol/machines';
import type { CatalogEntry, AgentCatalog } from '../services/catalog';
import type { AgentHookResult } from '../services/hookResult';
import type { TermioPaths } from '../services/paths';
import type { SettingsFile } from '../services/settingsFile';
import type { AppSessionRecord, RemoteRegistry } from './remoteRegistry';

export type LaunchResult = { ok: true; record: AppSessionRecord } | { ok: false; message: string };

export type { ReviewVerb };
/** The fan-out verbs the picker and the compare view ask (as `termio sessions fanout …` does). */
export type FanoutVerb = 'sessions.fanout' | 'sessions.fanout.list' | 'sessions.fanout.show' | 'sessions.fanout.test' | 'sessions.fanout.merge';
/** The conversation-history verbs the Usage window and the History pane ask (as `termio history|usage`). */
export type HistoryVerb = 'history.search' | 'history.resume' | 'history.status' | 'usage';
export type ReviewResult<V extends ReviewVerb | FanoutVerb | HistoryVerb> =
  { ok: true; result: ControlResult<V> } | { ok: false; code: string; message: string };

export interface AppHost {
  readonly paths: TermioPaths;
  /** Every session the host runs, kept current by its events. */
  readonly registry: RemoteRegistry;
  /** settings.json as this process reads it (kept current by a watch); changed with setSetting. */
  readonly settings: SettingsFile;
  readonly catalog: AgentCatalog;
  /** Problems found at the host's start and since (a corrupt state file, a hook launcher it could not write). */
  readonly problems: HostProblem[];
  /** The host asks the app to come forward (a second launch, `termio DIR`). */
  onActivate: () => void;
  /** The host asks the app to show a notification through its tray. */
  onNotify: (title: string, body: string, session: string | null) => void;
  /** The connection to the host is gone (told once). */
  onHostLost: (why: string) => void;

  /** Subscribes to the host's sessions: a snapshot, then events; `restore` relaunches saved tabs. */
  subscribe(restore: boolean, notifier: 'tray' | 'host'): Promise<AppSnapshot | { error: string }>;
  /** A new connection after the host was lost (it is started again if need be). */
  reconnect(): Promise<boolean>;
  /** Asks the app already subscribed to come forward (this launch then exits). */
  activateOther(): Promise<void>;
  /** Saved windows in order. */
  savedWindows(): string[];

  agent(id: string | null | undefined): CatalogEntry | undefined;
  agentName(id: string | null | undefined): string;
  /** The agents in the picker's order, and those enabled. */
  orderedAgents(): CatalogEntry[];
  enabledAgents(): CatalogEntry[];
  /** Looks again at which agents are installed (the picker opened): an agent installed since, or
   *  on a PATH the login shell exports since its start-up files changed, shows at once. */
  refreshAgents(): Promise<void>;
  /** Changes one setting through the host, which writes settings.json (`termio settings set` asks
   *  the same verb); resolves with its refusal, or null once written. */
  setSetting(path: string[], value: unknown): Promise<string | null>;
  moveAgent(id: string, delta: -1 | 1): Promise<void>;
  /** An agent's hook entries as the host last checked them (null: not checked, or no hooks). */
  hookStatus(agentId: string): AgentHookResult | null;
  /** Asks the host to check (and repair) every agent's hook entries. */
  refreshHooks(): Promise<void>;
  /** The host installs or removes an agent's hook entries (with its skill and MCP server). */
  setHooks(agentId: string, on: boolean): Promise<AgentHookResult | null>;

  /** The window new sessions go to. */
  set activeWindowId(id: string);
  /** Which session the user is looking at (for notifications and done → idle). */
  setLookingAt(id: string | null): void;
  /** worktree: in a new git worktree of the repository cwd is in. */
  /** `machine`: a saved machine to start it on (cwd is a folder there); null or absent: this one. */
  launch(agentId: string | null, cwd: string, bypass: boolean, windowId: string, worktree?: boolean, machine?: string | null): Promise<LaunchResult>;
  /** The review view's worktree verbs (as `termio sessions diff|commit|merge|rebase|close`). */
  review<V extends ReviewVerb>(verb: V, args: ControlArgs<V>): Promise<ReviewResult<V>>;
  /** The fan-out verbs, answered by the host's control verb table (the CLI's and MCP's too). */
  fanout<V extends FanoutVerb>(verb: V, args: ControlArgs<V>): Promise<ReviewResult<V>>;
  /** The history verbs, answered by the host's control verb table (the CLI's too). */
  history<V extends HistoryVerb>(verb: V, args: ControlArgs<V>): Promise<ReviewResult<V>>;
  relaunch(id: string): Promise<boolean>;
  rename(id: string, title: string): void;
  notificationClicked(session: string | null): void;
  /** The saved machines and their connections, as the host last said, and when that changes. */
  readonly machines: MachineInfo[];
  readonly onMachinesChanged: Event<MachineInfo[]>;
  /** Saves a machine, or forgets one; resolves with the host's refusal, or null when done. */
  addMachine(m: { name: string; target: string; port?: number; identity?: string }): Promise<string | null>;
  removeMachine(name: string): Promise<string | null>;
  /** What ssh asks while the host connects a machine (a passphrase, a code), and when that
   *  question is over; answered (or cancelled: null) with answerAsk. Never stored. */
  readonly onAskpass: Event<{ id: string; machine: string; prompt: string }>;
  readonly onAskpassDone: Event<string>;
  answerAsk(id: string, answer: string | null): Promise<boolean>;
  /** A choice of a waiting question picked in the tray; what the host did with it. */
  answer(session: string, question: string, choice: number): Promise<{ answered: boolean; message: string }>;
  /** Ends every session (their tabs stay saved for exact resume) and stops the host. */
  endSessions(): Promise<void>;
  dispose(): void;
}
