// The window's session list: rows grouped by project folder, each with a status dot, the title,
// the agent and the time in its state. A session that needs you is painted so it cannot be
// missed. Rows are updated in place; the list is rebuilt only when sessions come, go or move.
import { Direction, QBoxLayout, QLabel, QPixmap, QScrollArea, QWidget, ScrollBarPolicy, WidgetEventTypes } from '@nodegui/nodegui';
import type { SessionState } from '../../protocol';
import { formatAge, stateLabel, type SidebarGroup, type SidebarRow } from '../host/sidebarModel';
import { agentIcon } from './agentIcons';
import { darkChrome, groupHeaderStyleSheet, sidebarRowStyleSheet, type ChromeColors } from './chromeStyle';
import { TextLine } from './textLine';

/** The agent and time line under a row's title. */
const DETAIL_PX = 11;
/** Agent icons in rows: 18 px, the height of the title's cap line plus a little. */
const ICON_PX = 18;
const iconCache = new Map<string, QPixmap>();
function iconPixmap(file: string, tint?: string): QPixmap {
  const key = `${file}\u0000${tint ?? ''}`;
  let pm = iconCache.get(key);
  if (!pm) {
    pm = agentIcon(file, tint).pixmap(ICON_PX * 2, ICON_PX * 2);
    iconCache.set(key, pm);
  }
  return pm;
}

interface RowWidgets {
  row: QWidget;
  dot: QLabel;
  icon: QLabel;
  /** Painted lines, not QLabels: a label's new text re-lays out (and repaints) the whole list. */
  title: TextLine;
  detail: TextLine;
  data: SidebarRow;
  /** What is on screen now, so an update touches Qt only where something changed. */
  shown: { style: string; dot: string; tip: string };
}

