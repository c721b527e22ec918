// Native notifications: which status changes deserve one (an agent needs you; a long turn
// finished while you were elsewhere; a program's own OSC 9/777 message), one per transition,
// repeats coalesced and bursts folded into a summary; and handing them to the OS through
// node-notifier (notify-send on Linux, terminal-notifier on macOS, which reports clicks).
import { join } from 'node:path';
import type { SessionState } from '../../protocol/status/sessionState';
import type { Logger } from './log';

/** A session that flips attention → working → attention within this long gets one notification. */
export const COALESCE_MS = 5_000;
/** More than BURST_MAX notifications within BURST_WINDOW_MS are folded into one summary. */
export const BURST_MAX = 3;
export const BURST_WINDOW_MS = 2_000;
/** Past this many remembered sends, the ones older than COALESCE_MS are dropped (a bound, not a tuning knob). */
const LAST_SENT_PRUNE_AT = 256;

export interface NotifyPrefs {
  attention: boolean;
  done: boolean;
  doneMinSeconds: number;
  terminal: boolean;
  sound: boolean;
}

export interface SessionContext {
  agentName: string;
  folderLabel: string;
  /** What the agent waits for, when the status layer knows (the tool, or the question). */
  detail?: string;
  /** The question it asks, when the host read one: its choices become the notification's actions. */
  question?: { id: string; fingerprint: string; text: string; choices: string[] };
  /** The failure it stopped on, in words ("stopped: usage limit, resets 14:00"): the notification says that instead of "needs you". */
  failure?: string;
  /** The user has the session in front of them (selected in the active window). */
  userLooking: boolean;
  /** The session has already left this state (a "done" its failure report replaced): the turn
   *  is counted, nothing is notified. */
  superseded?: boolean;
}

export interface NotificationRequest {
  sessionId: string | null;
  kind: 'attention' | 'done' | 'terminal' | 'summary';
  title: string;
  message: string;
  /** Buttons where the platform has them: a question's choices (`answerAction` ids). */
  actions?: NotificationAction[];
  /** The question's fingerprint: another question within COALESCE_MS is news, the same one is not. */
  questionKey?: string;
}

export interface NotificationAction {
  id: string;
  label: string;
}

/** Platforms show a few actions at most (macOS folds the rest into a menu); a menu's options beyond these are answered on the page or in the app. */
export const MAX_NOTIFICATION_ACTIONS = 4;

/** The action id that answers choice `index` of question `questionId` (stale ids are refused by the host). */
export function answerAction(questionId: string, index: number): string {
  return `answer:${questionId}:${index}`;
}

export function parseAnswerAction(id: string): { questionId: string; index: number } | null {
  const m = /^answer:([^:]+):(\d+)$/.exec(id);
  return m ? { questionId: m[1]!, index: Number(m[2]) } : null;
}

/** What an agent that needs you waits for, from the tool its hook named (Claude Code's tool names). */
export function waitingFor(tool: string): string {
  if (tool === 'AskUserQuestion') return 'Has a question for you';
  if (tool === 'ExitPlanMode') return 'Wants you to approve a plan';
  return `Asks to run ${tool}`;
}

/** "Claude Code stopped: usage limit, resets 14:00", "Codex exited with code 1: …", "Qwen Code stopped: API error 401: log in again". */
export function failureTitle(agentName: string, reason: string): string {
  return /^(?:stopped|exited|ended)\b/.test(reason) ? `${agentName} ${reason}` : `${agentName} stopped: ${reason}`;
}

