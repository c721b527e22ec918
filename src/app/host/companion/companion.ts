// The web companion as a host service: follows the `companion` settings (off by default;
// loopback unless the user chose the local network), runs the HTTP + WebSocket server while
// enabled, keeps every paired page's session list live, and revokes (a fresh token, every page
// dropped). startCompanion(deps) is the one entry point the host calls; deps is all it needs
// of the host, so the host can change around it.
import { waitingSinceMs } from '../../../protocol/attentionQueue';
import { readFileSync, statSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import type { WebSocket } from 'ws';
import {
  CLOSE_HOST_STOPPING,
  CLOSE_REVOKED,
  type CompanionServerMessage,
  type CompanionStatus,
  type PageAgent,
  type PageAnswerRefusal,
  type PageHistoryHit,
  type PageQuestion,
  type PageSession,
  type PageTheme,
} from '../../../protocol/companion';
import type { QuestionBook, SessionQuestion } from '../status/questionBook';
import type { Disposable, Event } from '../../../protocol/events';
import type { QuestionInfo, SessionInfo } from '../../../protocol/sessionInfo';
import { cssHex, darkTheme, lightTheme, type Theme } from '../../../terminal/common';
import { installPath } from '../../services/install';
import type { Logger } from '../../services/log';
import type { SessionFeed } from '../sessions/sessionFeed';
import type { SessionRecord, SessionRegistry, StateChange } from '../sessions/sessionRegistry';
import { folderLabels } from '../../present/sidebarModel';
import type { HistoryResult } from '../../../protocol/controlHistory';
import { shortenHome } from '../../../protocol/homePath';
// Loaded when the page is first served: the HTTP and WebSocket stack (node:http, tls, zlib, ws)
// costs a host that never serves the page ~5 MB of memory.
import type { ApiRoute, CompanionServer } from './companionServer';
import { PageLink } from './pageLink';
import { PairingToken } from './pairingToken';
import { CompanionPush } from './push/push';
import type { RemoteSessionsSource } from './remoteWatch';
import { loadAssets } from './staticAssets';

export interface CompanionSettings {
  enabled: boolean;
  port: number;
  network: 'loopback' | 'lan';
  /** Host names served besides 127.0.0.1, localhost and (on the LAN) this machine's addresses. */
  allowedHosts: string[];
}

/** The names a request's Host header may carry: loopback always; on the LAN every external
 *  IPv4 address of this machine; and whatever the user added (a reverse proxy's name). */
export function servedHostNames(s: Pick<CompanionSettings, 'network' | 'allowedHosts'>): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', ...s.allowedHosts.map((h) => h.toLowerCase())]);
  if (s.network === 'lan') {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) names.add(a.address);
  }
  return names;
}

