// Keeps what the user reads in step with the session registry: every window's sidebar and why
// strip, and the tray, brought up to date once per burst of registry events (one microtask).
import { homedir } from 'node:os';
import { TERMINAL_AGENT_ID } from '../services/agentIds';
import type { AppHost } from '../client/appHost';
import type { Logger } from '../services/log';
import type { AppSessionRecord } from '../client/remoteRegistry';
import { buildSidebar, type SessionSummary } from '../present/sidebarModel';
import type { MachineInfo } from '../../protocol/machines';
import { trayAgents, trayItems } from './presenters/trayText';
import { whyText } from '../present/whyText';
import { conversationCostText } from '../present/usageText';
import type { SessionWindows } from './sessionWindows';
import type { Tray } from './tray';

export interface ViewSyncOptions {
  host: AppHost;
  windows: SessionWindows;
  tray: Tray;
  log: Logger;
  /** Quitting: windows are going away, nothing is redrawn. */
  stopped(): boolean;
}

/** "reconnecting in N s" counts whole seconds. */
const AWAY_TICK_MS = 1_000;

export class ViewSync {
  private queued = false;
  /** For bench/window.mjs: when the oldest state change not yet shown came. */
  private changePendingSince: number | null = null;

  /** The cost so far of each session's conversation, as the host's index last said, and the
   *  session's state it was asked in. */
  private readonly costs = new Map<string, { asked: string; text: string }>();

  /** Ticks once a second while a machine is away, so its rows count down to the next try. */
  private awayTicker: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ViewSyncOptions) {
    opts.host.onMachinesChanged((machines) => {
      const away = machines.some((m) => m.state !== 'connected' && m.sessions > 0);
      if (away && !this.awayTicker) this.awayTicker = setInterval(() => this.refresh(), AWAY_TICK_MS);
      if (!away && this.awayTicker) {
        clearInterval(this.awayTicker);
        this.awayTicker = null;
      }
      this.refresh();
    });
  }

  /** A session changed state: the next refresh logs how long it took to show. */
  stateChanged(): void {
    this.changePendingSince ??= performance.now();
    this.refresh();
  }

  /** Brings sidebars and tray up to date, once per burst of registry events. */
  refresh(): void {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      if (this.opts.stopped()) {
        if (this.awayTicker) clearInterval(this.awayTicker);
        this.awayTicker = null;
        return;
      }
      this.sync();
    });
  }

  /** "Working — hook PreToolUse, 3s ago" (+ health notes) for a session, '' for an unknown one. */
  whyText(id: string): string {
    const host = this.opts.host;
    const r = host.registry.get(id);
    if (!r) return '';
    const why = whyText({ state: r.state, stateWhy: r.stateWhy, status: r.status ?? undefined, tool: r.tool ?? undefined, now: Date.now() });
    const cost = this.conversationCost(r);
    return cost ? `${why} · ${cost}` : why;
  }

  /** What the session's conversation cost so far, from the host's index ('' until the host
   *  answers, and while the tab is bound to no conversation). */
  private conversationCost(r: AppSessionRecord): string {
    // A session on another machine: its index is there, under that host's own session id.
    if (!r.agentId || r.machine) return '';
    // Asked again when its state changes: a turn that ended added to it.
    const asked = r.state;
    const known = this.costs.get(r.id);
    if (known?.asked === asked) return known.text;
    this.costs.set(r.id, { asked, text: known?.text ?? '' });
    void this.opts.host.history('usage', { by: 'agent', session: r.id }).then((a) => {
      this.opts.log.debug('conversation cost', { id: r.id, ...(a.ok ? { total: a.result.total } : { message: a.message }) });
      if (!a.ok || this.costs.get(r.id)?.asked !== asked) return;
      this.costs.set(r.id, { asked, text: conversationCostText(a.result.total) });
      this.refresh();
    });
    return known?.text ?? '';
  }

  private sync(): void {
    const { host, windows, log } = this.opts;
    const agentName = (id: string | null): string => host.agentName(id);
    const all = host.registry.list();
    const needsYouFirst = host.settings.settings.sessions.needsYouFirst;
    for (const id of this.costs.keys()) if (!host.registry.get(id)) this.costs.delete(id);
    for (const win of windows.windows) {
      win.setSessions(buildSidebar(this.summaries(windows.sessionsOf(win, all)), agentName, homedir(), { needsYouFirst }));
      const why = win.currentSession ? this.whyText(win.currentSession) : '';
      if (win.setWhy(why)) log.debug('why shown', { text: why });
    }
    if (this.changePendingSince !== null) {
      log.debug('sidebar updated', { ms: +(performance.now() - this.changePendingSince).toFixed(2) });
      this.changePendingSince = null;
    }
    this.opts.tray.update(
      trayItems(all, agentName, (id) => host.agent(id)?.iconFile, homedir()),
      trayAgents(host.enabledAgents(), TERMINAL_AGENT_ID),
    );
  }

  /** What the sidebar model needs of each session: registry record, agent icon, progress. */
  private summaries(records: AppSessionRecord[]): SessionSummary[] {
    const { host } = this.opts;
    return records.map((r) => {
      const agent = host.agent(r.agentId);
      const progress = r.progress;
      return {
        id: r.id,
        agentId: r.agentId,
        cwd: r.cwd,
        title: r.title,
        state: r.state,
        stateSince: r.stateSince,
        waitingSince: r.waitingSince,
        createdAt: r.createdAt,
        exited: r.session.exited,
        parentId: r.parentId,
        stalled: r.stalledSince !== null,
        failure: r.status?.why.failure ? r.status.why.failure.reason : undefined,
        iconFile: agent?.iconFile || undefined,
        iconTint: agent?.manifest.icon?.tint || undefined,
        progress: progress ?? undefined,
        machine: r.machine || undefined,
        ...(r.reachable === false
          ? {
              away: awayText(
                host.machines.find((m) => m.name === r.machine),
                Date.now(),
              ),
            }
          : {}),
        worktree: r.worktree ? { branch: r.worktree.branch, repo: r.worktree.repo, changed: r.worktree.changed } : undefined,
      };
    });
  }
}

/** What a dropped machine's row says after its last known state (its heading names the machine):
 *  "away, retry in 4 s". */
export function awayText(m: MachineInfo | undefined, now: number): string {
  if (!m) return 'machine removed';
  if (m.state === 'versionMismatch' || m.state === 'noTermio' || m.state === 'sameMachine') return `away: ${m.state}`;
  return m.retryAt !== null ? `away, retry in ${Math.max(0, Math.ceil((m.retryAt - now) / 1000))} s` : 'away, reconnecting';
}
