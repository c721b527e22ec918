// Desktop notifications on Linux straight over D-Bus (org.freedesktop.Notifications), so they can
// carry actions — a waiting question's choices — and report which one was chosen, and clicks on
// the notification itself (the "default" action: jump to the session). notify-send reports
// neither. One connection (dbusConnection.ts) both posts and listens: servers such as dunst send
// ActionInvoked to the connection that posted, not to the whole bus.
import type { Logger } from '../../services/log';
import { DbusConnection } from './dbusConnection';
import type { DbusMessage, DbusValue } from './dbusWire';
import { nodeNotifierSink, type NotificationRequest, type NotificationSink } from '../../services/notifier';

const NOTIFICATIONS = { destination: 'org.freedesktop.Notifications', path: '/org/freedesktop/Notifications', interface: 'org.freedesktop.Notifications' };
/** Callbacks of this many recent notifications are kept; older ones were long dismissed. */
const MAX_PENDING = 64;
/** The spec's urgency levels: a question blocks an agent, so it is critical (it stays up). */
const URGENCY_CRITICAL = 2;

/** The Notify call's body: app name, replaces id, icon, summary, body, actions, hints, timeout (-1: the server's). */
export function notifyBody(req: NotificationRequest, icon: string, sound: boolean): DbusValue[] {
  const actions = ['default', 'Open', ...(req.actions ?? []).flatMap((a) => [a.id, a.label])];
  const hints: DbusValue[] = [['desktop-entry', { signature: 's', value: 'termio' }]];
  if (!sound) hints.push(['suppress-sound', { signature: 'b', value: true }]);
  if (req.actions?.length) hints.push(['urgency', { signature: 'y', value: URGENCY_CRITICAL }]);
  return ['Termio', 0, icon, req.title, req.message, actions, hints, -1];
}

interface Pending {
  onClick: () => void;
  onAction: ((id: string) => void) | undefined;
}

export class DbusNotificationSink implements NotificationSink {
  private connection: Promise<DbusConnection> | null = null;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly o: { icon: string; logger: Logger; env?: NodeJS.ProcessEnv; fallback: NotificationSink }) {}

  async send(req: NotificationRequest, sound: boolean, onClick: () => void, onAction?: (id: string) => void): Promise<void> {
    try {
      const bus = await this.bus();
      const reply = await bus.call({ ...NOTIFICATIONS, member: 'Notify', signature: 'susssasa{sv}i', body: notifyBody(req, this.o.icon, sound) });
      const id = reply.body[0] as number;
      this.pending.set(id, { onClick, onAction });
      if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    } catch (err) {
      this.o.logger.warn('notification over D-Bus failed; posting without actions', { error: (err as Error).message });
      this.connection = null;
      await this.o.fallback.send(req, sound, onClick, onAction);
    }
  }

  /** The bus connection, opened on first use and listening for the server's signals. */
  private bus(): Promise<DbusConnection> {
    const current = this.connection;
    if (current) return current.then((c) => (c.closed ? this.reopen() : c));
    return this.reopen();
  }

  private reopen(): Promise<DbusConnection> {
    this.connection = (async () => {
      const c = await DbusConnection.open((this.o.env ?? process.env).DBUS_SESSION_BUS_ADDRESS);
      c.onSignal((m) => this.signal(m));
      const match = `type='signal',interface='${NOTIFICATIONS.interface}',path='${NOTIFICATIONS.path}'`;
      await c.call({
        destination: 'org.freedesktop.DBus',
        path: '/org/freedesktop/DBus',
        interface: 'org.freedesktop.DBus',
        member: 'AddMatch',
        signature: 's',
        body: [match],
      });
      return c;
    })();
    this.connection.catch(() => (this.connection = null));
    return this.connection;
  }

  private signal(m: DbusMessage): void {
    if (m.interface !== NOTIFICATIONS.interface) return;
    const id = m.body[0] as number;
    const p = this.pending.get(id);
    if (!p) return;
    if (m.member === 'NotificationClosed') this.pending.delete(id);
    else if (m.member === 'ActionInvoked') {
      const action = m.body[1] as string;
      if (action === 'default') p.onClick();
      else p.onAction?.(action);
    }
  }

  dispose(): void {
    void this.connection?.then(
      (c) => c.close(),
      () => undefined,
    );
    this.connection = null;
  }
}

/** Where the host posts notifications itself: D-Bus with actions on Linux (node-notifier if that
 *  fails), node-notifier elsewhere (terminal-notifier on macOS, which has buttons of its own). */
export function defaultNotificationSink(logger: Logger, icon: string, env?: NodeJS.ProcessEnv): NotificationSink {
  const plain = nodeNotifierSink(logger, icon);
  if (process.platform !== 'linux') return plain;
  return new DbusNotificationSink({ icon, logger, fallback: plain, env: env || undefined });
}
