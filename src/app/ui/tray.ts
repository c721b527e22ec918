// The menu-bar (tray) icon: the aggregate state of every session at a glance (attention over
// working over done over idle, animated while agents work, with a count of sessions that need
// you), and a menu that lists each session to jump to it: the attention queue first (longest
// waiting on top, with its age), then the rest most urgent first.
import {
  AspectRatioMode,
  GlobalColor,
  QAction,
  QIcon,
  QImage,
  QImageFormat,
  QMenu,
  QPainter,
  QPixmap,
  QSystemTrayIcon,
  QWidget,
  RenderHint,
  TransformationMode,
  WidgetEventTypes,
} from '@nodegui/nodegui';
import type { SessionState } from '../../protocol/status/sessionState';
import type { Logger } from '../services/log';
import { aggregateState, byUrgency } from '../present/sidebarModel';
import { trayActivationShowsWindow } from './trayActivation';
import { TRAY_FRAMES, TRAY_FRAME_MS, trayIconSvg } from './trayIcon';
import { trayMenu, trayQuestionMenu, trayTooltip, type TrayAgent, type TrayItem, type TrayMenu } from './presenters/trayText';
import { darkFailedColor, darkStateColors } from './stateColors';

export type { TrayAgent, TrayItem } from './presenters/trayText';

export interface TrayOptions {
  onShow(): void;
  onQuit(): void;
  /** Quit and end every session. */
  onQuitEnd(): void;
  onSelectSession(id: string): void;
  /** A choice of a waiting question was picked: answer it (the host checks it is still asked). */
  onAnswer?(sessionId: string, questionId: string, choice: number): void;
  onNewSession(agentId: string | null): void;
  onSettings(): void;
  /** The Usage window and the History pane. */
  onUsage(): void;
  onHistory(): void;
  /** A message shown with showMessage() was clicked (Qt does not say which one). */
  onMessageClicked?(): void;
  /** Where the tray says what it shows (debug) and when its menu opens (tests and benchmarks wait on it). */
  log?: Logger;
}

const iconCache = new Map<string, QIcon>();
function svgIcon(svg: string): QIcon {
  let icon = iconCache.get(svg);
  if (!icon) {
    const pm = new QPixmap();
    pm.loadFromData(Buffer.from(svg), 'SVG');
    icon = new QIcon(pm);
    iconCache.set(svg, icon);
  }
  return icon;
}

/** Menus are drawn dark on both platforms' menu bars here; the dark palette reads on either. */
const dotColor = darkStateColors;
/** The dot's colour: the state's, or the failure red for a session that stopped on one. */
const dotFill = (state: SessionState, failed: boolean): string => (failed ? darkFailedColor : dotColor[state]);
export function stateDotIcon(state: SessionState, failed = false): QIcon {
  return svgIcon(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="16" height="16"><circle cx="8" cy="8" r="${state === 'attention' ? 6 : 5}" fill="${dotFill(state, failed)}"/></svg>`,
  );
}

/** Menu icons are drawn at 16-24 px; composed at 64 px they stay sharp on Retina menus. */
const MENU_ICON_PX = 64;
const MARK_PX = 52;
const DOT_PX = 28;
const composed = new Map<string, QIcon>();

/** A session's menu icon: its agent's mark with the state as a dot in the corner (just the dot
 *  when the agent has no readable icon file). */
export function sessionIcon(state: SessionState, agentIcon?: string, failed = false): QIcon {
  if (!agentIcon) return stateDotIcon(state, failed);
  const key = `${state}${failed ? '!' : ''}\u0000${agentIcon}`;
  let icon = composed.get(key);
  if (icon) return icon;
  const mark = new QImage();
  if (!mark.load(agentIcon)) return stateDotIcon(state, failed);
  const dot = new QImage();
  dot.loadFromData(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="${DOT_PX}" height="${DOT_PX}"><circle cx="12" cy="12" r="10" fill="${dotFill(state, failed)}" stroke="#11141a" stroke-width="2.5"/></svg>`,
    ),
    'SVG',
  );
  const img = new QImage(MENU_ICON_PX, MENU_ICON_PX, QImageFormat.ARGB32_Premultiplied);
  img.fill(GlobalColor.transparent);
  const p = new QPainter(img);
  p.setRenderHint(RenderHint.SmoothPixmapTransform, true);
  p.drawImage(0, 0, mark.scaled(MARK_PX, MARK_PX, AspectRatioMode.KeepAspectRatio, TransformationMode.SmoothTransformation));
  p.drawImage(MENU_ICON_PX - DOT_PX, MENU_ICON_PX - DOT_PX, dot);
  p.end();
  icon = new QIcon(QPixmap.fromImage(img, 0));
  composed.set(key, icon);
  return icon;
}

