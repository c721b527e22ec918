// The words of Settings → Phone, from the companion's status as the session host reports it
// (or the reason the host could not be asked). Pure: tested without a display.
import type { CompanionStatus } from '../../../protocol/companion';
import type { PushDeviceInfo } from '../../../protocol/push';

export interface PhoneView {
  /** One line on the state: off, serving where, or why not. */
  headline: string;
  /** The pairing link to show as text and as a QR code; null when there is none to show. */
  url: string | null;
  /** Under the link: who can use it. */
  note: string;
  /** The Enable/Disable button. Texts may carry a Qt mnemonic (&R: Alt+R presses Revoke). */
  toggle: { text: string; enabled: boolean };
  lan: { text: string; checked: boolean; enabled: boolean };
  revoke: { text: string; enabled: boolean };
  error: string | null;
}

export const PHONE_INTRO =
  'A web page for your phone, or another computer’s browser: every session’s live state, and a session’s terminal to answer it. Served by Termio’s session host, so it works while this window is closed. Off until you turn it on.';

const NOTE =
  'Whoever has this link can see and type into every session. Keep it to yourself; Revoke makes a new one and disconnects every page paired with the old one.';

export function phoneView(status: CompanionStatus | null, problem: string | null): PhoneView {
  if (!status) {
    return {
      headline: 'The session host cannot be asked right now.',
      url: null,
      note: '',
      toggle: { text: 'Turn on', enabled: false },
      lan: { text: 'Reachable on my network', checked: false, enabled: false },
      revoke: { text: '&Revoke link', enabled: false },
      error: problem,
    };
  }
  const where = status.network === 'lan' ? 'this computer and devices on your network' : 'this computer only';
  const headline = !status.enabled
    ? 'Off.'
    : status.listening
      ? `On: reachable from ${where}, port ${status.port}. ${status.pages === 0 ? 'No page connected.' : `${status.pages} page${status.pages === 1 ? '' : 's'} connected.`}`
      : 'On, but not serving.';
  return {
    headline,
    url: status.listening ? status.url : null,
    note: status.listening
      ? status.network === 'lan'
        ? `${NOTE} Scan the code with your phone on the same network.`
        : `${NOTE} Only this computer can open it: choose “Reachable on my network” for a phone.`
      : '',
    toggle: { text: status.enabled ? 'Turn off' : 'Turn on', enabled: true },
    lan: { text: 'Reachable on my network', checked: status.network === 'lan', enabled: status.enabled },
    revoke: { text: '&Revoke link', enabled: true },
    error: status.enabled && !status.listening ? status.error : problem,
  };
}

/** The heading over the devices notified by Web Push ("Notify this phone" on the page). */
export function devicesHeading(devices: PushDeviceInfo[] | null, problem: string | null): string {
  if (problem) return `Phones notified: cannot be listed (${problem})`;
  if (!devices || devices.length === 0) return 'Phones notified: none. On the phone’s page, tap “Notify this phone”.';
  return 'Phones notified when a session needs you:';
}

/** One device's line: its name, since when, and how the last push went. */
export function deviceLine(d: PushDeviceInfo): string {
  const date = (ms: number): string => new Date(ms).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const last = !d.last
    ? 'nothing pushed yet'
    : d.last.outcome === 'sent'
      ? `last push ${date(d.last.at)}: delivered to ${d.service}`
      : d.last.outcome === 'waiting'
        ? `${d.service} asked to wait`
        : `last push failed: ${d.last.message ?? d.last.status}`;
  return `${d.name} · since ${date(d.createdAt)} · ${last}`;
}