/** What the companion needs of the host. */
export interface CompanionDeps {
  registry: Pick<SessionRegistry, 'list' | 'get' | 'onAdded' | 'onRemoved' | 'onChanged'> & { onStateChanged: Event<StateChange> };
  /** The question each waiting session asks, and answering it; omitted: the page shows none. */
  questions?: Pick<QuestionBook, 'get' | 'onQuestion' | 'answer'>;
  /** Starting a session from the page; omitted: the page offers no "New session". */
  launch?: {
    options(): { agents: Array<{ id: string; name: string }>; folders: Array<{ path: string; label: string }> };
    spawn(agent: string, cwd: string, prompt: string | undefined): Promise<{ ok: true; id: string } | { ok: false; message: string }>;
  };
  /** Past conversations: the host's history search and resume (as the CLI's `termio history`);
   *  omitted: the page offers no search. */
  history?: {
    search(query: string): Promise<{ ok: true; results: HistoryResult[]; note: string } | { ok: false; message: string }>;
    resume(agent: string, conversation: string, machine: string | null): Promise<{ ok: true; id: string } | { ok: false; message: string }>;
  };
  /** The other machines' sessions (the hub): listed with their machine's name, watched and typed
   *  into through the hub; omitted: this machine's only. */
  remote?: RemoteSessionsSource & {
    sessions(): SessionInfo[];
    onSessionChanged: Event<SessionInfo>;
    onSessionRemoved: Event<string>;
    /** A tap on the question of one of them: `sessions.answer` on its machine; null when `id`
     *  is none of theirs. */
    answer?(id: string, question: string, choice: number): Promise<RemoteAnswer> | null;
  };
  /** The session's feed, where the input-holder rule lives (SocketServer.feedFor). */
  feedFor(record: SessionRecord): SessionFeed;
  /** An agent's name and icon file (the catalog's entry), or undefined for an unknown id. */
  agentInfo(agentId: string): { name: string; iconFile?: string } | undefined;
  settings: {
    get(): CompanionSettings;
    /** Answers what the user should know about the change (a corrupt file moved aside). */
    set(patch: Partial<CompanionSettings>): string[] | void;
    onChange: Event<unknown>;
  };
  /** TERMIO_HOME (the token lives there) and the user's home (folders are shown with ~). */
  termioHome: string;
  userHome: string;
  logger: Logger;
  /** The built page; default dist/web below the install root. */
  assetsDir?: string;
  /** Overrides HEARTBEAT_MS (tests). */
  heartbeatMs?: number;
  /** The session shown in the focused window (not pushed while it is); omitted: none. */
  lookingAt?: () => string | null;
}

function pageTheme(t: Theme): PageTheme {
  return {
    foreground: cssHex(t.foreground),
    background: cssHex(t.background),
    cursor: cssHex(t.cursor),
    cursorText: cssHex(t.cursorText),
    selection: cssHex(t.selectionBackground),
    ansi: t.ansi.map(cssHex),
  };
}

/** Pages are pinged this often, and one that has not answered by the next ping is dropped:
 *  a phone asleep for a minute holds nothing in the host. */
export const HEARTBEAT_MS = 30_000;

/** Icons larger than this are not sent to pages: the bundled ones are a few KB. */
const MAX_ICON_BYTES = 64 * 1024;

/** The address to show in a LAN pairing link: the first external IPv4 address. */
function lanAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

export class Companion implements Disposable {
  /** Read (or minted) on first need: a host whose companion stays off never writes one. */
  private tokenFile: PairingToken | null = null;
  private server: CompanionServer | null = null;
  private listening: { host: string; port: number } | null = null;
  private error: string | null = null;
  private readonly pages = new Set<PageLink>();
  private readonly subscriptions: Disposable[] = [];
  private broadcastQueued = false;
  private applying: Promise<void> = Promise.resolve();
  private disposed = false;
  private readonly icons = new Map<string, string | null>();
  private readonly disposers: Array<() => void> = [];
  private heartbeat: NodeJS.Timeout | null = null;
  /** Web Push to paired devices; null without questions (a host with no agents). */
  readonly push: CompanionPush | null;

  constructor(private readonly deps: CompanionDeps) {
    const reg = deps.registry;
    this.push = deps.questions
      ? new CompanionPush({
          termioHome: deps.termioHome,
          userHome: deps.userHome,
          registry: reg,
          questions: deps.questions,
          lookingAt: deps.lookingAt ?? (() => null),
          active: () => deps.settings.get().enabled,
          agentName: (id) => (id ? (deps.agentInfo(id)?.name ?? id) : 'Terminal'),
          logger: deps.logger,
        })
      : null;
    const changed = (): void => this.queueBroadcast();
    this.subscriptions.push(
      reg.onAdded(changed),
      reg.onChanged(changed),
      reg.onStateChanged(changed),
      reg.onRemoved((r) => {
        for (const p of this.pages) p.sessionRemoved(r.id);
        changed();
      }),
      deps.settings.onChange(() => void this.apply()),
    );
    if (deps.questions) this.subscriptions.push(deps.questions.onQuestion(changed));
    if (deps.remote) {
      this.subscriptions.push(
        deps.remote.onSessionChanged(changed),
        deps.remote.onSessionRemoved((id) => {
          for (const p of this.pages) p.sessionRemoved(id);
          changed();
        }),
      );
    }
  }

