// The part of the host's client protocol the Termio app speaks on top of frames: the sessions as
// the sidebar, tray and why strip show them (agent, state and why, progress, window), kept current
// by events after one `app.subscribe`, and the requests behind what the user does (start, resume,
// rename, which session they look at). Pure: zod schemas for what a client sends, plain types for
// what the host answers.
import * as z from 'zod';
import type { SessionInfo } from './sessionInfo';
import type { MachineInfo } from './machines';

/** Session and window ids are UUIDs or short minted names; agent ids are manifest ids. */
const MAX_ID_CHARS = 64;
/** PATH_MAX on Linux. */
const MAX_PATH_CHARS = 4096;
/** A session name is a line in a tab and a menu. */
const MAX_TITLE_CHARS = 256;

const id = z.string().min(1).max(MAX_ID_CHARS);

/** The control verbs the review view asks through the host socket (as `termio sessions diff|commit|
 *  merge|rebase|close|comment|comments` do through the control socket): the one verb table answers
 *  both, so the view and the command line can never disagree. */
export type ReviewVerb =
  'worktrees.diff' | 'worktrees.act' | 'sessions.close' | 'sessions.comment' | 'sessions.comments' | 'sessions.comments.remove' | 'sessions.comments.send';

export const AppParamsSchemas = {
  /** Starts the app's event stream. `restore`: relaunch the saved sessions the host is not running
   *  (what starting the app does). `notifier`: 'tray' when the app shows notifications itself. */
  'app.subscribe': z.strictObject({
    restore: z.boolean(),
    notifier: z.enum(['tray', 'host']).optional(),
    hub: z.boolean().optional().describe('a hub on another machine: every session event, but it is not "the app" (no focus, notifications or hand-over)'),
  }),
  'app.launch': z.strictObject({
    agentId: id.nullable().describe('null: a plain terminal'),
    cwd: z.string().min(1).max(MAX_PATH_CHARS),
    bypass: z.boolean(),
    windowId: id,
    machine: id.nullable().optional().describe('a saved machine to start it on; null or absent: this one'),
    worktree: z.boolean().optional().describe('start in a new git worktree of the repository cwd is in'),
  }),
  'app.relaunch': z.strictObject({ session: id }),
  'app.rename': z.strictObject({ session: id, title: z.string().max(MAX_TITLE_CHARS) }),
  /** The session the user is looking at (selected in the focused window), and the window new sessions go to. */
  'app.looking': z.strictObject({ session: id.nullable(), windowId: id.nullable() }),
  /** A notification the app showed was clicked (tray notifications on macOS). */
  'app.notificationClicked': z.strictObject({ session: id.nullable() }),
  /** A choice of a waiting question, picked in the tray: sent only if `question` is still asked. */
  'app.answer': z.strictObject({ session: id, question: id, choice: z.number().int().min(0).max(63) }),
};

/** A problem the app shows the user: a corrupt state file, a broken settings field, a manifest
 *  the catalog refused, a hook launcher the host could not write. */
export interface HostProblem {
  source: 'state' | 'settings' | 'catalog' | 'hooks';
  message: string;
}

export interface AppSnapshot {
  sessions: SessionInfo[];
  /** Saved windows in order (each one's sessions follow). */
  windows: string[];
  /** Problems found at the host's start (a corrupt state file, a hook launcher it could not write). */
  problems: HostProblem[];
  /** Another app is subscribed already (this launch should hand over to it). */
  otherApp: boolean;
  /** Saved machines and their connections (absent from a host without machines). */
  machines?: MachineInfo[];
}

export interface AppResults {
  'app.subscribe': AppSnapshot;
  'app.launch': { session: SessionInfo };
  'app.relaunch': { relaunched: boolean };
  'app.rename': Record<string, never>;
  'app.looking': Record<string, never>;
  'app.notificationClicked': Record<string, never>;
  /** answered false: nothing was sent, and `message` says why (the question changed, …). */
  'app.answer': { answered: boolean; message: string };
}

/** Events an app connection receives after `app.subscribe`. */
export type AppEvent =
  /** A session appeared or changed (state, title, progress, exit, window). */
  | { t: 'event'; event: 'session'; session: SessionInfo }
  | { t: 'event'; event: 'sessionRemoved'; id: string }
  /** Show the session (a notification click, `termio sessions focus`, `termio DIR`). */
  | { t: 'event'; event: 'focus'; id: string }
  /** Come forward (a second launch of the app). */
  | { t: 'event'; event: 'activate' }
  /** A saved machine was added, removed, or its connection changed. */
  | { t: 'event'; event: 'machines'; machines: MachineInfo[] }
  /** ssh asks something while connecting a machine (a key's passphrase, a one-time code): ask
   *  the user, without blocking the app, and answer with machines.answerAsk. */
  | { t: 'event'; event: 'askpass'; id: string; machine: string; prompt: string }
  /** That question is over (answered, cancelled, timed out, or its ssh ended): close its prompt. */
  | { t: 'event'; event: 'askpassDone'; id: string }
  /** The program rang the bell. */
  | { t: 'event'; event: 'bell'; id: string }
  /** The app shows this notification itself (notifier 'tray'). */
  | { t: 'event'; event: 'notify'; title: string; body: string; session: string | null };
