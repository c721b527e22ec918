// The compare view of a fan-out: one prompt's members side by side as cards — agent, branch,
// state, diff stat against the base, the last run of the repository's test command — with Run
// tests, Review (the member's review view), Close… and Merge on each. Merging one member leaves
// the others as they were; Close… closes one as its tab does (keep or remove its worktree, asked
// again before work at stake goes). A window of its own; every answer comes from the host's
// fan-out verbs, the ones `termio sessions fanout show|test|merge` sends. It follows the members'
// states; ⌘R refreshes.
import { AlignmentFlag, QLabel, QMainWindow, QPushButton, QShortcut, QWidget, TextFormat } from '@nodegui/nodegui';
import { homedir } from 'node:os';
import type { ControlResult, FanoutMemberStatus } from '../../protocol/control';
import { shortenHome } from '../../protocol/homePath';
import { fanoutHeading, memberStatText, memberStateText, memberTestText, mergeLabel } from '../present/fanoutText';
import { darkDiff, lightDiff } from '../present/reviewText';
import type { AppHost } from '../client/appHost';
import { agentIconLabel } from './agentIcons';
import { addRefreshFrame } from './refreshFrame';
import { boxWidget } from './boxWidget';
import { compareStyleSheet, type ChromeColors } from './chromeStyle';
import { button } from './reviewCommentsPanel';

const WINDOW_SIZE: [number, number] = [900, 560];
/** The agent icon on a card, in px (drawn at twice that for HiDPI). */
const ICON_PX = 28;

type Shown = ControlResult<'sessions.fanout.show'>;