const fileIcons = new Map<string, QIcon>();
function fileIcon(file: string): QIcon {
  let icon = fileIcons.get(file);
  if (!icon) fileIcons.set(file, (icon = new QIcon(file)));
  return icon;
}

export class Tray {
  readonly icon = new QSystemTrayIcon();
  readonly menu = new QMenu();
  private readonly ticker = new QWidget();
  /** Qt objects (layouts, actions, handlers) referenced only by Qt: held so the garbage collector leaves them be. */
  private readonly keep: unknown[] = [];
  private items: TrayItem[] = [];
  private agents: TrayAgent[] = [];
  private state: SessionState = 'idle';
  private attentionCount = 0;
  private frame = 0;
  private timerId: number | null = null;
  private iconKey = '';
  private tooltip = '';
  /** What the menu was last built from; a refresh that changes none of it leaves the menu alone. */
  private menuKey = '';
  private menuText: string[] = [];
  private menuIds: string[] = [];
  /** The sessions' lines in the menu, in its order (tests read them from the log). */
  private menuLines: string[] = [];
  /** Last time the icon or menu was brought up to date (benchmarks read it). */
  lastUpdate = 0;
  /** Frames the working animation has drawn (tests and benchmarks read it). */
  framesDrawn = 0;
  /** How long the last menu rebuild took, in ms. */
  lastMenuBuildMs = 0;

  constructor(private readonly opts: TrayOptions) {
    this.icon.addEventListener('activated', (reason) => {
      if (trayActivationShowsWindow(reason, process.platform)) opts.onShow();
    });
    this.icon.addEventListener('messageClicked', () => opts.onMessageClicked?.());
    this.ticker.addEventListener(WidgetEventTypes.Timer, () => {
      this.frame = (this.frame + 1) % TRAY_FRAMES;
      this.framesDrawn++;
      this.setIcon();
    });
    // The menu is brought up to date as it opens (states, titles and the ageing times in state).
    this.menu.addEventListener('aboutToShow', () => {
      const t0 = performance.now();
      this.rebuildMenu();
      this.opts.log?.info('tray menu opened', { sessions: this.menuIds, lines: this.menuLines, buildMs: +(performance.now() - t0).toFixed(2) });
    });
    this.icon.setContextMenu(this.menu);
    this.update([], []);
    // Never an empty menu: some platforms will not open one (and so never ask to fill it).
    this.rebuildMenu();
    this.icon.show();
  }

  /** The sessions and agents changed: redraw the icon and tooltip (each only if it changed), and the menu if it is open. */
  update(items: TrayItem[], agents: TrayAgent[] = this.agents): void {
    this.items = byUrgency(items);
    this.agents = agents;
    const counts: Record<SessionState, number> = { attention: 0, working: 0, done: 0, idle: 0 };
    for (const i of items) counts[i.state]++;
    const state = aggregateState(items.map((i) => i.state));
    if (state !== this.state || counts.attention !== this.attentionCount) this.opts.log?.debug('tray state', { state, attention: counts.attention });
    this.state = state;
    this.attentionCount = counts.attention;
    this.animate(state === 'working');
    this.setIcon();
    const tooltip = trayTooltip(counts);
    if (tooltip !== this.tooltip) {
      this.tooltip = tooltip;
      this.icon.setToolTip(tooltip);
    }
    // Titles change with every spinner frame of a working agent: a closed menu is rebuilt only as
    // it opens (aboutToShow), an open one at once.
    if (this.menu.isVisible()) this.rebuildMenu();
    this.lastUpdate = performance.now();
  }

  /** A notification from the tray icon itself (Termio.app on macOS posts as the app). */
  showMessage(title: string, message: string): void {
    this.icon.showMessage(title, message);
  }