  /** Starts or stops the server to match the settings; resolves once it has. */
  apply(): Promise<void> {
    this.applying = this.applying.then(() => this.applyNow());
    return this.applying;
  }

  private async applyNow(): Promise<void> {
    if (this.disposed) return;
    const want = this.deps.settings.get();
    const host = want.network === 'lan' ? '0.0.0.0' : '127.0.0.1';
    if (want.enabled && this.listening?.host === host && this.listening.port === want.port) return;
    if (this.server) await this.stopServer(CLOSE_HOST_STOPPING, 'the companion was turned off or moved');
    this.error = null;
    if (!want.enabled) return;
    let token: PairingToken;
    try {
      token = this.token;
    } catch (err) {
      this.error = `cannot keep the pairing token in ${this.deps.termioHome}: ${(err as Error).message}`;
      this.deps.logger.warn('companion not started', { message: this.error });
      return;
    }
    const assets = loadAssets(this.deps.assetsDir ?? installPath('dist', 'web'));
    if (!assets.ok) {
      this.error = assets.message;
      this.deps.logger.warn('companion not started', { message: assets.message });
      return;
    }
    const { CompanionServer: Server } = await import('./companionServer.js');
    const r = await Server.listen(
      {
        assets: assets.assets,
        token,
        logger: this.deps.logger,
        sessions: () => this.sessionsMessage(),
        accept: (ws) => this.accept(ws),
        hostAllowed: (name) => servedHostNames(this.deps.settings.get()).has(name),
        hostAdded: (name) => this.deps.settings.get().allowedHosts.some((h) => h.toLowerCase() === name),
        routes: this.pushRoutes(),
      },
      host,
      want.port,
    );
    if (!r.ok) {
      this.error = r.message;
      this.deps.logger.warn('companion not started', { message: r.message });
      return;
    }
    this.server = r.server;
    this.listening = { host, port: r.server.port };
    this.heartbeat = setInterval(() => {
      for (const p of this.pages) if (!p.heartbeat()) this.pages.delete(p);
    }, this.deps.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
    this.deps.logger.info('companion listening', { host, port: r.server.port });
  }

  /** The Web Push API: the host's VAPID key and (un)registering need the pairing token; an
   *  answer from a notification carries its own answer token instead. */
  private pushRoutes(): Map<string, ApiRoute[]> {
    const p = this.push;
    if (!p) return new Map();
    return new Map<string, ApiRoute[]>([
      ['/api/push/key', [{ method: 'GET', auth: 'token', run: () => p.keyRoute() }]],
      [
        '/api/push/subscriptions',
        [
          { method: 'POST', auth: 'token', run: (b) => p.register(b) },
          { method: 'DELETE', auth: 'token', run: (b) => p.unregister(b) },
        ],
      ],
      ['/api/push/answer', [{ method: 'POST', auth: 'none', run: (b) => p.answer(b) }]],
    ]);
  }

  private async stopServer(code: number, why: string): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const p of this.pages) p.close(code, why);
    this.pages.clear();
    const s = this.server;
    this.server = null;
    this.listening = null;
    await s?.close();
  }

  private accept(ws: WebSocket): void {
    const page = new PageLink(ws, {
      find: (id) => this.deps.registry.get(id),
      feedFor: (r) => this.deps.feedFor(r),
      answer: (session, question, choice) => this.answer(session, question, choice),
      spawn: (agent, folder, prompt) => this.spawn(agent, folder, prompt),
      search: (query, seq) => this.search(query, seq),
      resume: (agent, conversation, machine) => this.resume(agent, conversation, machine),
      remote: this.deps.remote || undefined,
      logger: this.deps.logger,
    });
    this.pages.add(page);
    ws.on('close', () => {
      page.dispose();
      this.pages.delete(page);
    });
    page.send({ t: 'hello', themes: { dark: pageTheme(darkTheme), light: pageTheme(lightTheme) }, search: this.deps.history ? (true as const) : undefined });
    page.send(this.sessionsMessage());
    if (this.deps.launch) page.send({ t: 'launch', ...this.deps.launch.options() });
  }

  /** A "New session" from the page: only an offered agent, in an offered folder. */
  private async spawn(agent: string, folder: string, prompt: string | undefined): Promise<CompanionServerMessage> {
    const launch = this.deps.launch;
    if (!launch) return { t: 'spawnFailed', message: 'this host starts no sessions from the page' };
    const o = launch.options();
    if (!o.agents.some((a) => a.id === agent)) return { t: 'spawnFailed', message: `the agent '${agent}' is not offered` };
    if (!o.folders.some((f) => f.path === folder)) return { t: 'spawnFailed', message: `${folder} is not one of the recent folders` };
    const r = await launch.spawn(agent, folder, prompt);
    this.deps.logger.info('companion: session started from a page', { agent, folder, ok: r.ok });
    return r.ok ? { t: 'spawned', session: r.id } : { t: 'spawnFailed', message: r.message };
  }

  /** The page's search: the host's history search, each hit as the page shows it (one without a
   *  conversation id cannot be resumed, so it is not offered). */
  private async search(query: string, seq: number): Promise<CompanionServerMessage> {
    const history = this.deps.history;
    if (!history) return { t: 'found', seq, results: [], agents: {}, note: '', message: 'this host offers no search of past conversations' };
    const r = await history.search(query).catch((e: unknown) => ({ ok: false as const, message: (e as Error).message }));
    if (!r.ok) return { t: 'found', seq, results: [], agents: {}, note: '', message: r.message };
    const agents: Record<string, PageAgent> = {};
    for (const h of r.results) {
      const a = this.deps.agentInfo(h.agent);
      if (a && !agents[h.agent]) agents[h.agent] = { name: a.name, iconSvg: this.icon(a.iconFile) };
    }
    const results = r.results.flatMap((h): PageHistoryHit[] =>
      h.conversation === null
        ? []
        : [
            {
              agent: h.agent,
              agentName: agents[h.agent]?.name ?? h.agent,
              conversation: h.conversation,
              folder: h.cwd === null ? null : shortenHome(h.cwd, this.deps.userHome),
              machine: h.machine,
              title: h.title,
              lastActivity: h.lastActivity,
              snippet: h.lines[0]?.text ?? h.snippet,
              hits: h.lines[0]?.hits ?? [],
            },
          ],
    );
    return { t: 'found', seq, results, agents, note: r.note };
  }

  /** A tapped hit: resumed as `termio history resume` does (or the tab it is open in). */
  private async resume(agent: string, conversation: string, machine: string | null): Promise<CompanionServerMessage> {
    const history = this.deps.history;
    if (!history) return { t: 'resumeFailed', message: 'this host offers no search of past conversations' };
    const r = await history.resume(agent, conversation, machine).catch((e: unknown) => ({ ok: false as const, message: (e as Error).message }));
    this.deps.logger.info('companion: conversation resumed from a page', { agent, conversation, machine, ok: r.ok });
    return r.ok ? { t: 'resumed', session: r.id } : { t: 'resumeFailed', message: r.message };
  }

  /** A tap on a choice: its keys go to the session once, unless the question changed since. */
  private answer(sessionId: string, questionId: string, choice: number): CompanionServerMessage | Promise<CompanionServerMessage> {
    const r = this.deps.registry.get(sessionId);
    const remote = r ? null : this.deps.remote?.answer?.(sessionId, questionId, choice);
    if (remote)
      return remote.then((a) => remotePageAnswer(sessionId, questionId, a, this.deps.remote?.sessions().find((s) => s.id === sessionId)?.question ?? null));
    const book = this.deps.questions;
    if (!r || !book)
      return { t: 'answerRefused', session: sessionId, question: questionId, reason: 'noSuchSession', message: 'that session is gone', current: null };
    const res = book.answer(r, String(choice + 1), questionId, false, 'the phone page');
    if (res.ok) return { t: 'answered', session: sessionId, question: res.question.id, choice: res.choice };
    return { t: 'answerRefused', session: sessionId, question: questionId, reason: res.code, message: res.message, current: pageQuestion(res.question) };
  }

  private queueBroadcast(): void {
    if (this.broadcastQueued || this.pages.size === 0) return;
    this.broadcastQueued = true;
    // One list per turn of the loop, however many events a burst fires.
    setImmediate(() => {
      this.broadcastQueued = false;
      const msg = this.sessionsMessage();
      for (const p of this.pages) p.send(msg);
    });
  }

  private icon(file: string | undefined): string | null {
    if (!file || !file.endsWith('.svg')) return null;
    let svg = this.icons.get(file);
    if (svg === undefined) {
      try {
        svg = statSync(file).size <= MAX_ICON_BYTES ? readFileSync(file, 'utf8') : null;
      } catch {
        svg = null;
      }
      this.icons.set(file, svg);
    }
    return svg;
  }

  /** Every session as the page lists it, with the agents they run. */
  sessionsMessage(): Extract<CompanionServerMessage, { t: 'sessions' }> {
    const records = this.deps.registry.list();
    const labels = folderLabels(
      records.map((r) => r.cwd),
      this.deps.userHome,
    );
    const agents: Record<string, PageAgent> = {};
    const sessions: PageSession[] = records.map((r) => {
      const agent = r.agentId ? this.deps.agentInfo(r.agentId) : undefined;
      if (r.agentId && agent && !agents[r.agentId]) agents[r.agentId] = { name: agent.name, iconSvg: this.icon(agent.iconFile) };
      const command = r.session.argv[0]?.split('/').pop() ?? 'shell';
      return {
        id: r.id,
        agentId: r.agentId,
        name: r.title.trim() || agent?.name || command,
        folder: labels.get(r.cwd) ?? r.cwd,
        state: r.state,
        stateSince: r.stateSince,
        waitingSince: r.waitingSince,
        exited: r.session.exited !== null,
        question: pageQuestion(this.deps.questions?.get(r.id) ?? null),
        failure: r.failure ? r.failure.reason : undefined,
        machine: null,
      };
    });
    for (const s of this.remoteSessions()) {
      if (s.agentId && !agents[s.agentId]) {
        const agent = this.deps.agentInfo(s.agentId);
        if (agent) agents[s.agentId] = { name: agent.name, iconSvg: this.icon(agent.iconFile) };
      }
      sessions.push(s);
    }
    return { t: 'sessions', now: Date.now(), sessions, agents };
  }

  /** The other machines' sessions, after this machine's: each grouped under its machine's name
   *  and folder ("box · api"). A machine that is away shows its sessions' last state. Their
   *  questions are shown as that machine's host read them, and answered there. */
  private remoteSessions(): PageSession[] {
    const all = this.deps.remote?.sessions() ?? [];
    const out: PageSession[] = [];
    for (const machine of new Set(all.map((s) => s.machine ?? ''))) {
      const mine = all.filter((s) => (s.machine ?? '') === machine);
      const labels = folderLabels(
        mine.map((s) => s.cwd),
        '',
      );
      for (const s of mine) {
        const command = s.argv[0]?.split('/').pop() ?? 'shell';
        out.push({
          id: s.id,
          agentId: s.agentId,
          name: s.title.trim() || (s.agentId ? this.deps.agentInfo(s.agentId)?.name : undefined) || command,
          folder: `${machine} · ${labels.get(s.cwd) ?? s.cwd}`,
          state: s.state,
          stateSince: Date.parse(s.stateSince),
          waitingSince: waitingSinceMs(s),
          exited: s.exited !== null,
          question: pageQuestionInfo(s.question),
          failure: s.status?.why.failure ? s.status.why.failure.reason : undefined,
          machine,
          away: s.reachable === false ? true : undefined,
        });
      }
    }
    return out;
  }

  status(): CompanionStatus {
    const s = this.deps.settings.get();
    let url: string | null = null;
    if (this.listening) {
      const host = this.listening.host === '0.0.0.0' ? (lanAddress() ?? '127.0.0.1') : '127.0.0.1';
      url = `http://${host}:${this.listening.port}/#t=${this.token.current}`;
    }
    return { enabled: s.enabled, network: s.network, port: s.port, listening: this.listening !== null, url, error: this.error, pages: this.pages.size };
  }

  get token(): PairingToken {
    this.tokenFile ??= PairingToken.load(this.deps.termioHome);
    return this.tokenFile;
  }

  /** A fresh token; every page paired with the old one is disconnected at once. */
  revoke(): void {
    this.token.mint();
    for (const p of this.pages) p.close(CLOSE_REVOKED, 'the pairing token was revoked');
    this.pages.clear();
    this.push?.forgetAll();
    this.deps.logger.info('companion token revoked');
  }

  /** The settings it follows (requests change them, then apply()). */
  get settings(): CompanionDeps['settings'] {
    return this.deps.settings;
  }

  /** Runs `fn` when the companion is disposed (what its starter made for it). */
  onDispose(fn: () => void): void {
    this.disposers.push(fn);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.subscriptions) d.dispose();
    this.push?.dispose();
    await this.applying;
    await this.stopServer(CLOSE_HOST_STOPPING, 'the host is stopping');
    for (const fn of this.disposers.splice(0)) fn();
  }
}

