// How a Host is built: its logger, environment and the seams tests and the process entry fill in.
// Its own module so the host and the pieces it wires (hostServices.ts, hostControl.ts) share it
// without importing one another.
import type { Logger } from '../services/log';
import type { NotificationSink } from '../services/notifier';
import type { RemoteSessions } from './machines/hubControl';

export interface HostOptions {
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Called when `termio DIR` (or a second launch) asks to bring the app forward. */
  onActivate?: () => void;
  /** Where notifications go (tests pass a recorder). Default: node-notifier. */
  notificationSink?: NotificationSink;
  /** Told when a notification is clicked (the UI focuses the session). */
  onNotificationClick?: (sessionId: string | null) => void;
  /** PATH to resolve agent commands on (tests); default: the login shell's. Given a PATH,
   *  sessions keep this process's environment; otherwise they start from the login shell's. */
  path?: string;
  /** The other machines' sessions (the hub, which the host process starts after the Host). */
  remoteSessions?: () => RemoteSessions | null;
}
