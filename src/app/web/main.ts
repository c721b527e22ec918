// The companion page: pairs with the token from the link, lists every session with its live
// state, opens one's terminal, says plainly when the host cannot be reached, and raises a
// browser notification when a session starts needing the user while the page is open.
import type { ITheme } from '@xterm/xterm';
import type { CompanionServerMessage, PageAgent, PageSession, PageTheme } from '../../protocol/companion';
import { Link, takeToken, type LinkState } from './connection';
import { drawFavicon } from './favicon';
import { aggregateState } from '../present/sidebarModel';
import { pageTitle } from './pageText';
import { REFUSAL_WORDS, type TapState } from './questionCard';
import { NewSession } from './newSession';
import { HistorySearch } from './historySearch';
import { SessionList, stateBadge } from './sessionList';
import { TerminalPane } from './terminalPane';
import { PhonePush, needsHomeScreen, registerServiceWorker, unsupportedReason, type PushState } from './phonePush';
import type { PagePush } from './pushAnswer';
import { PushBanners } from './pushBanner';

const $ = (id: string): HTMLElement => document.getElementById(id)!;
const dark = matchMedia('(prefers-color-scheme: dark)');

let sessions: PageSession[] = [];
let agents: Record<string, PageAgent> = {};
let skew = 0;
let themes: { dark: PageTheme; light: PageTheme } | null = null;
let openId: string | null = null;
let link: Link | null = null;
const seenAttention = new Set<string>();
let listed = false;
/** A session to open once the list arrives: `#s=<id>` (a pushed notification's address). */
let wanted: string | null = null;
let pushState: PushState = 'off';
/** A session resumed from a search hit, opened once the list has it (another machine's comes a moment later). */
let resumed: string | null = null;

function xtermTheme(): ITheme {
  const t = themes?.[dark.matches ? 'dark' : 'light'];
  if (!t) return {};
  const [
    black,
    red,
    green,
    yellow,
    blue,
    magenta,
    cyan,
    white,
    brightBlack,
    brightRed,
    brightGreen,
    brightYellow,
    brightBlue,
    brightMagenta,
    brightCyan,
    brightWhite,
  ] = t.ansi;
  return {
    foreground: t.foreground,
    background: t.background,
    cursor: t.cursor,
    cursorAccent: t.cursorText,
    selectionBackground: t.selection,
    black,
    red,
    green,
    yellow,
    blue,
    magenta,
    cyan,
    white,
    brightBlack,
    brightRed,
    brightGreen,
    brightYellow,
    brightBlue,
    brightMagenta,
    brightCyan,
    brightWhite,
  };
}

const pane = new TerminalPane($('term'), $('term-scroll'), (m) => link?.send(m), xtermTheme);
const taps = new Map<string, TapState>();
const list = new SessionList(
  $('groups'),
  $('needs'),
  $('empty'),
  (id) => openSession(id),
  taps,
  (session, question, choice) => {
    taps.set(session, { question, status: 'sending' });
    link?.send({ t: 'answer', session, question, choice });
    renderSessions(sessions);
  },
);

const banners = new PushBanners($('banners'), (id) => openSession(id));

const newSession = new NewSession(
  (m) => link?.send(m),
  (view) => {
    $('list-view').hidden = view !== 'list';
    $('new-view').hidden = view !== 'new';
  },
);

const search = new HistorySearch(
  (m) => link?.send(m),
  (on) => $('list-view').classList.toggle('searching', on),
);

function showNotice(text: string | null, opts: { bad?: boolean; retry?: boolean } = {}): void {
  $('notice').hidden = text === null;
  $('notice').classList.toggle('bad', opts.bad ?? false);
  $('notice-text').textContent = text ?? '';
  $('retry').hidden = !opts.retry;
}

function setConn(text: string, cls: '' | 'live' | 'down'): void {
  $('conn').textContent = text;
  $('conn').className = `conn ${cls}`;
}

function onState(s: LinkState): void {
  if (s.kind !== 'live') banners.update(null);
  switch (s.kind) {
    case 'connecting':
      setConn('Connecting…', '');
      return;
    case 'live':
      setConn('Live', 'live');
      showNotice(null);
      return;
    case 'unpaired':
      setConn('Not paired', 'down');
      showNotice(`Not paired: ${s.message}.`, { bad: true });
      renderSessions([], false);
      return;
    case 'revoked':
      setConn('Revoked', 'down');
      showNotice('This pairing was revoked in Termio. Scan the new QR code in Settings → Phone to pair again.', { bad: true });
      renderSessions([], false);
      closeSession();
      return;
    case 'unreachable':
      setConn('Host unreachable', 'down');
      showNotice(`Termio's host is unreachable (is the computer asleep, or off this network?). Retrying in ${Math.round(s.retryInMs / 1000)} s.`, {
        bad: true,
        retry: true,
      });
  }
}

