// A waiting session's question on the page: what it asks (the command or file it names, long
// text folded behind "More"), one button per choice, and what became of a tap — "Sending…",
// "Answered: Yes", or, when the question changed before the tap arrived, that nothing was sent,
// over the question asked now. Taps go out once: a card's buttons are disabled from the tap on.
import type { PageAnswerRefusal, PageQuestion, PageSession } from '../../protocol/companion';

export interface TapState {
  /** The question the tap was for. */
  question: string;
  status: 'sending' | 'refused';
  reason?: PageAnswerRefusal;
}

/** Why a tap sent nothing, as the card says it. */
export const REFUSAL_WORDS: Record<PageAnswerRefusal, string> = {
  questionChanged: 'the question changed before your tap arrived',
  alreadyAnswered: 'it had been answered already',
  noQuestion: 'it no longer asks anything',
  noSuchChoice: 'that choice is not offered any more',
  sessionExited: 'the session has ended',
  noSuchSession: 'the session is gone',
  machineAway: 'its machine is not connected now',
};

export interface CardEvents {
  answer(session: string, question: string, choice: number): void;
  open(session: string): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Context longer than this many lines is folded: a phone shows the question and its buttons first. */
const FOLDED_CONTEXT_LINES = 3;

function context(q: PageQuestion): HTMLElement | null {
  if (!q.context) return null;
  const pre = el('pre', 'q-context', q.context);
  if (q.context.split('\n').length > FOLDED_CONTEXT_LINES || q.context.length > 160) {
    pre.classList.add('folded');
    const more = el('button', 'q-more', 'More');
    more.type = 'button';
    more.addEventListener('click', () => {
      pre.classList.toggle('folded');
      more.textContent = pre.classList.contains('folded') ? 'More' : 'Less';
    });
    const wrap = el('div', 'q-context-wrap');
    wrap.append(pre, more);
    return wrap;
  }
  return pre;
}

/** The card for one session's question; `tap` is what the page did with it so far, if anything. */
export function questionCard(s: PageSession, icon: HTMLElement, tap: TapState | undefined, on: CardEvents): HTMLElement {
  const q = s.question!;
  const card = el('article', 'question');
  card.dataset.session = s.id;
  card.dataset.question = q.id;
  const head = el('button', 'q-head');
  head.type = 'button';
  head.append(icon, el('span', 'q-who', `${s.name} — ${s.folder}`), el('span', 'q-open', 'Terminal ›'));
  head.addEventListener('click', () => on.open(s.id));
  card.append(head);
  if (tap?.status === 'refused') {
    card.append(el('p', 'q-refused', `Not sent: ${REFUSAL_WORDS[tap.reason ?? 'questionChanged']}. It asks now:`));
  }
  card.append(el('p', 'q-text', q.text));
  const ctx = context(q);
  if (ctx) card.append(ctx);
  const sending = tap?.status === 'sending' && tap.question === q.id;
  const choices = el('div', 'q-choices');
  q.choices.forEach((c, i) => {
    const b = el('button', `choice${i === 0 ? ' primary' : ''}`);
    b.type = 'button';
    b.dataset.choice = String(i);
    b.append(el('span', 'c-label', c.label));
    if (c.description) b.append(el('span', 'c-desc', c.description));
    b.disabled = sending || q.answered !== null || s.exited;
    b.addEventListener('click', () => {
      for (const other of choices.querySelectorAll('button')) other.disabled = true;
      on.answer(s.id, q.id, i);
    });
    choices.append(b);
  });
  card.append(choices);
  if (q.answered !== null) card.append(el('p', 'q-status answered', `Answered: ${q.answered}`));
  else if (sending) card.append(el('p', 'q-status', 'Sending…'));
  return card;
}
