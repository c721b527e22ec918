// The History pane: type words, and every agent's past conversations that hold them all come up,
// best first — the agent's icon and name, the first prompt, folder, machine and day, and the
// matching lines with the hits marked. Enter (or a double-click) resumes the selected one: a tab
// in its folder running the agent's own resume of that conversation, or the tab that already has
// it brought forward; a folder that is gone is said so. Every answer comes from the host's
// history verbs (what `termio history search|resume` sends).
import {
  AlignmentFlag,
  Key,
  QKeyEvent,
  QLabel,
  QLineEdit,
  QMainWindow,
  QScrollArea,
  QWidget,
  ScrollBarPolicy,
  TextFormat,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import { homedir } from 'node:os';
import type { HistoryResult } from '../../protocol/controlHistory';
import { highlightHits, historyStatusText, resultFacts, resultTitle } from '../present/historyText';
import type { AppHost } from '../client/appHost';
import { agentIconLabel } from './agentIcons';
import { boxWidget, label } from './boxWidget';
import { historyStyleSheet, type ChromeColors } from './chromeStyle';

const WINDOW_SIZE: [number, number] = [760, 620];
const ICON_PX = 22;
/** Typing pauses this long before the search is sent (one search per word, not per key). */
const TYPE_PAUSE_MS = 200;
/** Matching lines shown per result. */
const LINES_SHOWN = 2;

export interface HistoryWindowOptions {
  host: AppHost;
  chrome: ChromeColors;
  /** Brings the session's window forward with it focused (the resumed or already open one). */
  focus: (sessionId: string) => void;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export class HistoryWindow {
  readonly window = new QMainWindow();
  private readonly input = new QLineEdit();
  private readonly scroll = new QScrollArea();
  private readonly list = boxWidget('column', { name: 'historyList', margins: 6, spacing: 2 });
  /** The result rows shown, in order, and which one Enter resumes. */
  private rows: QWidget[] = [];
  private selected = 0;
  private readonly status = new QLabel();
  private results: HistoryResult[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The query of the newest search sent: an older answer arriving late is dropped. */
  private asked = '';

  constructor(private readonly o: HistoryWindowOptions) {
    this.window.setObjectName('history');
    this.window.setWindowTitle('History');
    this.window.resize(...WINDOW_SIZE);
    const { widget: root, layout } = boxWidget('column', { name: 'historyRoot', margins: [20, 16, 20, 12], spacing: 10 });
    this.input.setObjectName('historyInput');
    this.input.setPlaceholderText('Search every agent’s past conversations');
    this.scroll.setObjectName('historyScroll');
    this.scroll.setWidgetResizable(true);
    this.scroll.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
    this.scroll.setWidget(this.list.widget);
    this.list.layout.addStretch(1);
    this.status.setObjectName('historyStatus');
    this.status.setWordWrap(true);
    this.status.setText('Words that must all occur in one turn; a trailing * matches any ending. Enter resumes.');
    layout.addWidget(this.input);
    layout.addWidget(this.scroll, 1);
    layout.addWidget(this.status);
    this.window.setCentralWidget(root);
    this.input.addEventListener('textChanged', () => this.typed());
    this.input.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const key = new QKeyEvent(native as never).key();
      if (key === Key.Key_Return || key === Key.Key_Enter) void this.resume();
      else if (key === Key.Key_Down || key === Key.Key_Up) this.step(key === Key.Key_Down ? 1 : -1);
      else if (key === Key.Key_Escape) this.window.close();
      else return;
      this.input.setEventProcessed(true);
    });
    this.setChrome(o.chrome);
  }

  setChrome(c: ChromeColors): void {
    this.o.chrome = c;
    this.window.setStyleSheet(historyStyleSheet(c));
    if (this.results.length) this.show(this.results);
  }

  open(): void {
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
    this.input.setFocus();
    this.input.selectAll();
  }

  private typed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.search(), TYPE_PAUSE_MS);
  }

  async search(): Promise<void> {
    const query = this.input.text().trim();
    this.asked = query;
    if (!query) return this.show([]);
    const r = await this.o.host.history('history.search', { query, limit: 50 });
    if (query !== this.asked) return;
    if (!r.ok) {
      this.status.setText(`⚠ ${r.message}`);
      this.o.log('history search failed', { query, message: r.message });
      return;
    }
    this.show(r.result.results);
    this.status.setText(historyStatusText(r.result.results.length, r.result.progress, r.result.unreachable));
    this.o.log('history results', {
      query,
      results: r.result.results.map((x) => ({ agent: x.agent, conversation: x.conversation, cwd: x.cwd, lines: x.lines.map((l) => l.text) })),
    });
  }

  private show(results: HistoryResult[]): void {
    this.results = results;
    const { layout } = this.list;
    for (const w of this.rows) {
      layout.removeWidget(w);
      w.close();
    }
    this.rows = results.map((r, i) => {
      const row = this.row(r);
      // A click selects, a double-click resumes.
      row.addEventListener(WidgetEventTypes.MouseButtonPress, () => this.select(i));
      row.addEventListener(WidgetEventTypes.MouseButtonDblClick, () => void this.resume());
      return row;
    });
    this.rows.forEach((w, i) => layout.insertWidget(i, w));
    this.select(0);
  }

  /** Marks the n-th row as the one Enter resumes, and scrolls it into view. */
  private select(n: number): void {
    this.selected = n;
    this.rows.forEach((w, i) => w.setInlineStyle(i === n ? `background-color: ${this.o.chrome.selection}; border-radius: 8px;` : 'background: transparent;'));
    const w = this.rows[n];
    if (w) this.scroll.ensureWidgetVisible(w);
  }

  /** One result: icon; agent and first prompt; folder, machine, day; its best matching lines. */
  private row(r: HistoryResult): QWidget {
    const { widget, layout } = boxWidget('row', { name: 'historyRow', margins: [10, 8, 10, 8], spacing: 12 });
    const icon = agentIconLabel(this.o.host.agent(r.agent), ICON_PX);
    layout.addWidget(icon, 0, AlignmentFlag.AlignTop);
    const { widget: textCol, layout: col } = boxWidget('column', { spacing: 3 });
    const { widget: head, layout: headRow } = boxWidget('row', { spacing: 8 });
    headRow.addWidget(text(this.o.host.agentName(r.agent), 'historyAgent'));
    headRow.addWidget(text(resultTitle(r), 'historyTitle'), 1);
    col.addWidget(head);
    col.addWidget(text(resultFacts(r, homedir(), new Date()), 'historyFacts'));
    const mark = `color: ${this.o.chrome.accent}; font-weight: 700;`;
    for (const l of r.lines.slice(0, LINES_SHOWN)) {
      const line = text(`${l.role === 'user' ? 'You' : 'Agent'}: ${highlightHits(l.text, l.hits, mark)}`, 'historyLine');
      line.setTextFormat(TextFormat.RichText);
      col.addWidget(line);
    }
    layout.addWidget(textCol, 1);
    return widget;
  }

  private step(by: 1 | -1): void {
    const n = this.rows.length;
    if (n) this.select((this.selected + by + n) % n);
  }

  /** Resumes the selected conversation (or brings its open tab forward). */
  private async resume(): Promise<void> {
    const r = this.results[this.selected];
    if (!r) return;
    if (!r.conversation) {
      this.status.setText('This conversation has no id its agent can resume.');
      return;
    }
    this.status.setText(`Resuming in ${resultFacts({ ...r, lastActivity: null }, homedir(), new Date())}…`);
    const a = await this.o.host.history('history.resume', { conversation: r.conversation, agent: r.agent, machine: r.machine || undefined });
    if (!a.ok) {
      this.status.setText(`⚠ ${a.message}`);
      this.o.log('history resume failed', { conversation: r.conversation, code: a.code, message: a.message });
      return;
    }
    this.o.log('history resumed', { conversation: r.conversation, session: a.result.id, opened: a.result.opened });
    this.status.setText(a.result.opened ? 'Resumed in a new tab.' : 'It was already open: brought to the front.');
    this.o.focus(a.result.id);
  }

  close(): void {
    this.window.close();
  }
}

/** A label that does not wrap, with a style-sheet name. */
function text(value: string, name: string): QLabel {
  return label(value, name, false);
}
