// The session list: a "needs you" strip at the top (each waiting question with its buttons), then
// sessions grouped by folder, each with its agent's icon, name, state, time in state and
// question. Redrawn from each list the host sends (a session's row stays the same element);
// the times tick every second without the host's help (its clock, offset to this one).
import { waitingAge } from '../../protocol/attentionQueue';
import type { PageAgent, PageSession } from '../../protocol/companion';
import { afterStopped, FAILED_LABEL, formatDurationWithSeconds, stateLabel } from '../present/sidebarModel';
import { byFolder, needsYou } from './pageText';
import { questionCard, type CardEvents, type TapState } from './questionCard';

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The agent's icon as an image (its SVG is drawn by the browser as an image, so it cannot run
 *  anything), or the first letter of its name. */
export function agentIcon(s: Pick<PageSession, 'agentId' | 'name'>, agents: Record<string, PageAgent>): HTMLElement {
  const a = s.agentId ? agents[s.agentId] : undefined;
  if (a?.iconSvg) {
    const img = el('img', 'agent-icon');
    img.alt = '';
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(a.iconSvg)}`;
    return img;
  }
  const letter = el('span', 'agent-icon letter', (a?.name ?? s.name).trim().charAt(0).toUpperCase() || '›');
  letter.setAttribute('aria-hidden', 'true');
  return letter;
}

export function stateBadge(s: PageSession, skew: number): HTMLElement {
  // A session that stopped on a failure has its own colour and word: it is not merely waiting.
  const span = el('span', s.failure ? 'state s-failed failed' : `state s-${s.state}${s.state === 'attention' ? ' attention' : ''}`);
  span.dataset.since = String(s.stateSince + skew);
  span.dataset.word = s.failure ? FAILED_LABEL : s.exited ? 'Exited' : stateLabel[s.state];
  // In the attention queue it says how long it has waited, as the tray does.
  if (s.waitingSince !== null && !s.failure) span.dataset.waiting = String(s.waitingSince + skew);
  span.textContent = badgeText(span);
  return span;
}

/** A state badge's words now: "Working · 4m 05s", or "waiting 12 min" for a session in the queue. */
function badgeText(span: HTMLElement): string {
  const now = Date.now();
  if (span.dataset.waiting) return waitingAge(now - Number(span.dataset.waiting));
  return `${span.dataset.word} · ${formatDurationWithSeconds(now - Number(span.dataset.since))}`;
}

/** How long a session in the strip has waited, kept current by the page's tick. */
function waitingLine(s: PageSession, skew: number): HTMLElement[] {
  if (s.waitingSince === null) return [];
  const span = el('span', 'waiting-age');
  span.dataset.since = span.dataset.waiting = String(s.waitingSince + skew);
  span.textContent = badgeText(span);
  return [span];
}

export class SessionList {
  /** Add to a host timestamp to get this browser's clock (the last list's). */
  private skew = 0;
  /** Each listed session's row, kept from one list to the next. */
  private readonly rows = new Map<string, HTMLButtonElement>();
  /** The folders and their sessions' ids, in order, as last drawn. */
  private layout = '';
  /** What the "needs you" strip showed when last drawn. */
  private strip = '';

  constructor(
    private readonly groups: HTMLElement,
    private readonly needs: HTMLElement,
    private readonly empty: HTMLElement,
    private readonly open: (id: string) => void,
    /** What the page did with each session's question (a tap in flight, a refusal). */
    private readonly taps: Map<string, TapState>,
    private readonly answer: CardEvents['answer'],
  ) {
    setInterval(() => this.tick(), 1000);
  }

  /** A button for a session that needs the user: its icon, name and folder. */
  private chip(s: PageSession, agents: Record<string, PageAgent>): HTMLButtonElement {
    const chip = el('button', 'chip');
    chip.dataset.session = s.id;
    chip.append(agentIcon(s, agents), el('span', undefined, `${s.name} — ${s.failure ? afterStopped(s.failure) : s.folder}`));
    if (s.failure) chip.classList.add('failed');
    chip.addEventListener('click', () => this.open(s.id));
    return chip;
  }

  /** A waiting session: its question card, or a chip when it asks nothing the host could read;
   *  with how long it has waited when it is in the attention queue. */
  private waiting(s: PageSession, agents: Record<string, PageAgent>): HTMLElement {
    const item = s.question ? questionCard(s, agentIcon(s, agents), this.taps.get(s.id), { answer: this.answer, open: this.open }) : this.chip(s, agents);
    item.append(...waitingLine(s, this.skew));
    return item;
  }

  /** In a session's terminal: its own question, then the other sessions that need the user. */
  renderOthers(strip: HTMLElement, sessions: PageSession[], agents: Record<string, PageAgent>, openId: string): void {
    const own = sessions.find((s) => s.id === openId && s.question);
    const others = needsYou(sessions).filter((s) => s.id !== openId);
    strip.hidden = others.length === 0 && !own;
    const label = others.length ? [el('span', 'term-needs-label', 'Needs you')] : [];
    strip.replaceChildren(...(own ? [this.waiting(own, agents)] : []), ...label, ...others.map((s) => this.waiting(s, agents)));
  }

  /** skew: add to a host timestamp to get this browser's clock. */
  render(sessions: PageSession[], agents: Record<string, PageAgent>, skew: number): void {
    this.skew = skew;
    const waiting = needsYou(sessions);
    this.needs.hidden = waiting.length === 0;
    // Redrawn only when what it shows changed: a tap on a choice straddling a list that changed
    // something else is not lost (see row()).
    const strip = JSON.stringify(waiting.map((s) => [s, this.taps.get(s.id)]));
    if (strip !== this.strip) {
      this.strip = strip;
      this.needs.replaceChildren(el('h2', undefined, waiting.length === 1 ? 'Needs you' : `${waiting.length} need you`));
      for (const s of waiting) this.needs.append(this.waiting(s, agents));
    }
    this.empty.hidden = sessions.length > 0;
    const groups = byFolder(sessions);
    const layout = JSON.stringify(groups.map((g) => [g.folder, g.sessions.map((s) => s.id)]));
    // The same folders and sessions in the same order: each row is redrawn where it is. A row
    // taken out of the page, even to be put back, loses a press on it (the browser drops the click).
    if (layout === this.layout) {
      for (const s of sessions) this.row(s, agents, skew);
      return;
    }
    this.layout = layout;
    const listed = new Set(sessions.map((s) => s.id));
    for (const id of this.rows.keys()) if (!listed.has(id)) this.rows.delete(id);
    const sections = groups.map((g) => {
      const section = el('section', 'group');
      section.append(el('h2', undefined, g.folder));
      for (const s of g.sessions) section.append(this.row(s, agents, skew));
      return section;
    });
    this.groups.replaceChildren(...sections);
  }

  /** A session's row: the same element from one list to the next, its content redrawn, so that
   *  a tap whose press and release straddle an update (lists come with every change of state)
   *  still lands on it. */
  private row(s: PageSession, agents: Record<string, PageAgent>, skew: number): HTMLButtonElement {
    let row = this.rows.get(s.id);
    if (!row) {
      row = el('button', 'row');
      row.dataset.session = s.id;
      row.addEventListener('click', () => this.open(s.id));
      this.rows.set(s.id, row);
    }
    row.dataset.state = s.state;
    // Another machine's session: its group is headed with the machine's name; dimmed while away.
    if (s.machine) row.dataset.machine = s.machine;
    else delete row.dataset.machine;
    row.classList.toggle('away', s.away === true);
    const name = el('span', 'name');
    name.append(el('div', 'title', s.name));
    if (s.failure) name.append(el('div', 'failure-line', afterStopped(s.failure)));
    else if (s.question) name.append(el('div', 'q-line', s.question.answered ? `Answered: ${s.question.answered}` : s.question.text));
    row.replaceChildren(agentIcon(s, agents), name, stateBadge(s, skew));
    return row;
  }

  private tick(): void {
    for (const span of document.querySelectorAll<HTMLElement>('.state[data-since], .waiting-age')) span.textContent = badgeText(span);
  }
}