function formatTurn(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** Pure decision rules; time comes in as arguments so tests control it. */
export class NotificationPolicy {
  private readonly turnStart = new Map<string, number>();
  private readonly lastSent = new Map<string, number>();
  private readonly recent: number[] = [];
  private held: NotificationRequest[] = [];

  constructor(private prefs: NotifyPrefs) {}

  setPrefs(prefs: NotifyPrefs): void {
    this.prefs = prefs;
  }

  /** A state change; returns the notification to send now, if any. */
  stateChanged(sessionId: string, from: SessionState, to: SessionState, at: number, ctx: SessionContext): NotificationRequest | null {
    if (to === 'working' && from !== 'working' && from !== 'attention') this.turnStart.set(sessionId, at);
    let req: NotificationRequest | null = null;
    if (to === 'attention' && from !== 'attention' && this.prefs.attention && !ctx.userLooking) {
      const q = ctx.question;
      // A failure says what stopped it; otherwise what it waits for.
      req = ctx.failure
        ? { sessionId, kind: 'attention', title: failureTitle(ctx.agentName, ctx.failure), message: ctx.folderLabel }
        : {
            sessionId,
            kind: 'attention',
            title: `${ctx.agentName} needs you`,
            message: `${ctx.folderLabel} · ${q?.text ?? ctx.detail ?? 'Waiting for your input'}`,
            ...(q
              ? { actions: q.choices.slice(0, MAX_NOTIFICATION_ACTIONS).map((label, i) => ({ id: answerAction(q.id, i), label })), questionKey: q.fingerprint }
              : {}),
          };
    } else if (to === 'done' && from !== 'done' && this.prefs.done && !ctx.userLooking) {
      const started = this.turnStart.get(sessionId);
      if (started !== undefined && at - started >= this.prefs.doneMinSeconds * 1000) {
        req = { sessionId, kind: 'done', title: `${ctx.agentName} finished`, message: `${ctx.folderLabel} · after ${formatTurn(at - started)}` };
      }
    }
    if (to === 'done' || to === 'idle') this.turnStart.delete(sessionId);
    return req && !ctx.superseded ? this.admit(req, at) : null;
  }

  /** A program's own notification (OSC 9 / OSC 777). */
  terminalNotification(sessionId: string, title: string, body: string, at: number, ctx: SessionContext): NotificationRequest | null {
    if (!this.prefs.terminal || ctx.userLooking) return null;
    return this.admit({ sessionId, kind: 'terminal', title: title || ctx.agentName, message: body || ctx.folderLabel }, at);
  }

  /** Held notifications of a burst, as one summary once the window has passed. */
  flush(at: number): NotificationRequest | null {
    this.prune(at);
    if (this.held.length === 0 || this.recent.length >= BURST_MAX) return null;
    const held = this.held;
    this.held = [];
    this.recent.push(at);
    if (held.length === 1) return held[0]!;
    const needs = held.filter((h) => h.kind === 'attention').length;
    return {
      sessionId: null,
      kind: 'summary',
      title: needs > 0 ? `${needs} more agent${needs === 1 ? '' : 's'} need${needs === 1 ? 's' : ''} you` : `${held.length} more updates`,
      message: held.map((h) => h.title).join(' · '),
    };
  }

  /** When flush() should next be called, if something is held. */
  nextFlushAt(): number | null {
    if (this.held.length === 0) return null;
    return (this.recent[0] ?? 0) + BURST_WINDOW_MS;
  }

  forget(sessionId: string): void {
    this.turnStart.delete(sessionId);
    for (const k of [...this.lastSent.keys()]) if (k.startsWith(`${sessionId}:`)) this.lastSent.delete(k);
    this.held = this.held.filter((h) => h.sessionId !== sessionId);
  }

  private prune(at: number): void {
    while (this.recent.length && at - this.recent[0]! >= BURST_WINDOW_MS) this.recent.shift();
  }

  private admit(req: NotificationRequest, at: number): NotificationRequest | null {
    // A state repeats itself: one per kind. A program's messages differ: only the same text repeats.
    const key =
      req.kind === 'terminal'
        ? `${req.sessionId}:terminal:${req.title}\u0000${req.message}`
        : `${req.sessionId}:${req.kind}${req.questionKey ? `:${req.questionKey}` : ''}`;
    const last = this.lastSent.get(key);
    if (last !== undefined && at - last < COALESCE_MS) return null;
    this.lastSent.set(key, at);
    // Programs can send endless distinct messages: forget the ones too old to coalesce with.
    if (this.lastSent.size > LAST_SENT_PRUNE_AT) for (const [k, t] of this.lastSent) if (at - t >= COALESCE_MS) this.lastSent.delete(k);
    this.prune(at);
    if (this.recent.length >= BURST_MAX) {
      this.held.push(req);
      return null;
    }
    this.recent.push(at);
    return req;
  }
}

export interface NotificationSink {
  /** Resolves once the OS has the notification (or refused it: the sink logs why). `onAction`
   *  is told the id of an action chosen (sinks without actions never call it). */
  send(req: NotificationRequest, sound: boolean, onClick: () => void, onAction?: (id: string) => void): Promise<void>;
}

/** node-notifier's options: on macOS (terminal-notifier) the actions become its buttons. */
export function nodeNotifierOptions(req: NotificationRequest, sound: boolean, icon: string, platform: NodeJS.Platform): Record<string, unknown> {
  const actions =
    platform === 'darwin' && req.actions?.length ? { actions: req.actions.map((a) => a.label), closeLabel: 'Later', dropdownLabel: 'Answer' } : {};
  return { title: req.title, message: req.message, sound, icon, wait: platform === 'darwin', appID: 'Termio', ...actions };
}

/** The action terminal-notifier reports (its button's label as `activationValue`), as our id. */
export function actionFromReply(req: NotificationRequest, metadata: unknown): string | null {
  const m = metadata as { activationType?: string; activationValue?: string } | undefined;
  if (m?.activationType !== 'actionClicked' || typeof m.activationValue !== 'string') return null;
  return req.actions?.find((a) => a.label === m.activationValue)?.id ?? null;
}

/** node-notifier: notify-send on Linux (clicks are not reported there), terminal-notifier on macOS. */
export function nodeNotifierSink(logger: Logger, iconFile: string): NotificationSink {
  return {
    send(req, sound, onClick, onAction) {
      return new Promise((resolve) => {
        // Loaded on first use: it is only needed once something is worth a notification.
        const notifier = require('node-notifier') as typeof import('node-notifier');
        notifier.notify(nodeNotifierOptions(req, sound, iconFile, process.platform) as never, (err: Error | null, response: string, metadata?: unknown) => {
          if (err) logger.warn('notification failed', { error: err.message });
          const action = actionFromReply(req, metadata);
          if (action) onAction?.(action);
          else if (typeof response === 'string' && /activate|clicked/i.test(response)) onClick();
          resolve();
        });
        // notify-send returns as soon as the notification daemon has it, so its callback marks the
        // hand-over. terminal-notifier (wait: true) calls back only on a click or a timeout: there
        // the request counts as handed over once it has started.
        if (process.platform === 'darwin') setImmediate(resolve);
      });
    },
  };
}

export function defaultNotificationIcon(appRoot: string): string {
  return join(appRoot, 'assets', 'brand', 'termio-256.png');
}