/** A question as the page shows it (its keys stay in the host). */
export function pageQuestion(q: SessionQuestion | null): PageQuestion | null {
  if (!q) return null;
  const choices = q.choices.map((c) => ({ label: c.label, description: c.description }));
  return { id: q.id, text: q.text, context: q.context, choices, answered: q.answered?.label ?? null };
}

/** What a machine's host said to `sessions.answer`. */
export type RemoteAnswer = { ok: true; choice: string; question: QuestionInfo } | { ok: false; code: string; message: string };

const PAGE_REFUSALS: readonly string[] = ['questionChanged', 'noQuestion', 'noSuchChoice', 'alreadyAnswered', 'sessionExited', 'noSuchSession'];

/** Another machine's answer as the page hears it; `current`: what the hub last heard it ask. */
export function remotePageAnswer(session: string, question: string, a: RemoteAnswer, current: QuestionInfo | null): CompanionServerMessage {
  if (a.ok) return { t: 'answered', session, question: a.question.id, choice: a.choice };
  const reason = PAGE_REFUSALS.includes(a.code) ? (a.code as PageAnswerRefusal) : a.code === 'machineUnreachable' ? 'machineAway' : 'noSuchSession';
  return { t: 'answerRefused', session, question, reason, message: a.message, current: pageQuestionInfo(current) };
}

/** A question of another machine's session (as its SessionInfo carries it) as the page shows it. */
export function pageQuestionInfo(q: QuestionInfo | null): PageQuestion | null {
  if (!q) return null;
  const choices = q.choices.map((c) => ({ label: c.label, description: c.description }));
  return { id: q.id, text: q.text, context: q.context, choices, answered: q.answered?.label ?? null };
}

/** Creates the companion and starts it if the settings say so. */
export async function startCompanion(deps: CompanionDeps): Promise<Companion> {
  const c = new Companion(deps);
  await c.apply();
  return c;
}
