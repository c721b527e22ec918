// Resume execution (docs/protocol.md, "Resume"): turns a persisted session into its launch plan with
// the facts only the host can look up, persists a pinned id before the agent runs, watches for a
// discovered record after a fresh launch or a forking resume (Continue's `--fork` goes on under a
// new id), and rebinds when a hook reports another conversation.
import { randomUUID } from 'node:crypto';
import {
  describeResume,
  planResume,
  resumeFamilyOf,
  type ResumeDescription,
  type ResumeFacts,
  type ResumeManifestInput,
  type ResumePlan,
  checkConversationId,
} from '../../../protocol/resumePlan';
import type { Disposable } from '../../../protocol/events';
import { commandLineProgram } from '../../../protocol/commandLine';
import { ResumeDiscovery, type DiscoveryBinding } from './resumeDiscovery';
import { findPinnedRecord, type PinnedLookup } from './resumeLookup';
import { seedSessionFile } from './resumeSeed';
import { nullLogger, type Logger } from '../../services/log';
import type { SavedSession, StateStore } from '../state/stateStore';

export interface ResumeServiceOptions {
  store: StateStore;
  /** The loaded manifest of an agent id, or null when none is loaded (the catalog). */
  manifestOf: (agentId: string) => ResumeManifestInput | null;
  /** Home folder for `~` in storeRoot and discover.root (the user's, or a test's). */
  home: string;
  logger?: Logger;
  /** Mints pinned conversation ids (tests pass a deterministic one). */
  mintId?: () => string;
  /** The pid of a session's agent, once it runs: discovery binds a record its process tree holds
   *  open, or one written and closed where no other process of the agent runs in the folder.
   *  Default: none known, so only hooks bind discovered ids. */
  processOf?: (sessionId: string) => number | undefined;
  /** Told when a discovered record or a hook binds a session (e.g. to refresh a listing). */
  onBound?: (e: { sessionId: string; conversationId: string; how: 'discovered' | 'hook' }) => void;
}

export type ResumeLaunch = ResumePlan & {
  /** When the launch may start (after the discovery watcher is ready); Date.now() otherwise. */
  launchedAt: number;
};

export type ResumeLaunchError = { kind: 'resumeError'; message: string };

export type RebindResult = { kind: 'rebound'; previous: string | null } | { kind: 'unchanged' } | { kind: 'rejected'; message: string };

export class ResumeService {
  readonly discovery: ResumeDiscovery;
  private readonly tracking = new Map<string, Disposable>();
  private readonly logger: Logger;
  private readonly mintId: () => string;

  constructor(private readonly opts: ResumeServiceOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.mintId = opts.mintId ?? randomUUID;
    this.discovery = new ResumeDiscovery({
      home: opts.home,
      logger: this.logger,
      boundSessionOf: (cid) => opts.store.state.sessions.find((s) => s.conversationId === cid)?.id ?? null,
      processOf: opts.processOf ?? (() => undefined),
      onBind: (b) => this.handleDiscovered(b),
    });
  }

  /** Looks up what planning needs: for a pinned session with a bound id, whether its record exists. */
  async factsFor(record: SavedSession, manifest: ResumeManifestInput): Promise<{ facts: ResumeFacts; lookup: PinnedLookup | null }> {
    const spec = manifest.resume;
    if (resumeFamilyOf(spec) !== 'pinned' || record.conversationId === null || !spec?.storeRoot || !spec.storeMatch) {
      return { facts: {}, lookup: null };
    }
    if (checkConversationId(record.conversationId) !== null) return { facts: { pinnedRecordExists: false }, lookup: null };
    const lookup = await findPinnedRecord({ storeRoot: spec.storeRoot, storeMatch: spec.storeMatch }, record.conversationId, { home: this.opts.home });
    if (lookup.kind === 'lookupError') this.logger.warn('resume: store lookup failed', { agentId: record.agentId, message: lookup.message });
    if (lookup.kind === 'absent' && lookup.truncated)
      this.logger.warn('resume: store search truncated', { agentId: record.agentId, dirs: lookup.dirsSearched });
    return { facts: { pinnedRecordExists: lookup.kind === 'found' }, lookup };
  }