export interface CompareWindowOptions {
  host: AppHost;
  group: string;
  chrome: ChromeColors;
  monoFont: string;
  /** Opens a member's review view. */
  review: (sessionId: string) => void;
  /** Closes a member's session the way its tab does: asking whether its worktree stays, and again
   *  before removing work at stake. */
  close: (sessionId: string) => void;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export class CompareWindow {
  readonly window = new QMainWindow();
  private readonly title = new QLabel();
  private readonly detail = new QLabel();
  private readonly cards = boxWidget('column', { name: 'compareCards', spacing: 10 });
  private readonly status = new QLabel();
  private readonly refreshKey: QShortcut;
  private current: Shown | null = null;
  private chrome: ChromeColors;
  /** Members whose tests run now (their button says so). */
  private readonly testing = new Set<string>();
  /** The cards shown, above the stretch that keeps them at the top. */
  private shownCards: QWidget[] = [];

  constructor(private readonly o: CompareWindowOptions) {
    this.chrome = o.chrome;
    this.window.setObjectName('compare');
    this.window.setWindowTitle('Compare fan-out');
    this.window.resize(...WINDOW_SIZE);
    const { widget: root, layout } = boxWidget('column', { name: 'compareRoot', margins: [20, 16, 20, 14], spacing: 6 });
    this.title.setObjectName('compareTitle');
    this.title.setWordWrap(true);
    this.detail.setObjectName('compareDetail');
    layout.addWidget(this.title);
    layout.addWidget(this.detail);
    // ⌘R (Ctrl+R elsewhere): the members' states and diffs as they are now.
    this.refreshKey = addRefreshFrame(this.window, layout, {
      prefix: 'compare',
      body: this.cards,
      status: this.status,
      gap: 8,
      refresh: () => void this.refresh(),
    });
    this.window.setCentralWidget(root);
    // A member's state changes, or its session closes: the view follows (its diff with it).
    const member = (id: string) => this.current?.members.some((m) => m.sessionId === id) === true;
    o.host.registry.onUpdated(({ record, previous }) => {
      if (record.state !== previous.state && member(record.id) && this.window.isVisible()) void this.refresh();
    });
    o.host.registry.onRemoved((r) => {
      if (member(r.id) && this.window.isVisible()) void this.refresh();
    });
    this.setChrome(o.chrome);
  }

  setChrome(c: ChromeColors): void {
    this.chrome = c;
    this.window.setStyleSheet(`${compareStyleSheet(c)}\n#compareBranch { font-family: '${this.o.monoFont}'; }`);
    if (this.current) this.paint(this.current);
  }

  async open(): Promise<void> {
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const r = await this.o.host.fanout('sessions.fanout.show', { group: this.o.group });
    if (!r.ok) {
      this.status.setText(`⚠ ${r.message}`);
      return;
    }
    this.current = r.result;
    this.paint(r.result);
    this.o.log('compare loaded', { group: this.o.group, members: r.result.members.length, merged: r.result.group.merged });
  }

  private paint(s: Shown): void {
    const head = fanoutHeading(s.group, (p) => shortenHome(p, homedir()));
    this.title.setText(head.title);
    this.detail.setText(head.detail);
    const { layout } = this.cards;
    for (const w of this.shownCards) {
      layout.removeWidget(w);
      w.close();
    }
    this.shownCards = s.members.map((m) => this.card(m, s));
    this.shownCards.forEach((w, i) => layout.insertWidget(i, w));
    if (!this.status.text())
      this.status.setText(s.testCommand ? `Tests: ${s.testCommand}` : 'Name a "test" command in .termio/worktree.json to run tests per member.');
  }

  /** One member: icon, agent and branch; state; diff stat and tests; its buttons. */
  private card(m: FanoutMemberStatus, s: Shown): QWidget {
    const { widget, layout } = boxWidget('row', { name: 'compareCard', margins: [14, 12, 14, 12], spacing: 14 });
    const icon = agentIconLabel(this.o.host.agent(m.agent), ICON_PX);
    layout.addWidget(icon, 0, AlignmentFlag.AlignTop);
    const { widget: names, layout: col } = boxWidget('column', { spacing: 3 });
    const { widget: top, layout: topRow } = boxWidget('row', { spacing: 8 });
    topRow.addWidget(text(this.o.host.agentName(m.agent), 'compareAgent'));
    topRow.addWidget(this.statePill(m), 0, AlignmentFlag.AlignVCenter);
    topRow.addStretch(1);
    col.addWidget(top);
    col.addWidget(text(m.branch, 'compareBranch'));
    col.addWidget(this.facts(m));
    layout.addWidget(names, 1);
    const { widget: acts, layout: row } = boxWidget('row', { spacing: 6 });
    if (s.testCommand) row.addWidget(this.testButton(m));
    row.addWidget(button('Review', 'compareReview', () => this.o.review(m.sessionId)));
    if (m.state !== 'closed') row.addWidget(button('Close…', 'compareClose', () => this.o.close(m.sessionId)));
    if (s.group.merged === m.branch) row.addWidget(text('✓ Merged', 'compareMerged'));
    else {
      const merge = button(mergeLabel(m), 'compareMerge', () => void this.merge(m));
      // Nothing to merge: the base has it all already.
      merge.setEnabled(m.present && (m.files ?? 0) > 0);
      row.addWidget(merge);
    }
    layout.addWidget(acts, 0, AlignmentFlag.AlignVCenter);
    return widget;
  }

  /** "3 files  +42 −7 · 1 uncommitted · ✓ tests passed", coloured as the review's diff is. */
  private facts(m: FanoutMemberStatus): QLabel {
    const diff = this.chrome.appearance === 'light' ? lightDiff : darkDiff;
    const stat = escape(memberStatText(m))
      .replace(/\+(\d+)/, `<span style="color:${diff.added.text}; background:${diff.added.background};">&nbsp;+$1&nbsp;</span>`)
      .replace(/\u2212(\d+)/, `<span style="color:${diff.removed.text}; background:${diff.removed.background};">&nbsp;−$1&nbsp;</span>`);
    const parts = [stat.replace('  ', ' &nbsp;')];
    if (m.uncommitted > 0) parts.push(`${m.uncommitted} uncommitted`);
    const test = memberTestText(m);
    if (test)
      parts.push(`<span style="color:${m.test?.passed ? this.chrome.state.done : this.chrome.failed.dot};">${m.test?.passed ? '✓' : '✗'} ${test}</span>`);
    const l = text(parts.join(' &nbsp;·&nbsp; '), 'compareFacts');
    l.setTextFormat(TextFormat.RichText);
    if (m.test) l.setToolTip(m.test.output.slice(-1500));
    return l;
  }

  private statePill(m: FanoutMemberStatus): QLabel {
    const pill = text(memberStateText(m), 'compareState');
    const color = m.state in this.chrome.state ? this.chrome.state[m.state as keyof ChromeColors['state']] : this.chrome.muted;
    pill.setInlineStyle(`color: ${color}; border: 1px solid ${color};`);
    return pill;
  }

  private testButton(m: FanoutMemberStatus): QPushButton {
    const running = this.testing.has(m.sessionId);
    const b = button(running ? 'Running…' : m.test ? 'Run again' : 'Run tests', 'compareTest', () => void this.test(m));
    b.setEnabled(!running && m.present);
    return b;
  }

  private async test(m: FanoutMemberStatus): Promise<void> {
    this.testing.add(m.sessionId);
    this.status.setText(`Running the tests of ${m.branch}…`);
    if (this.current) this.paint(this.current);
    const r = await this.o.host.fanout('sessions.fanout.test', { group: this.o.group, member: m.branch });
    this.testing.delete(m.sessionId);
    this.status.setText(r.ok ? `${m.branch}: tests ${r.result.test.passed ? 'passed' : 'failed'}` : `⚠ ${r.message}`);
    this.o.log('compare test', { member: m.branch, ok: r.ok, passed: r.ok ? r.result.test.passed : null });
    await this.refresh();
  }

  private async merge(m: FanoutMemberStatus): Promise<void> {
    this.status.setText(`Merging ${m.branch}…`);
    const r = await this.o.host.fanout('sessions.fanout.merge', { group: this.o.group, member: m.branch, commit: m.uncommitted > 0 ? true : undefined });
    const kept = r.ok && r.result.kept.length ? ` The others are kept as they were: ${r.result.kept.join(', ')}.` : '';
    this.status.setText(r.ok ? `✓ ${r.result.message}.${kept}` : `⚠ ${r.message}`);
    this.o.log('compare merge', { member: m.branch, ok: r.ok, message: r.ok ? r.result.message : r.message });
    await this.refresh();
  }

  close(): void {
    this.window.close();
  }
}

function text(value: string, name: string): QLabel {
  const l = new QLabel();
  l.setObjectName(name);
  l.setText(value);
  return l;
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