/** Shows the list; `paired` false: the empty list says nothing about sessions (there may be some). */
function renderSessions(next: PageSession[], paired = true): void {
  sessions = next;
  list.render(sessions, agents, skew);
  if (!paired) $('empty').hidden = true;
  document.title = pageTitle(sessions);
  drawFavicon(aggregateState(sessions.map((s) => s.state)), sessions.filter((s) => s.state === 'attention').length);
  if (openId) {
    const s = sessions.find((x) => x.id === openId);
    $('heading').textContent = s?.name ?? 'Session';
    $('term-info').replaceChildren(...(s ? [document.createTextNode(s.folder), stateBadge(s, skew)] : []));
    list.renderOthers($('term-needs'), sessions, agents, openId);
  }
}

function notifyNewAttention(next: PageSession[]): void {
  const now = new Set(next.filter((s) => s.state === 'attention').map((s) => s.id));
  for (const s of next) {
    // With push on, the service worker notifies this phone (a banner here while the page is visible).
    if (!now.has(s.id) || seenAttention.has(s.id) || !listed || pushState === 'on') continue;
    if ('Notification' in window && Notification.permission === 'granted') {
      let n: Notification;
      try {
        n = new Notification(`${s.name} needs you`, { body: s.folder, tag: `termio-${s.id}` });
      } catch {
        // Android's Chrome makes notifications through the service worker only (push, above).
        continue;
      }
      n.onclick = () => {
        window.focus();
        openSession(s.id);
      };
    }
  }
  seenAttention.clear();
  for (const id of now) seenAttention.add(id);
  listed = true;
}

function onMessage(m: CompanionServerMessage): void {
  switch (m.t) {
    case 'hello':
      themes = m.themes;
      pane.retheme();
      search.offer(m.search === true);
      return;
    case 'sessions':
      skew = Date.now() - m.now;
      agents = m.agents;
      notifyNewAttention(m.sessions);
      // A refusal is news only while the question it showed is still the one asked.
      for (const [id, tap] of taps) {
        const q = m.sessions.find((s) => s.id === id)?.question;
        if (!q || (tap.status === 'sending' && q.id !== tap.question)) taps.delete(id);
      }
      renderSessions(m.sessions);
      banners.update(m.sessions);
      if (wanted && m.sessions.some((s) => s.id === wanted)) openSession(wanted);
      wanted = null;
      if (resumed && m.sessions.some((s) => s.id === resumed)) openSession(resumed);
      return;
    case 'attached':
      if (m.session !== openId) return;
      pane.start(m.cols, m.rows, m.snapshot);
      setHolding(m.holding);
      return;
    case 'resize':
      pane.resize(m.cols, m.rows);
      return;
    case 'holding':
      setHolding(m.holding);
      return;
    case 'detached':
      if (m.session === openId) {
        closeSession();
        showNotice(m.reason === 'sessionClosed' ? 'That session was closed.' : 'That session is gone.');
      }
      return;
    case 'answered':
      taps.delete(m.session);
      return;
    case 'answerRefused':
      // Shown over the question asked now, until the user taps again or it goes.
      taps.set(m.session, { question: m.question, status: 'refused', reason: m.reason });
      if (!m.current) showNotice(`Not sent: ${REFUSAL_WORDS[m.reason]}.`);
      renderSessions(sessions.map((s) => (s.id === m.session ? { ...s, question: m.current } : s)));
      return;
    case 'launch':
      newSession.offer(m);
      return;
    case 'spawned':
    case 'spawnFailed':
    case 'found':
    case 'resumed':
    case 'resumeFailed':
      return onStartAnswer(m);
    case 'pong':
      return;
  }
}

/** The answers that may open a session: "New session"'s, and the search's (a hit resumed). */
function onStartAnswer(m: Extract<CompanionServerMessage, { t: 'spawned' | 'spawnFailed' | 'found' | 'resumed' | 'resumeFailed' }>): void {
  if (m.t === 'found') return search.found(m);
  if (m.t === 'spawned' || m.t === 'spawnFailed') {
    if (newSession.answered(m) && m.t === 'spawned') {
      $('new-view').hidden = true;
      openSession(m.session);
    }
    return;
  }
  if (search.answered(m) && m.t === 'resumed') {
    resumed = m.session;
    if (sessions.some((s) => s.id === m.session)) openSession(m.session);
  }
}

function setHolding(on: boolean): void {
  $('term-view').dataset.holding = String(on);
}

function openSession(id: string): void {
  if (resumed === id) resumed = null;
  // Another session's terminal is not reused: its content would show until the snapshot lands.
  if (openId !== id) pane.dispose();
  openId = id;
  $('list-view').hidden = true;
  $('new-view').hidden = true;
  $('new-session').hidden = true;
  $('term-view').hidden = false;
  $('back').hidden = false;
  renderSessions(sessions);
  link?.send({ t: 'attach', session: id, ...pane.fitSize() });
  pane.focus();
}

