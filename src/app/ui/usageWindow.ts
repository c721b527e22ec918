// The Usage window: what the agents' conversations used — tokens in, out and from the cache, and
// the estimated cost — in all, as bars for each of the last 30 days, per agent and per day. Every
// figure comes from the host's `usage` verb (what `termio usage --by agent|day` prints); a model
// the price table lacks shows its tokens and "price unknown", never a guessed price. ⌘R refreshes.
import { AlignmentFlag, QGridLayout, QLabel, QMainWindow, QShortcut, QWidget } from '@nodegui/nodegui';
import type { ControlResult } from '../../protocol/control';
import type { UsageTokens } from '../../protocol/controlHistory';
import { costText, compactTokens, dayTitle, pricesText, unpricedText, usageChart, usageRowCells, USAGE_COLUMNS, type UsageChart } from '../present/usageText';
import type { AppHost } from '../client/appHost';
import { agentIconLabel } from './agentIcons';
import { addRefreshFrame } from './refreshFrame';
import { boxWidget, label } from './boxWidget';
import { usageStyleSheet, type ChromeColors } from './chromeStyle';

const WINDOW_SIZE: [number, number] = [860, 720];
/** The bars' area, in px. */
const CHART_HEIGHT = 140;
const ICON_PX = 18;

type Usage = ControlResult<'usage'>;

export interface UsageWindowOptions {
  host: AppHost;
  chrome: ChromeColors;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

export class UsageWindow {
  readonly window = new QMainWindow();
  private readonly detail = new QLabel();
  private readonly body = boxWidget('column', { name: 'usageBody', margins: [0, 4, 0, 4], spacing: 14 });
  private readonly status = new QLabel();
  private readonly refreshKey: QShortcut;
  private current: { agents: Usage; days: Usage } | null = null;
  /** What the body holds now, removed on the next paint. */
  private shown: QWidget[] = [];

  constructor(private readonly o: UsageWindowOptions) {
    this.window.setObjectName('usage');
    this.window.setWindowTitle('Usage');
    this.window.resize(...WINDOW_SIZE);
    const { widget: root, layout } = boxWidget('column', { name: 'usageRoot', margins: [24, 18, 24, 14], spacing: 4 });
    layout.addWidget(text('Usage', 'usageTitle'));
    this.detail.setObjectName('usageDetail');
    this.detail.setWordWrap(true);
    layout.addWidget(this.detail);
    this.refreshKey = addRefreshFrame(this.window, layout, {
      prefix: 'usage',
      body: this.body,
      status: this.status,
      gap: 10,
      refresh: () => void this.refresh(),
    });
    this.window.setCentralWidget(root);
    this.setChrome(o.chrome);
  }

  setChrome(c: ChromeColors): void {
    this.o.chrome = c;
    this.window.setStyleSheet(usageStyleSheet(c));
    if (this.current) this.paint(this.current.agents, this.current.days);
  }

  async open(): Promise<void> {
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
    await this.refresh();
  }

  async refresh(): Promise<void> {
    this.status.setText('Reading…');
    const [agents, days] = await Promise.all([this.o.host.history('usage', { by: 'agent' }), this.o.host.history('usage', { by: 'day' })]);
    if (!agents.ok || !days.ok) {
      const message = !agents.ok ? agents.message : !days.ok ? days.message : '';
      this.status.setText(`⚠ ${message}`);
      this.o.log('usage failed', { message });
      return;
    }
    this.current = { agents: agents.result, days: days.result };
    this.paint(agents.result, days.result);
    this.status.setText('');
  }

  private paint(agents: Usage, days: Usage): void {
    this.detail.setText(pricesText(agents.prices));
    const { layout } = this.body;
    for (const w of this.shown) {
      layout.removeWidget(w);
      w.close();
    }
    const chart = usageChart(days.rows, new Date().toISOString().slice(0, 10));
    const agentRows = agents.rows.map((r) => ({ cells: usageRowCells(this.o.host.agentName(r.key), r), row: r }));
    const dayRows = days.rows.slice(0, 30).map((r) => ({ cells: usageRowCells(dayTitle(r.key), r), row: r }));
    this.shown = [
      this.summary(agents.total),
      this.chartCard(chart),
      this.tableCard('By agent', agentRows, agents.total, true),
      this.tableCard('By day', dayRows, days.total, false),
    ];
    this.shown.forEach((w, i) => layout.insertWidget(i, w));
    // What the window shows, for tests and support: the cells as drawn.
    this.o.log('usage shown', {
      total: usageRowCells('total', agents.total),
      agents: agentRows.map((r) => r.cells),
      days: dayRows.map((r) => [r.row.key, ...r.cells.slice(1)]),
      chart: { unit: chart.unit, total: chart.totalText, bars: chart.bars.filter((b) => b.value > 0).map((b) => b.text) },
    });
  }

