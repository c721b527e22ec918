// The host's side of the control socket: what `sessions.why`, `sessions.list`'s resume plans,
// `read --transcript`, `notify`, waits and `termio DIR` read from the host's services. The socket
// listens before those services exist (to find a running app first); until they are up, no session
// exists, so the synchronous answers have nothing to say and the asynchronous ones wait.
import type { StatusWhy } from '../../../protocol/status/sessionState';
import { ControlServer } from './controlServer';
import { failureInfo } from '../sessions/sessionFacts';
import type { QuestionBook } from '../status/questionBook';
import type { HostCore, HostOptions } from '../hostServices';
import type { ResumeService } from '../resume/resumeService';
import type { StateStore } from '../state/stateStore';
import type { ReviewComments } from '../worktrees/reviewComments';
import type { WorktreeService } from '../worktrees/worktreeService';
import type { FanoutGroups } from '../worktrees/fanoutGroups';
import { FanoutVerbs } from '../worktrees/fanoutVerbs';
import { WorktreeVerbs } from '../worktrees/worktreeVerbs';
import { HistoryVerbs } from '../history/historyVerbs';
import { SettingsVerbs } from './settingsVerbs';
import type { HistoryService } from '../history/historyService';
import type { AgentCatalog } from '../../services/catalog';
import type { SettingsStore } from '../../services/settings';

/** What the control socket asks of the host once its services are up. */
export interface ControlledHost {
  readonly store: StateStore;
  readonly resume: ResumeService;
  transcriptFor(id: string): Promise<string | undefined>;
  readyEvidence(id: string): boolean | undefined;
  promptHook(id: string): boolean;
  notifyFromSession(sessionId: string | null, title: string | undefined, text: string): Promise<void>;
  readonly worktrees: WorktreeService;
  readonly reviewComments: ReviewComments;
  /** The fan-out groups the host keeps. */
  readonly fanoutGroups: FanoutGroups;
  /** Why an agent cannot be started now, or null. */
  cannotStart(agent: string): Promise<string | null>;
  /** The PATH sessions start with: where `gh` is looked for. */
  readonly sessionPath: string;
  bypassFlagIn(argv: readonly string[]): { agent: string; flag: string } | null;
  bypassByDefault(agent: string | undefined): boolean;
  readonly questions: QuestionBook;
  /** The session the user is looking at (selected in the focused window), or null. */
  readonly lookingAt: string | null;
  /** The conversation index, or why it could not be opened. */
  readonly history: HistoryService | string;
  readonly catalog: AgentCatalog;
  readonly settings: SettingsStore;
  /** The login shell's PATH sessions start with (asked again when a start-up file changed). */
  loginPath(): Promise<{ path: string | null; source: string }>;
}

export function hostControlServer(
  core: HostCore,
  opts: HostOptions,
  up: { readonly value: ControlledHost | null; readonly promise: Promise<ControlledHost> },
): ControlServer {
  const { registry, tracker, notes } = core;
  return new ControlServer({
    paths: core.paths,
    registry,
    describe: (r) => core.facts.info(r),
    logger: opts.logger,
    onActivate: () => opts.onActivate?.(),
    describeStatus: (id) => {
      const s = tracker.status(id);
      if (!s) return undefined;
      const tool = notes.toolOf(id);
      const transcript = notes.transcriptOf(id);
      return {
        id,
        state: s.state,
        since: new Date(s.since).toISOString(),
        ...whyFields(s.why),
        health: [...s.health.map((h) => h.message), ...ignoredNote(tracker.lastIgnored(id))],
        tool,
        transcript,
      };
    },
    transcriptOf: async (id) => (await up.promise).transcriptFor(id),
    callerOf: (secret) => core.callers.callerOf(secret),
    // Asked before a spawn waits for the services: the catalog and settings are up once it answers.
    bypassFlagIn: async (argv) => (await up.promise).bypassFlagIn(argv),
    bypassByDefault: async (agent) => (await up.promise).bypassByDefault(agent),
    describeResume: async (id) => {
      const host = await up.promise;
      if (!host.store.getSession(id)) return undefined;
      const d = await host.resume.describe(id);
      return { family: d.family, boundId: d.boundId, boundFamily: d.boundFamily, argv: d.plan?.argv ?? null, mode: d.plan?.mode ?? null, why: d.why };
    },
    readyEvidence: (id) => up.value?.readyEvidence(id),
    remote: () => opts.remoteSessions?.() ?? null,
    ...worktreeVerbs(core, up),
    history: historyVerbs(core, opts, up),
    settings: settingsVerbs(core, opts, up),
    promptHook: (id) => up.value?.promptHook(id) ?? false,
    hookWork: (id) => tracker.workReports(id),
    questions: () => up.value?.questions,
    lookingAt: () => up.value?.lookingAt ?? null,
    onNotify: async (n) => (await up.promise).notifyFromSession(n.sessionId, n.title, n.text),
    onOpenDir: async (dir) => {
      const r = await registry.spawn({ cwd: dir });
      if (!r.ok) return { ok: false, code: r.code === 'badDirectory' ? 'badDirectory' : 'spawnFailed', message: r.message };
      registry.requestFocus(r.record.id);
      return { ok: true, id: r.record.id };
    },
  });
}

/** The review's and the fan-out's verbs, asking the host's services once they are up. */
function worktreeVerbs(core: HostCore, up: { readonly value: ControlledHost | null; readonly promise: Promise<ControlledHost> }) {
  const service = async () => (await up.promise).worktrees;
  const path = () => up.value?.sessionPath ?? process.env.PATH ?? '';
  return {
    worktrees: new WorktreeVerbs({ service, registry: core.registry, path, comments: async () => (await up.promise).reviewComments }),
    fanout: new FanoutVerbs({
      service,
      groups: async () => (await up.promise).fanoutGroups,
      registry: core.registry,
      cannotStart: async (agent) => (await up.promise).cannotStart(agent),
      path,
    }),
  };
}

/** The verbs of the state only the host writes, answered once its services are up. */
function settingsVerbs(core: HostCore, opts: HostOptions, up: { readonly promise: Promise<ControlledHost> }): SettingsVerbs {
  return new SettingsVerbs({
    settings: async () => (await up.promise).settings,
    catalog: async () => (await up.promise).catalog,
    loginPath: async () => (await up.promise).loginPath(),
    paths: core.paths,
    env: opts.env ?? process.env,
    logger: opts.logger,
  });
}

/** The history verbs, answered from the host's index once it is up. */
function historyVerbs(core: HostCore, opts: HostOptions, up: { readonly promise: Promise<ControlledHost> }): HistoryVerbs {
  return new HistoryVerbs({
    service: async () => (await up.promise).history,
    registry: core.registry,
    catalog: async () => (await up.promise).catalog,
    store: async () => (await up.promise).store,
    describe: (r) => core.facts.info(r),
    prices: async () => (await up.promise).settings.settings.prices,
    remote: () => opts.remoteSessions?.() ?? null,
  });
}

function whyFields(why: StatusWhy) {
  return {
    channel: why.channel,
    rule: why.rule,
    event: why.event,
    at: new Date(why.at).toISOString(),
    failure: why.failure ? failureInfo(why.failure) : undefined,
  };
}

function ignoredNote(ignored: { event: string; why: string; at: number } | null): string[] {
  return ignored ? [`not applied: ${ignored.event || 'a'} report ${ignored.why} at ${new Date(ignored.at).toISOString()}`] : [];
}