const dotCache = new Map<string, QPixmap>();
function dotPixmap(state: SessionState, color: string, key: string): QPixmap {
  let pm = dotCache.get(key);
  if (!pm) {
    pm = new QPixmap();
    const r = state === 'attention' ? 5 : 4;
    pm.loadFromData(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="12" height="12"><circle cx="6" cy="6" r="${r}" fill="${color}"/></svg>`), 'SVG');
    dotCache.set(key, pm);
  }
  return pm;
}

export interface SidebarOptions {
  onSelect(id: string): void;
  chrome?: ChromeColors;
}

export class Sidebar {
  readonly widget = new QScrollArea();
  private readonly content = new QWidget();
  private readonly layout = new QBoxLayout(Direction.TopToBottom);
  private rows = new Map<string, RowWidgets>();
  private headers: QWidget[] = [];
  private shape = '';
  private selected: string | null = null;
  private groups: SidebarGroup[] = [];
  private chrome: ChromeColors;

  constructor(private readonly opts: SidebarOptions) {
    this.chrome = opts.chrome ?? darkChrome;
    this.widget.setObjectName('sidebarScroll');
    this.widget.setWidgetResizable(true);
    this.widget.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
    this.content.setObjectName('sidebarContent');
    this.layout.setContentsMargins(0, 0, 0, 0);
    this.layout.setSpacing(2);
    this.content.setLayout(this.layout);
    this.widget.setWidget(this.content);
  }

  /** Shows these groups; cheap when only states, titles or times changed. */
  update(groups: SidebarGroup[], selected: string | null): void {
    this.groups = groups;
    const shape = groups.map((g) => `${g.folder}\u0000${g.label}\u0000${g.rows.map((r) => r.id).join(',')}`).join('\u0001');
    if (shape !== this.shape) {
      this.rebuild(groups);
      this.shape = shape;
    }
    this.selected = selected;
    for (const g of groups) for (const r of g.rows) this.refreshRow(r);
  }

  /** Restyles headers, rows and dots in these colours. */
  setChrome(c: ChromeColors): void {
    if (c === this.chrome) return;
    this.chrome = c;
    for (const h of this.headers) if (h.objectName() === 'groupHeader') h.setStyleSheet(groupHeaderStyleSheet(c));
    for (const w of this.rows.values()) this.refreshRow(w.data);
  }

  /** Re-renders the times in state (called once a second by the window). */
  tick(): void {
    for (const w of this.rows.values()) w.detail.setText(this.detailText(w.data));
  }

  rowIds(): string[] {
    return this.groups.flatMap((g) => g.rows.map((r) => r.id));
  }

  private detailText(r: SidebarRow): string {
    const exit = r.exited ? ` · exited ${r.exited.signal ? `by signal ${r.exited.signal}` : r.exited.exitCode}` : '';
    return `${r.agentName} · ${stateLabel[r.state]} ${formatAge(Date.now() - r.stateSince)}${exit}`;
  }

  private refreshRow(r: SidebarRow): void {
    const w = this.rows.get(r.id);
    if (!w) return;
    w.data = r;
    // Style sheets are costly to apply (Qt re-polishes the row): only on a real change.
    const style = sidebarRowStyleSheet(this.chrome, r.needsYou, this.selected === r.id);
    if (style !== w.shown.style) w.row.setStyleSheet((w.shown.style = style));
    const dot = `${r.state} ${this.chrome.state[r.state]}`;
    if (dot !== w.shown.dot) w.dot.setPixmap(dotPixmap(r.state, this.chrome.state[r.state], (w.shown.dot = dot)));
    const n = r.needsYou ? this.chrome.needsYou : null;
    w.title.setStyle(n ? n.text : this.chrome.text, r.needsYou);
    w.detail.setStyle(n ? n.detail : this.chrome.muted);
    w.title.setText(r.label);
    w.detail.setText(this.detailText(r));
    const tip = `${r.label}\n${r.cwd}\n${stateLabel[r.state]}`;
    if (tip !== w.shown.tip) w.row.setToolTip((w.shown.tip = tip));
  }

  private rebuild(groups: SidebarGroup[]): void {
    for (const w of this.rows.values()) {
      this.layout.removeWidget(w.row);
      w.row.close();
    }
    for (const h of this.headers) {
      this.layout.removeWidget(h);
      h.close();
    }
    this.rows.clear();
    this.headers = [];
    // Drop the trailing stretch from the last build.
    this.content.setLayout(this.layout);
    for (const g of groups) {
      const header = new QLabel();
      header.setObjectName('groupHeader');
      header.setText(g.label.toUpperCase());
      header.setToolTip(g.folder);
      header.setStyleSheet(groupHeaderStyleSheet(this.chrome));
      this.layout.addWidget(header);
      this.headers.push(header);
      for (const r of g.rows) {
        const w = this.makeRow(r);
        this.rows.set(r.id, w);
        this.layout.addWidget(w.row);
      }
    }
    const spacer = new QWidget();
    spacer.setObjectName('sidebarSpacer');
    this.layout.addWidget(spacer, 1);
    this.headers.push(spacer);
  }

  private makeRow(r: SidebarRow): RowWidgets {
    const row = new QWidget();
    row.setObjectName('row');
    const h = new QBoxLayout(Direction.LeftToRight);
    h.setContentsMargins(8, 6, 8, 6);
    h.setSpacing(8);
    row.setLayout(h);
    const dot = new QLabel();
    dot.setObjectName('rowDot');
    dot.setFixedSize(12, 12);
    // The agent's icon, drawn at twice its size and scaled down, so it stays sharp on HiDPI.
    const icon = new QLabel();
    icon.setObjectName('rowIcon');
    icon.setFixedSize(ICON_PX, ICON_PX);
    icon.setScaledContents(true);
    if (r.iconFile) icon.setPixmap(iconPixmap(r.iconFile, r.iconTint));
    const texts = new QWidget();
    const v = new QBoxLayout(Direction.TopToBottom);
    v.setContentsMargins(0, 0, 0, 0);
    v.setSpacing(1);
    texts.setLayout(v);
    const title = new TextLine('rowTitle');
    const detail = new TextLine('rowDetail', DETAIL_PX);
    v.addWidget(title.widget);
    v.addWidget(detail.widget);
    h.addWidget(dot);
    h.addWidget(icon);
    h.addWidget(texts, 1);
    row.addEventListener(WidgetEventTypes.MouseButtonPress, () => this.opts.onSelect(r.id));
    return { row, dot, icon, title, detail, data: r, shown: { style: '', dot: '', tip: '' } };
  }
}
