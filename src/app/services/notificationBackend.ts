// Which native notification path this run of Termio uses, and a sink for the tray's own
// notifications. node-notifier runs a helper program (notify-send on Linux; on macOS a bundled,
// unsigned x86_64 terminal-notifier whose click reports turn into timeouts), while a signed
// .app can post through Qt's tray icon (QSystemTrayIcon.showMessage) as itself. The host does
// not touch Qt: the UI hands the tray's show-message function in.
import type { NotificationRequest, NotificationSink } from './notifier';

export type NotificationBackend = 'tray' | 'node-notifier';

export interface NotificationRuntime {
  platform: NodeJS.Platform;
  /** The running executable: qode inside Termio.app when launched from the bundle. */
  execPath: string;
  /** TERMIO_NOTIFIER, when set: 'tray' or 'node-notifier' picks one regardless of the rest. */
  override?: string | undefined;
}

/** Whether the executable is an app bundle's main executable (…/X.app/Contents/MacOS/name). */
export function inAppBundle(execPath: string): boolean {
  return /\.app\/Contents\/MacOS\/[^/]+$/.test(execPath);
}

/**
 * The tray from Termio.app on macOS (the bundle is signed, so notifications carry its name and
 * icon and report clicks); node-notifier everywhere else: on Linux it is notify-send, and a
 * checkout run on macOS has no bundle for the system to attribute notifications to.
 */
export function chooseNotificationBackend(rt: NotificationRuntime): NotificationBackend {
  if (rt.override === 'tray' || rt.override === 'node-notifier') return rt.override;
  return rt.platform === 'darwin' && inAppBundle(rt.execPath) ? 'tray' : 'node-notifier';
}

/** Shows one notification through the tray icon (QSystemTrayIcon.showMessage). */
export type TrayShowMessage = (title: string, message: string) => void;

/**
 * Notifications through the tray icon. Qt reports a click on a tray message without saying
 * which message it was, and a new message replaces the one on screen, so a click belongs to
 * the last notification sent.
 */
export class TrayMessageSink implements NotificationSink {
  private lastClick: (() => void) | null = null;
  private lastSession: string | null = null;

  constructor(private readonly show: TrayShowMessage) {}

  async send(req: NotificationRequest, _sound: boolean, onClick: () => void): Promise<void> {
    this.show(req.title, req.message);
    this.lastClick = onClick;
    this.lastSession = req.sessionId;
  }

  /** The session the last notification was about (null for a summary, or before any). */
  get lastNotifiedSession(): string | null {
    return this.lastSession;
  }

  /** The tray reported a click on its message. */
  clicked(): void {
    this.lastClick?.();
  }
}
