// A pushed notification shown inside the open page: the service worker hands a push to a visible
// page instead of raising a system notification, and the page shows it as a banner at the top,
// drawn like a phone's notification (app icon, title, body, the actions, ×). One banner per
// session: a newer push replaces the older. An action answers as the notification's would
// (pushAnswer.ts) and the banner says what became of it; a refused answer, or a tap on the
// banner, opens the session. A banner goes when its question is answered elsewhere or changes,
// as the page's socket tells, or when closed.
import type { PageSession } from '../../protocol/companion';
import { choiceOfAction } from '../../protocol/pushNotification';
import { answerPush, type PagePush } from './pushAnswer';

/** How long the outcome of an action stays on the banner before it goes. */
const OUTCOME_MS = 4000;

interface Banner {
  push: PagePush;
  el: HTMLElement;
  /** The id of the question it shows, once the page's list has shown that question. */
  question?: string;
  /** An action was tapped: the banner no longer follows the session's question. */
  acted: boolean;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Whether a banner still shows what its session is at: the same question, unanswered (or, for
 *  a push that asks nothing, the same state). Binds the banner to the question's id the first time
 *  its text is seen. */
export function current(b: Pick<Banner, 'push' | 'question'>, s: PageSession | undefined): boolean {
  if (!s) return false;
  if (b.push.kind === 'done') return s.state === 'done';
  if (s.state !== 'attention') return false;
  if (b.push.token === null) return true;
  const q = s.question;
  if (!q || q.answered !== null) return false;
  if (b.question === undefined && q.text === b.push.body) b.question = q.id;
  return q.id === b.question;
}

export class PushBanners {
  private readonly shown = new Map<string, Banner>();
  /** The sessions as the live socket last listed them; null while not connected. */
  private sessions: PageSession[] | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly open: (session: string) => void,
  ) {}

  /** A push the service worker handed over. One already stale (answered or changed before it
   *  arrived) is not shown. */
  show(push: PagePush): void {
    const b: Banner = { push, el: this.draw(push), acted: false };
    if (!this.stillCurrent(b)) return;
    this.remove(push.tag);
    this.shown.set(push.tag, b);
    this.root.prepend(b.el);
    this.root.hidden = false;
  }

  /** The sessions as the socket says now: banners whose question went or changed go. Null: the
   *  page is not connected, so its list may be old (a phone that slept): a push that comes then
   *  is shown, and judged by the fresh list the reconnect brings. */
  update(sessions: PageSession[] | null): void {
    this.sessions = sessions;
    for (const [tag, b] of this.shown) if (!this.stillCurrent(b)) this.remove(tag);
  }

  /** Whether a banner stays: it was acted on (it shows the outcome), the page's list is not known
   *  now, or the list shows its session still at what it tells. */
  private stillCurrent(b: Banner): boolean {
    if (b.acted || !this.sessions) return true;
    return current(
      b,
      this.sessions.find((s) => s.id === b.push.session),
    );
  }

  private remove(tag: string): void {
    this.shown.get(tag)?.el.remove();
    this.shown.delete(tag);
    this.root.hidden = this.shown.size === 0;
  }

  private draw(push: PagePush): HTMLElement {
    const banner = el('article', `banner ${push.kind}`);
    banner.dataset.session = push.session;
    banner.dataset.tag = push.tag;
    const main = el('button', 'b-main');
    main.type = 'button';
    const icon = el('img', 'b-icon');
    icon.src = '/icon-192.png';
    icon.alt = '';
    const text = el('span', 'b-text');
    text.append(el('span', 'b-app', 'Termio'), el('span', 'b-title', push.title), el('span', 'b-body', push.body));
    main.append(icon, text);
    main.addEventListener('click', () => {
      this.remove(push.tag);
      this.open(push.session);
    });
    const close = el('button', 'b-close', '×');
    close.type = 'button';
    close.setAttribute('aria-label', 'Close');
    close.addEventListener('click', () => this.remove(push.tag));
    banner.append(main, close);
    if (push.token && push.actions.length > 0) banner.append(this.actions(push, push.token, banner));
    return banner;
  }

  private actions(push: PagePush, token: string, banner: HTMLElement): HTMLElement {
    const row = el('div', 'b-actions');
    for (const a of push.actions) {
      const b = el('button', 'b-action', a.title);
      b.type = 'button';
      b.dataset.action = a.action;
      b.addEventListener('click', () => void this.act(push, token, choiceOfAction(a.action) ?? 0, banner, row));
      row.append(b);
    }
    return row;
  }

  /** An action: answers with the token, and says what became of it on the banner. */
  private async act(push: PagePush, token: string, choice: number, banner: HTMLElement, row: HTMLElement): Promise<void> {
    const b = this.shown.get(push.tag);
    if (b) b.acted = true;
    // The actions give way to what became of the tap: a notification is acted on once.
    const status = el('p', 'b-status', 'Sending…');
    row.replaceWith(status);
    const outcome = await answerPush(token, choice);
    status.textContent = outcome.ok ? `Answered: ${outcome.choice}` : `Not sent: ${outcome.message}.`;
    status.classList.add(outcome.ok ? 'answered' : 'refused');
    if (!outcome.ok) this.open(push.session);
    setTimeout(() => {
      if (this.shown.get(push.tag)?.el === banner) this.remove(push.tag);
    }, OUTCOME_MS);
  }
}