function closeSession(): void {
  if (openId) link?.send({ t: 'detach' });
  openId = null;
  pane.dispose();
  $('list-view').hidden = false;
  $('term-view').hidden = true;
  $('back').hidden = true;
  $('new-session').hidden = $('new-agent').childElementCount === 0;
  $('heading').textContent = 'Termio';
}

function setUpNotifications(): void {
  // Browsers allow notifications only to secure pages: loopback counts, a LAN address does not.
  // Where push works, "Notify this phone" asks instead (and covers the open page too).
  if (!('Notification' in window) || !isSecureContext || Notification.permission !== 'default' || unsupportedReason() === null) return;
  $('notify').hidden = false;
  $('notify').addEventListener('click', () => {
    void Notification.requestPermission().then(() => ($('notify').hidden = true));
  });
}

const PUSH_WORDS: Record<PushState, string> = {
  on: 'This phone is notified when a session needs you, even with the page closed.',
  off: 'Get a notification on this phone when a session needs you, even with the page closed or the phone locked.',
  unsupported: '',
  denied: "Notifications are blocked for this page: allow them in the browser's site settings, then reload.",
  busy: 'Working…',
};
const PUSH_OPTIONS_KEY = 'termio.push.options';

function pushOptions(): { done: boolean; failed: boolean } {
  return { done: ($('push-done') as HTMLInputElement).checked, failed: ($('push-failed') as HTMLInputElement).checked };
}

function showPush(state: PushState, error?: string): void {
  pushState = state;
  $('push').hidden = false;
  $('push').dataset.state = state;
  $('push-text').textContent = error ? `Not changed: ${error}.` : state === 'unsupported' ? (unsupportedReason() ?? '') : PUSH_WORDS[state];
  $('push-toggle').hidden = state === 'unsupported' || state === 'denied';
  ($('push-toggle') as HTMLButtonElement).disabled = state === 'busy';
  $('push-toggle').textContent = state === 'on' ? 'Turn off' : 'Notify this phone';
  for (const el of document.querySelectorAll<HTMLElement>('.push-opt')) el.hidden = state !== 'on';
}

/** "Notify this phone": the service worker and this device's push subscription. */
function setUpPush(token: string): void {
  const registration = registerServiceWorker();
  if (needsHomeScreen()) {
    // A Home Screen web app keeps storage of its own and starts at the address it was added
    // from: the pairing link stays in the address bar so the app added from here is paired.
    history.replaceState(null, '', `/#t=${token}`);
  }
  if (!registration) return showPush('unsupported');
  navigator.serviceWorker.addEventListener('message', (e) => {
    const m = e.data as { t?: string; session?: string; push?: PagePush } | null;
    if (m?.t === 'open' && typeof m.session === 'string') openSession(m.session);
    if (m?.t === 'push' && typeof m.push?.session === 'string') {
      // Shown here, the worker raises no system notification.
      banners.show(m.push);
      e.ports[0]?.postMessage('shown');
    }
  });
  const saved = JSON.parse(localStorage.getItem(PUSH_OPTIONS_KEY) ?? '{}') as { done?: boolean; failed?: boolean };
  ($('push-done') as HTMLInputElement).checked = saved.done === true;
  ($('push-failed') as HTMLInputElement).checked = saved.failed === true;
  const push = new PhonePush(token, registration);
  const run = (next: () => Promise<PushState>): void => {
    const before = pushState;
    showPush('busy');
    next().then(
      (s) => showPush(s),
      (err: unknown) => showPush(before, (err as Error).message),
    );
  };
  $('push-toggle').addEventListener('click', () => run(() => (pushState === 'on' ? push.turnOff() : push.turnOn(pushOptions()))));
  for (const id of ['push-done', 'push-failed'])
    $(id).addEventListener('change', () => {
      localStorage.setItem(PUSH_OPTIONS_KEY, JSON.stringify(pushOptions()));
      run(() => push.state(pushOptions()));
    });
  run(() => push.state(pushOptions()));
}

function main(): void {
  $('back').addEventListener('click', () => closeSession());
  $('retry').addEventListener('click', () => link?.retryNow());
  addEventListener('resize', () => {
    pane.relayout();
    if (openId) link?.send({ t: 'size', ...pane.fitSize() });
  });
  dark.addEventListener('change', () => pane.retheme());
  setUpNotifications();
  wanted = decodeURIComponent(/(?:^#|&)s=([^&]+)/.exec(location.hash)?.[1] ?? '') || null;
  const token = takeToken();
  if (!token) {
    onState({ kind: 'unpaired', message: "open this page from the link or QR code in Termio's Settings → Phone" });
    return;
  }
  if (wanted) history.replaceState(null, '', location.pathname);
  setUpPush(token);
  link = new Link(token, {
    state: onState,
    message: onMessage,
    output: (bytes) => pane.output(bytes),
    // A fresh connection: the open terminal starts over from a new snapshot.
    open: () => {
      if (openId) link?.send({ t: 'attach', session: openId, ...pane.fitSize() });
    },
  });
  void link.connect();
}

main();
