// The window's session list: rows grouped by project folder, each with a status dot, the agent's
// icon, the title, and the agent and time in its state. A session that needs you is painted so it
// cannot be missed.
//
// The whole list is one widget that paints its visible rows itself. It was a QWidget per row
// (six with its dot, icon and labels) plus one per folder heading; with 50 sessions every change
// to a visible row (a state, a selection, a time) cost Qt 45-100 ms of repainting and event
// dispatch across those hundreds of widgets, a stall you could feel while typing. Painting the
// list costs well under a millisecond.
import {
  QColor,
  QFont,
  QFontMetrics,
  QFontWeight,
  QMouseEvent,
  QPainter,
  QPaintEvent,
  QPixmap,
  QRect,
  QScrollArea,
  QWidget,
  RenderHint,
  ScrollBarPolicy,
  TextElideMode,
  WidgetAttribute,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import type { SidebarGroup, SidebarRow } from '../present/sidebarModel';
import { agentIcon } from './agentIcons';
import { darkChrome, type ChromeColors } from './chromeStyle';
import { sidebarDetail, sidebarHeading, sidebarRowTip } from '../present/sidebarText';

/** Agent icons in rows: 18 px, the height of the title's cap line plus a little. */
const ICON_PX = 18;
/** Pixels of the detail line (agent and time) and of the folder headings. */
const DETAIL_PX = 11;
const HEADING_PX = 11;
/** Row box: padding inside, gap between rows, corner radius; heading padding above and below. */
const ROW_PAD_X = 8;
const ROW_PAD_Y = 6;
const ROW_GAP = 2;
const ROW_RADIUS = 7;
const HEADING_PAD_TOP = 10;
const HEADING_PAD_BOTTOM = 4;
const HEADING_PAD_X = 6;
/** Status dot: a 12 px cell, radius 4 (5 when the session needs you). */
const DOT_CELL = 12;
const GAP = 8;
/** A session started by the one above it is indented by about a dot cell, under its parent's icon. */
const NEST_INDENT = 14;
/** A dropped machine's rows: still legible, plainly not live. */
const AWAY_OPACITY = 0.45;

const iconCache = new Map<string, QPixmap>();
function iconPixmap(file: string, tint?: string): QPixmap {
  const key = `${file}\u0000${tint ?? ''}`;
  let pm = iconCache.get(key);
  if (!pm) {
    // Drawn at twice its size and marked 2x, so it stays sharp on HiDPI screens.
    pm = agentIcon(file, tint).pixmap(ICON_PX * 2, ICON_PX * 2);
    pm.setDevicePixelRatio(2);
    iconCache.set(key, pm);
  }
  return pm;
}

export interface SidebarOptions {
  onSelect(id: string): void;
  /** A worktree session's row was double-clicked: open its review. */
  onReview?(id: string): void;
  chrome?: ChromeColors;
  /** After each paint: when it ended (wall clock, ms) and the state of each row it painted (benchmarks trace it). */
  onPainted?(at: number, states: Record<string, string>): void;
}

/** One line of the list as laid out: a folder heading or a session row, top to bottom. */
type Item = { kind: 'heading'; y: number; h: number; group: SidebarGroup } | { kind: 'row'; y: number; h: number; row: SidebarRow; detail: string };

/** Elided texts kept before the cache starts afresh: a few screens of rows, each title and
 *  detail at a few widths. */
const ELIDED_CACHE_SIZE = 500;

interface Fonts {
  title: QFont;
  titleBold: QFont;
  detail: QFont;
  heading: QFont;
  titleMetrics: QFontMetrics;
  titleBoldMetrics: QFontMetrics;
  detailMetrics: QFontMetrics;
  headingMetrics: QFontMetrics;
}

export class Sidebar {
  readonly widget = new QScrollArea();
  private readonly list = new QWidget();
  private items: Item[] = [];
  private selected: string | null = null;
  private groups: SidebarGroup[] = [];
  private chrome: ChromeColors;
  private readonly fonts: Fonts;
  private readonly colors = new Map<string, QColor>();
  /** Elided texts by font, width and text: a repaint (twenty agents' titles changing) asks Qt
   *  only for the texts it has not elided before. Cleared when it grows past ELIDED_CACHE_SIZE. */
  private readonly elided = new Map<string, string>();
  private tipShown = '';
  private height = -1;

  constructor(private readonly opts: SidebarOptions) {
    this.chrome = opts.chrome ?? darkChrome;
    this.widget.setObjectName('sidebarScroll');
    this.widget.setWidgetResizable(true);
    this.widget.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
    // Not matched by the window's style sheet: a styled background would be drawn over our paint.
    this.list.setObjectName('sessionList');
    // It paints every pixel of itself: Qt need not paint what is behind it first.
    this.list.setAttribute(WidgetAttribute.WA_OpaquePaintEvent, true);
    this.list.setMouseTracking(true);
    this.fonts = makeFonts(this.list.font());
    this.list.addEventListener(WidgetEventTypes.Paint, (native) => this.paint(new QPaintEvent(native as never).rect()));
    this.list.addEventListener(WidgetEventTypes.MouseButtonPress, (native) => {
      const item = this.itemAt(new QMouseEvent(native as never).y());
      if (item?.kind === 'row') this.opts.onSelect(item.row.id);
    });
    this.list.addEventListener(WidgetEventTypes.MouseButtonDblClick, (native) => {
      const item = this.itemAt(new QMouseEvent(native as never).y());
      if (item?.kind === 'row' && item.row.worktree) this.opts.onReview?.(item.row.id);
    });
    this.list.addEventListener(WidgetEventTypes.MouseMove, (native) => this.updateToolTip(new QMouseEvent(native as never).y()));
    this.widget.setWidget(this.list);
  }

  /** Shows these groups: lays the list out again and repaints the part in view (well under 1 ms). */
  update(groups: SidebarGroup[], selected: string | null): void {
    this.groups = groups;
    const newlySelected = selected !== this.selected;
    this.selected = selected;
    this.items = this.layout(groups);
    const height = this.totalHeight(this.items);
    if (height !== this.height) this.list.setMinimumHeight((this.height = height));
    this.list.update();
    if (newlySelected) this.revealSelected();
  }

  /** Scrolls the selected row into view (switching by keyboard may pick one out of sight). */
  private revealSelected(): void {
    // After Qt has applied the list's new height, or the scroll range may still be the old one.
    setTimeout(() => {
      const item = this.items.find((i) => i.kind === 'row' && i.row.id === this.selected);
      if (item) this.widget.ensureVisible(0, Math.round(item.y + item.h / 2), 0, Math.round(item.h / 2) + ROW_GAP);
    }, 0);
  }

  /** Repaints in these colours. */
  setChrome(c: ChromeColors): void {
    if (c === this.chrome) return;
    this.chrome = c;
    this.list.update();
  }

  /** Re-renders the times in state (called once a second by the window); repaints only on a change. */
  tick(): void {
    let changed = false;
    const now = Date.now();
    for (const item of this.items) {
      if (item.kind !== 'row') continue;
      const detail = sidebarDetail(item.row, now);
      if (detail !== item.detail) {
        item.detail = detail;
        changed = true;
      }
    }
    if (changed) this.list.update();
  }

  rowIds(): string[] {
    return this.groups.flatMap((g) => g.rows.map((r) => r.id));
  }

  private layout(groups: SidebarGroup[]): Item[] {
    const f = this.fonts;
    const headingH = HEADING_PAD_TOP + f.headingMetrics.height() + HEADING_PAD_BOTTOM;
    const rowH = 2 + 2 * ROW_PAD_Y + f.titleMetrics.height() + 1 + f.detailMetrics.height();
    const items: Item[] = [];
    const now = Date.now();
    let y = 0;
    for (const g of groups) {
      items.push({ kind: 'heading', y, h: headingH, group: g });
      y += headingH + ROW_GAP;
      for (const r of g.rows) {
        items.push({ kind: 'row', y, h: rowH, row: r, detail: sidebarDetail(r, now) });
        y += rowH + ROW_GAP;
      }
    }
    return items;
  }

  private totalHeight(items: Item[]): number {
    const last = items[items.length - 1];
    return last ? last.y + last.h : 0;
  }

  private itemAt(y: number): Item | undefined {
    return this.items.find((i) => y >= i.y && y < i.y + i.h);
  }

  private color(hex: string): QColor {
    let c = this.colors.get(hex);
    if (!c) {
      c = new QColor(hex);
      this.colors.set(hex, c);
    }
    return c;
  }

  private updateToolTip(y: number): void {
    const item = this.itemAt(y);
    const tip = !item ? '' : item.kind === 'heading' ? sidebarHeading(item.group).tip : sidebarRowTip(item.row);
    if (tip !== this.tipShown) this.list.setToolTip((this.tipShown = tip));
  }

  /** Paints the items that meet `area` (what Qt asks for: at most the part in view). */
  private paint(area: QRect): void {
    const c = this.chrome;
    const f = this.fonts;
    const width = this.list.width();
    const top = area.top();
    const bottom = top + area.height();
    const p = new QPainter(this.list);
    const painted: Record<string, string> = {};
    try {
      p.setRenderHint(RenderHint.Antialiasing, true);
      p.fillRect(0, top, width, bottom - top, this.color(c.sidebar));
      for (const item of this.items) {
        if (item.y + item.h < top || item.y > bottom) continue;
        if (item.kind === 'heading') {
          p.setFont(f.heading);
          p.setPen(this.color(c.muted));
          const text = this.elide(f.headingMetrics, 'heading', sidebarHeading(item.group).text, width - 2 * HEADING_PAD_X);
          p.drawText(HEADING_PAD_X, item.y + HEADING_PAD_TOP + f.headingMetrics.ascent(), text);
          continue;
        }
        this.paintRow(p, item.row, item.y, item.h, item.detail, width);
        painted[item.row.id] = item.row.state;
      }
    } finally {
      p.end();
    }
    this.opts.onPainted?.(performance.timeOrigin + performance.now(), painted);
  }

  /** `text` cut to `width` with an ellipsis in the font `metrics` measure (named `font`). */
  private elide(metrics: QFontMetrics, font: string, text: string, width: number): string {
    const key = `${font}\0${width}\0${text}`;
    let out = this.elided.get(key);
    if (out === undefined) {
      if (this.elided.size >= ELIDED_CACHE_SIZE) this.elided.clear();
      out = metrics.elidedText(text, TextElideMode.ElideRight, width);
      this.elided.set(key, out);
    }
    return out;
  }

  private paintRow(p: QPainter, r: SidebarRow, y: number, h: number, detail: string, width: number): void {
    const c = this.chrome;
    const f = this.fonts;
    const selected = this.selected === r.id;
    // A session whose machine is away is drawn dimmed, with its last known state.
    p.setOpacity(r.away ? AWAY_OPACITY : 1);
    // A failed session is painted in its own red; one that needs you otherwise, in orange.
    const n = r.failure ? c.failed : r.needsYou ? c.needsYou : null;
    const fill = n ? (selected ? n.selected : n.background) : selected ? c.selection : null;
    if (fill) {
      p.setPen(this.color(n ? n.border : c.selectionBorder));
      p.setBrush(this.color(fill));
      p.drawRoundedRect(0, y, width - 1, h - 1, ROW_RADIUS, ROW_RADIUS);
    }
    const midY = y + h / 2;
    const left = 1 + ROW_PAD_X + (r.nested ? NEST_INDENT : 0);
    // Status dot.
    const radius = r.state === 'attention' ? 5 : 4;
    const dotColor = this.color(r.failure ? c.failed.dot : c.state[r.state]);
    p.setPen(dotColor);
    p.setBrush(dotColor);
    p.drawEllipse(left + DOT_CELL / 2 - radius, midY - radius, radius * 2, radius * 2);
    // A failure's dot carries a "!" in the row's colour: read at a glance, not by hue alone.
    if (r.failure) {
      const cx = left + DOT_CELL / 2 - 1;
      const top = Math.round(midY) - 4;
      const ink = this.color(fill ?? c.sidebar);
      p.fillRect(cx, top, 2, 5, ink);
      p.fillRect(cx, top + 6, 2, 2, ink);
    }
    // Agent icon.
    let x = left + DOT_CELL + GAP;
    if (r.iconFile) p.drawPixmap(x, Math.round(midY - ICON_PX / 2), iconPixmap(r.iconFile, r.iconTint));
    x += ICON_PX + GAP;
    const textW = Math.max(0, width - x - ROW_PAD_X - 1);
    // Title, then agent and time.
    const titleMetrics = n ? f.titleBoldMetrics : f.titleMetrics;
    const textTop = y + 1 + ROW_PAD_Y;
    p.setFont(n ? f.titleBold : f.title);
    p.setPen(this.color(n ? n.text : c.text));
    p.drawText(x, textTop + titleMetrics.ascent(), this.elide(titleMetrics, n ? 'bold' : 'title', r.label, textW));
    p.setFont(f.detail);
    p.setPen(this.color(n ? n.detail : c.muted));
    p.drawText(x, textTop + f.titleMetrics.height() + 1 + f.detailMetrics.ascent(), this.elide(f.detailMetrics, 'detail', detail, textW));
    p.setOpacity(1);
  }
}

function makeFonts(base: QFont): Fonts {
  // Each font is made from the family and size: NodeGUI's QFont(QFont) shares the native font,
  // so setting the weight of a "copy" would change them all.
  const family = base.family();
  const size = base.pointSize();
  const title = new QFont(family, size);
  const titleBold = new QFont(family, size, QFontWeight.Bold);
  const detail = new QFont(family, size);
  detail.setPixelSize(DETAIL_PX);
  const heading = new QFont(family, size, QFontWeight.DemiBold);
  heading.setPixelSize(HEADING_PX);
  return {
    title,
    titleBold,
    detail,
    heading,
    titleMetrics: new QFontMetrics(title),
    titleBoldMetrics: new QFontMetrics(titleBold),
    detailMetrics: new QFontMetrics(detail),
    headingMetrics: new QFontMetrics(heading),
  };
}