  /** Four figures across the top: the cost, then the tokens in, out and from the cache. */
  private summary(total: UsageTokens): QWidget {
    const { widget, layout } = boxWidget('row', { spacing: 12 });
    const tile = (title: string, value: string, tip = '') => {
      const { widget: w, layout: col } = boxWidget('column', { name: 'usageTile', margins: [14, 10, 14, 12], spacing: 2 });
      col.addWidget(text(title.toUpperCase(), 'usageTileTitle'));
      const v = text(value, 'usageTileValue');
      if (tip) v.setToolTip(tip);
      col.addWidget(v);
      layout.addWidget(w, 1);
    };
    tile('Estimated cost', costText(total), unpricedText(total));
    tile('Input', compactTokens(total.input));
    tile('Output', compactTokens(total.output));
    tile('Cache', compactTokens(total.cacheRead + total.cacheWrite), `${compactTokens(total.cacheRead)} read, ${compactTokens(total.cacheWrite)} written`);
    return widget;
  }

  /** The bars of the last 30 days: one column per day, its height its share of the tallest. */
  private chartCard(chart: UsageChart): QWidget {
    const { widget, layout } = boxWidget('column', { name: 'usageCard', margins: [16, 12, 16, 12], spacing: 8 });
    const { widget: head, layout: headRow } = boxWidget('row', { spacing: 8 });
    headRow.addWidget(text(chart.title, 'usageCardTitle'), 1);
    headRow.addWidget(text(chart.totalText, 'usageMuted'));
    layout.addWidget(head);
    const { widget: bars, layout: barRow } = boxWidget('row', { spacing: 4 });
    bars.setFixedHeight(CHART_HEIGHT);
    const { widget: labels, layout: labelRow } = boxWidget('row', { spacing: 4 });
    for (const b of chart.bars) {
      const { widget: col, layout: c } = boxWidget('column');
      c.addStretch(1);
      const bar = new QWidget();
      // A day without use keeps a hairline, so the 30 days read as a row.
      bar.setObjectName(b.value > 0 ? 'usageBar' : 'usageBarEmpty');
      bar.setFixedHeight(b.value > 0 ? Math.max(3, Math.round((b.value / chart.max) * (CHART_HEIGHT - 4))) : 2);
      bar.setToolTip(b.text);
      c.addWidget(bar);
      col.setToolTip(b.text);
      barRow.addWidget(col, 1);
      const l = text(b.label, 'usageAxis');
      l.setAlignment(AlignmentFlag.AlignLeft);
      labelRow.addWidget(l, 1);
    }
    layout.addWidget(bars);
    layout.addWidget(labels);
    return widget;
  }

  /** A table card: the column heads, a row per key (an agent's icon beside its name), the total. */
  private tableCard(
    title: string,
    rows: { cells: string[]; row: UsageTokens & { key: string } }[],
    total: UsageTokens,
    /** The keys are agents: each name gets its icon. */
    byAgent: boolean,
  ): QWidget {
    const { widget, layout } = boxWidget('column', { name: 'usageCard', margins: [16, 12, 16, 12], spacing: 8 });
    layout.addWidget(text(title, 'usageCardTitle'));
    const grid = new QWidget();
    const g = new QGridLayout();
    g.setContentsMargins(0, 0, 0, 0);
    g.setHorizontalSpacing(18);
    g.setVerticalSpacing(6);
    grid.setLayout(g);
    USAGE_COLUMNS.forEach((h, i) => g.addWidget(cell(h, 'usageHead', i), 0, i));
    if (rows.length === 0) g.addWidget(text('No conversations with token counts yet.', 'usageMuted'), 1, 0, 1, USAGE_COLUMNS.length);
    rows.forEach((r, n) => {
      r.cells.forEach((v, i) => {
        const name = i === 0 && byAgent ? this.agentCell(r.row.key, v) : cell(v, v === 'price unknown' ? 'usageMuted' : 'usageCell', i);
        if (i === USAGE_COLUMNS.length - 1 && r.row.unpriced.length) name.setToolTip(unpricedText(r.row));
        g.addWidget(name, n + 1, i);
      });
    });
    // A hairline across the table above the total.
    const rule = new QWidget();
    rule.setObjectName('usageRule');
    rule.setFixedHeight(1);
    g.addWidget(rule, rows.length + 1, 0, 1, USAGE_COLUMNS.length);
    usageRowCells('Total', total).forEach((v, i) => g.addWidget(cell(v, 'usageTotal', i), rows.length + 2, i));
    g.setColumnStretch(0, 1);
    layout.addWidget(grid);
    return widget;
  }

  /** An agent's name with its icon. */
  private agentCell(agent: string, name: string): QWidget {
    const { widget, layout } = boxWidget('row', { spacing: 8 });
    const icon = agentIconLabel(this.o.host.agent(agent), ICON_PX);
    layout.addWidget(icon);
    layout.addWidget(text(name, 'usageCell'), 1);
    return widget;
  }

  close(): void {
    this.window.close();
  }
}

/** A label that does not wrap, with a style-sheet name. */
function text(value: string, name: string): QLabel {
  return label(value, name, false);
}

/** A table cell: the first column left, the figures right-aligned so their digits line up. */
function cell(value: string, name: string, column: number): QLabel {
  const l = text(value, name);
  l.setAlignment(column === 0 ? AlignmentFlag.AlignLeft | AlignmentFlag.AlignVCenter : AlignmentFlag.AlignRight | AlignmentFlag.AlignVCenter);
  return l;
}