  /**
   * The plan to launch a session with, ready to spawn: a pinned id is persisted before this
   * returns (a crash after the agent wrote its record must not lose the id), and a discovered
   * launch is being watched for. Spawn right after this resolves, then call
   * sessionEnded() when the agent exits or the tab closes.
   */
  async prepareLaunch(sessionId: string): Promise<ResumeLaunch | ResumeLaunchError> {
    const record = this.opts.store.getSession(sessionId);
    if (!record) throw new Error(`ResumeService: no session ${sessionId}`);
    const manifest = this.opts.manifestOf(record.agentId);
    if (!manifest)
      return {
        kind: 'resumeError',
        message: `No agent manifest with id ${JSON.stringify(record.agentId)} is loaded, so session ${sessionId} cannot be launched.`,
      };
    this.sessionEnded(sessionId);
    const { facts, lookup } = await this.factsFor(record, manifest);
    const plan = annotate(planResume(manifest, record, { ...facts, newId: this.mintId() }), lookup);

    if (plan.family === 'pinned' && plan.conversationId !== null && (plan.conversationId !== record.conversationId || record.family !== 'pinned')) {
      const family = plan.mode === 'create' ? 'pinned' : (record.family ?? 'pinned');
      this.opts.store.bindConversation(sessionId, plan.conversationId, family);
    }
    const spec = manifest.resume;
    if (
      plan.family === 'pinned' &&
      plan.mode === 'create' &&
      plan.conversationId !== null &&
      spec?.seed === 'session-file' &&
      spec.storeRoot &&
      spec.storeMatch
    ) {
      const seeded = seedSessionFile({ storeRoot: spec.storeRoot, storeMatch: spec.storeMatch }, plan.conversationId, record.cwd, this.opts.home);
      if (seeded.kind === 'seedError') this.logger.warn('resume: seed failed', { sessionId, message: seeded.message });
      else this.logger.info('resume: seed', { sessionId, result: seeded.kind, path: seeded.path });
    }
    let launchedAt = Date.now();
    const discover = manifest.resume?.discover;
    // A launch that starts a new record is watched for it: a fresh one, and a resume that forks
    // (manifest resume.forks: Continue's --fork goes on under a new id, the one the next relaunch
    // must resume). An agent that resumes in place (Codex, OpenCode) keeps its bound id: not watched.
    const startsRecord = plan.mode === 'fresh' || (plan.mode === 'resume' && manifest.resume?.forks === true);
    if (plan.family === 'discovered' && startsRecord && discover) {
      const program = manifest.command ? commandLineProgram(manifest.command) : undefined;
      const t = await this.discovery.track({ sessionId, cwd: record.cwd, discover, program });
      this.tracking.set(sessionId, t);
      launchedAt = t.launchedAt;
    }
    this.logger.info('resume: launch plan', { sessionId, mode: plan.mode, family: plan.family, argv: plan.argv });
    return { ...plan, launchedAt };
  }

  /**
   * Opens the discovery watchers of these manifests now (call at app start), so the first fresh
   * launch of a discovered agent does not wait for its store's initial walk.
   */
  async warm(manifests: ResumeManifestInput[]): Promise<void> {
    await Promise.all(manifests.map((m) => (m.resume?.discover ? this.discovery.warm(m.resume.discover) : undefined)));
  }

  /** The agent exited or the tab closed: stop waiting for its record. */
  sessionEnded(sessionId: string): void {
    this.tracking.get(sessionId)?.dispose();
    this.tracking.delete(sessionId);
  }

  /**
   * A hook reported the session's conversation id. A different id than the bound one (the user
   * ran /clear or /new, or discovery had not bound yet) rebinds, persisted at once.
   */
  rebind(sessionId: string, conversationId: string): RebindResult {
    const record = this.opts.store.getSession(sessionId);
    if (!record) return { kind: 'rejected', message: `no session ${sessionId}` };
    const bad = checkConversationId(conversationId);
    if (bad) {
      this.logger.warn('resume: refused a reported conversation id', { sessionId, reason: bad });
      return { kind: 'rejected', message: bad };
    }
    this.discovery.settle(sessionId, conversationId);
    this.tracking.delete(sessionId);
    if (record.conversationId === conversationId) return { kind: 'unchanged' };
    // The agent minted this id (Termio's minted ids are already bound), so it is 'discovered'
    // whatever the manifest's family: a pinned relaunch resumes it but never creates under it.
    this.opts.store.bindConversation(sessionId, conversationId, 'discovered');
    this.logger.info('resume: rebound by hook', { sessionId, from: record.conversationId, to: conversationId });
    this.opts.onBound?.({ sessionId, conversationId, how: 'hook' });
    return { kind: 'rebound', previous: record.conversationId };
  }

  /** For `termio sessions list --json`: family, bound id and the exact argv a relaunch would use. */
  async describe(sessionId: string): Promise<ResumeDescription> {
    const record = this.opts.store.getSession(sessionId);
    if (!record) throw new Error(`ResumeService: no session ${sessionId}`);
    const manifest = this.opts.manifestOf(record.agentId);
    if (!manifest) return describeResume(record, null);
    const { facts } = await this.factsFor(record, manifest);
    return describeResume(record, manifest, facts);
  }

  dispose(): void {
    for (const t of this.tracking.values()) t.dispose();
    this.tracking.clear();
    this.discovery.dispose();
  }

  private handleDiscovered(b: DiscoveryBinding): void {
    this.tracking.delete(b.sessionId);
    if (!this.opts.store.getSession(b.sessionId)) return; // Closed meanwhile.
    this.opts.store.bindConversation(b.sessionId, b.conversationId, 'discovered');
    this.opts.onBound?.({ sessionId: b.sessionId, conversationId: b.conversationId, how: 'discovered' });
  }
}

function annotate(plan: ResumePlan, lookup: PinnedLookup | null): ResumePlan {
  if (lookup?.kind === 'lookupError') return { ...plan, why: `${plan.why} (The store could not be searched: ${lookup.message}.)` };
  if (lookup?.kind === 'absent' && lookup.truncated) return { ...plan, why: `${plan.why} (The store search stopped after ${lookup.dirsSearched} folders.)` };
  return plan;
}
