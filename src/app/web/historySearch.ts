// The search box over the session list: past conversations of every agent on every machine,
// found by the host's history index as the typing pauses, each with its agent, folder, machine,
// when, and the matching line with the words marked. A tap resumes it (the host opens a tab on
// it, or brings forward the one it is open in); the caller opens that session.
import type { CompanionClientMessage, CompanionServerMessage, PageAgent, PageHistoryHit } from '../../protocol/companion';
import { resultFacts, resultTitle } from '../present/historyText';
import { agentIcon, el } from './sessionList';

/** The host is asked once the typing pauses this long. */
const TYPING_PAUSE_MS = 250;

const $ = (id: string): HTMLElement => document.getElementById(id)!;

/** `text` with each hit in a <mark> (hits in UTF-16 units; ones out of range are clipped). */
function marked(text: string, hits: PageHistoryHit['hits']): Node[] {
  const out: Node[] = [];
  let at = 0;
  for (const h of [...hits].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(h.start, text.length));
    const end = Math.max(start, Math.min(h.start + h.length, text.length));
    if (end === start) continue;
    out.push(document.createTextNode(text.slice(at, start)), el('mark', undefined, text.slice(start, end)));
    at = end;
  }
  out.push(document.createTextNode(text.slice(at)));
  return out;
}

export class HistorySearch {
  /** The latest search sent: older answers are dropped. */
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** A hit tapped, waiting for the host. */
  private pending: HTMLButtonElement | null = null;

  constructor(
    private readonly send: (m: CompanionClientMessage) => void,
    /** The list is shown (no query) or the results are (a query). */
    private readonly searching: (on: boolean) => void,
  ) {
    const input = $('search') as HTMLInputElement;
    input.addEventListener('input', () => this.typed());
    $('search-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.ask();
      input.blur();
    });
  }

  /** The host searches (its hello says so): the box shows. */
  offer(on: boolean): void {
    $('search-form').hidden = !on;
  }

  private query(): string {
    return ($('search') as HTMLInputElement).value.trim();
  }

  private typed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const on = this.query() !== '';
    this.searching(on);
    $('search-results').hidden = !on;
    if (!on) {
      this.seq++;
      $('search-hits').replaceChildren();
      return;
    }
    this.timer = setTimeout(() => this.ask(), TYPING_PAUSE_MS);
  }

  private ask(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const query = this.query();
    if (!query) return;
    $('search-status').textContent = 'Searching…';
    this.send({ t: 'search', query, seq: ++this.seq });
  }

  found(m: Extract<CompanionServerMessage, { t: 'found' }>): void {
    if (m.seq !== this.seq) return;
    this.pending = null;
    $('search-status').textContent = m.message ? `Not searched: ${m.message}.` : m.note;
    $('search-status').classList.toggle('bad', m.message !== undefined);
    $('search-hits').replaceChildren(...m.results.map((h) => this.hit(h, m.agents)));
  }

  private hit(h: PageHistoryHit, agents: Record<string, PageAgent>): HTMLButtonElement {
    const row = el('button', 'row hit');
    row.type = 'button';
    row.dataset.conversation = h.conversation;
    const name = el('span', 'name');
    const snippet = el('div', 'snippet');
    snippet.append(...marked(h.snippet, h.hits));
    name.append(
      el('div', 'title', resultTitle({ title: h.title, snippet: h.snippet })),
      // Another machine's name comes first: its folder (a path of that machine) may not fit.
      el('div', 'facts', `${h.agentName}${h.machine ? ` on ${h.machine}` : ''} · ${resultFacts({ ...h, cwd: h.folder, machine: null }, '', new Date())}`),
      snippet,
    );
    row.append(agentIcon({ agentId: h.agent, name: h.agentName }, agents), name);
    row.addEventListener('click', () => {
      if (this.pending) return;
      this.pending = row;
      row.classList.add('opening');
      $('search-status').classList.remove('bad');
      $('search-status').textContent = `Opening ${h.agentName}'s conversation…`;
      this.send({ t: 'resume', agent: h.agent, conversation: h.conversation, machine: h.machine });
    });
    return row;
  }

  /** The host's answer to a tap: true when a session resumes it (the caller opens it). */
  answered(m: Extract<CompanionServerMessage, { t: 'resumed' | 'resumeFailed' }>): boolean {
    this.pending?.classList.remove('opening');
    this.pending = null;
    $('search-status').classList.toggle('bad', m.t === 'resumeFailed');
    $('search-status').textContent = m.t === 'resumeFailed' ? `Not resumed: ${m.message}` : '';
    return m.t === 'resumed';
  }
}