  get aggregate(): SessionState {
    return this.state;
  }

  /** The menu's entries as last built (it is built as it opens). */
  menuLabels(): string[] {
    return this.menuText;
  }

  private setIcon(): void {
    const svg = trayIconSvg(this.state, { count: this.attentionCount, frame: this.frame });
    if (svg === this.iconKey) return;
    this.iconKey = svg;
    this.icon.setIcon(svgIcon(svg));
  }

  private animate(on: boolean): void {
    if (on && this.timerId === null) this.timerId = this.ticker.startTimer(TRAY_FRAME_MS);
    if (!on && this.timerId !== null) {
      this.ticker.killTimer(this.timerId);
      this.timerId = null;
    }
  }

  private action(menu: QMenu, text: string, handler: () => void, icon?: QIcon): QAction {
    const a = new QAction();
    a.setText(text);
    if (icon) a.setIcon(icon);
    a.addEventListener('triggered', handler);
    menu.addAction(a);
    this.keep.push(a);
    this.menuText.push(text);
    return a;
  }

  /** Rebuilds the menu when what it shows changed. */
  private rebuildMenu(): void {
    const m = trayMenu(this.items, this.agents, Date.now());
    if (m.key === this.menuKey) return;
    const t0 = performance.now();
    this.menuKey = m.key;
    this.menu.clear();
    this.keep.length = 0;
    this.menuText = [];
    this.menuIds = m.sessions.map((i) => i.id);
    this.menuLines = m.sessions.map((i) => i.text);
    if (m.empty !== null) this.action(this.menu, m.empty, () => undefined).setEnabled(false);
    for (const item of m.sessions) {
      if (item.question) this.addQuestionMenu(item, item.question);
      else this.action(this.menu, item.text, () => this.opts.onSelectSession(item.id), sessionIcon(item.state, item.agentIcon, item.failed));
    }
    this.menu.addSeparator();
    this.addNewSessionMenu(m.newSession.title, m.newSession.agents);
    this.action(this.menu, m.show, () => this.opts.onShow());
    this.action(this.menu, m.history, () => this.opts.onHistory());
    this.action(this.menu, m.usage, () => this.opts.onUsage());
    this.action(this.menu, m.settings, () => this.opts.onSettings());
    this.menu.addSeparator();
    this.action(this.menu, m.quit, () => this.opts.onQuit());
    this.action(this.menu, m.quitEnd, () => this.opts.onQuitEnd());
    this.lastMenuBuildMs = performance.now() - t0;
  }

  /** A waiting session's submenu: its question, one entry per choice (choosing one answers it), Open. */
  private addQuestionMenu(item: TrayMenu['sessions'][number], q: NonNullable<TrayMenu['sessions'][number]['question']>): void {
    const m = trayQuestionMenu(q);
    const sub = new QMenu();
    sub.setTitle(item.text);
    this.keep.push(sub);
    this.action(sub, m.question, () => undefined).setEnabled(false);
    for (const c of m.choices) this.action(sub, c.text, () => this.opts.onAnswer?.(item.id, q.id, c.index)).setEnabled(c.enabled);
    sub.addSeparator();
    this.action(sub, m.open, () => this.opts.onSelectSession(item.id));
    const subAction = new QAction();
    subAction.setText(item.text);
    subAction.setIcon(sessionIcon(item.state, item.agentIcon, item.failed));
    subAction.setMenu(sub);
    this.menu.addAction(subAction);
    this.keep.push(subAction);
    this.menuText.push(item.text);
  }

  /** The New Session submenu: a terminal, then each agent (greyed when not installed). */
  private addNewSessionMenu(title: string, agents: TrayMenu['newSession']['agents']): void {
    const sub = new QMenu();
    sub.setTitle(title);
    this.keep.push(sub);
    for (const agent of agents) {
      const a = this.action(sub, agent.text, () => this.opts.onNewSession(agent.agentId), agent.icon ? fileIcon(agent.icon) : undefined);
      if (!agent.enabled) a.setEnabled(false);
    }
    const subAction = new QAction();
    subAction.setText(title);
    subAction.setMenu(sub);
    this.menu.addAction(subAction);
    this.keep.push(subAction);
  }

  dispose(): void {
    this.animate(false);
    this.icon.hide();
  }
}
