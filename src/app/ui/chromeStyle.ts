// The window chrome's look, in one place: a dark and a light palette of named colour roles, and
// the Qt style sheets every window and overlay builds from the current palette, so switching
// appearance restyles everything. The terminal grid itself is painted by the terminal view.
import { join } from 'node:path';
import type { SessionState } from '../../protocol/status/sessionState';
import { installPath } from '../services/install';
import { darkFailedColor, darkStateColors, lightFailedColor, lightStateColors } from './stateColors';

export type Appearance = 'dark' | 'light';

export interface ChromeColors {
  appearance: Appearance;
  /** Main areas: the window behind the pages, the empty state, settings pages. */
  window: string;
  /** The session list, tab bar, exit bar and tooltips. */
  sidebar: string;
  /** Hairlines between areas and around cards. */
  border: string;
  text: string;
  /** Secondary text: headings in capitals, details, hints. */
  muted: string;
  /** Running text of the welcome (between text and muted). */
  body: string;
  accent: string;
  /** Warnings and errors in running text (settings). */
  warning: string;
  /** The selected sidebar row. */
  selection: string;
  selectionBorder: string;
  /** The selected item of a list in an overlay (picker, jump to session). */
  listSelection: string;
  listSelectionText: string;
  /** Push buttons. */
  control: string;
  controlHover: string;
  controlBorder: string;
  /** Line edits, spin boxes, combo boxes. */
  input: string;
  /** Agent cards in Settings, and the overlays' panel. */
  card: string;
  scrollHandle: string;
  /** An agent that is not installed, in the picker. */
  unavailable: string;
  primary: { background: string; hover: string; border: string; text: string };
  /** A session that needs you: impossible to miss. */
  needsYou: { background: string; selected: string; border: string; text: string; detail: string };
  /** A session that stopped on a failure (an API error, a usage limit, a bad exit): red, not the orange of needs you. */
  failed: { background: string; selected: string; border: string; text: string; detail: string; dot: string };
  /** The message banner over the pages, and the problems box in Settings. */
  banner: { background: string; border: string; text: string };
  /** Status dots in the sidebar. */
  state: Record<SessionState, string>;
}

export const darkChrome: ChromeColors = {
  appearance: 'dark',
  window: '#1b1e25',
  sidebar: '#15181e',
  border: '#2a2f3a',
  text: '#dfe4ee',
  muted: '#8a93a6',
  body: '#b8c0cf',
  accent: '#7ee0b5',
  warning: '#ffb467',
  selection: '#2a3140',
  selectionBorder: '#3a4356',
  listSelection: '#2f3a50',
  listSelectionText: '#ffffff',
  control: '#2a3140',
  controlHover: '#343c4e',
  controlBorder: '#3a4356',
  input: '#15181e',
  card: '#20242d',
  scrollHandle: '#3a4356',
  unavailable: '#7d8597',
  primary: { background: '#2f8f6b', hover: '#37a37a', border: '#57d9a3', text: '#ffffff' },
  needsYou: { background: '#3d2a14', selected: '#5a3b17', border: '#ff9f43', text: '#ffd9ad', detail: '#ffb467' },
  failed: { background: '#3d1719', selected: '#5a2024', border: darkFailedColor, text: '#ffd0d0', detail: '#ff8f8f', dot: darkFailedColor },
  banner: { background: '#4a2f12', border: '#ff9f43', text: '#ffd9ad' },
  state: darkStateColors,
};

// Light: near-white pages (the light terminal is #fbfbfb), a grey sidebar like Finder's, dark
// text; every text colour keeps WCAG AA contrast (≥ 4.5:1) on the background it is drawn on.
export const lightChrome: ChromeColors = {
  appearance: 'light',
  window: '#f7f8fa',
  sidebar: '#eceef2',
  border: '#d4d8e0',
  text: '#1d222c',
  muted: '#5c6577',
  body: '#3b4250',
  accent: '#17805c',
  warning: '#a34f00',
  selection: '#dde2eb',
  selectionBorder: '#c4cbd8',
  listSelection: '#d3e1f8',
  listSelectionText: '#0d1420',
  control: '#ffffff',
  controlHover: '#eef1f6',
  controlBorder: '#c4cbd8',
  input: '#ffffff',
  card: '#ffffff',
  scrollHandle: '#c4cbd8',
  unavailable: '#79818f',
  primary: { background: '#1f7f5c', hover: '#1a6d4f', border: '#17664a', text: '#ffffff' },
  needsYou: { background: '#ffead2', selected: '#ffdbb3', border: '#d9731a', text: '#5a2e00', detail: '#8f4a00' },
  failed: { background: '#fde2e2', selected: '#fbcaca', border: lightFailedColor, text: '#5c0d0d', detail: '#9e1c1c', dot: lightFailedColor },
  banner: { background: '#ffefd9', border: '#d9731a', text: '#5a2e00' },
  state: lightStateColors,
};

export function chromeFor(appearance: Appearance): ChromeColors {
  return appearance === 'light' ? lightChrome : darkChrome;
}

/** The repository (or installed app) folder: this file is in src/app/ui or dist/app/ui. */
const ASSETS = installPath('assets', 'ui');

/**
 * The chevrons of combo and spin boxes (a styled box loses the native ones); one file per
 * appearance, drawn in that palette's muted colour.
 */
export function arrowImage(direction: 'up' | 'down', c: ChromeColors): string {
  return join(ASSETS, `arrow-${direction}-${c.appearance}.svg`);
}

/** The main window: sidebar, empty state, banner, exit bar, buttons. */
export function chromeStyleSheet(c: ChromeColors = darkChrome): string {
  return `
    #mainWindow, #central, #stack, #emptyState { background-color: ${c.window}; color: ${c.text}; }
    #sidebar { background-color: ${c.sidebar}; border-right: 1px solid ${c.border}; }
    #sidebarHeading { color: ${c.muted}; font-size: 11px; font-weight: 600; letter-spacing: 1px; }
    #emptyTitle { color: ${c.text}; font-size: 20px; font-weight: 600; }
    #emptyHint { color: ${c.muted}; font-size: 13px; padding-top: 6px; }
    #sidebarScroll { background-color: ${c.sidebar}; border: none; }
    #whyStrip { color: ${c.muted}; font-size: 11px; border-top: 1px solid ${c.border}; padding: 8px 4px 2px 4px; }
    #banner { background-color: ${c.banner.background}; color: ${c.banner.text}; border-bottom: 1px solid ${c.banner.border}; padding: 8px 14px; }
    #mainArea { background-color: ${c.window}; }
    #exitBar { background-color: ${c.sidebar}; border-top: 1px solid ${c.border}; }
    #exitLabel { color: ${c.text}; }
    QPushButton { background-color: ${c.control}; color: ${c.text}; border: 1px solid ${c.controlBorder}; border-radius: 6px; padding: 4px 14px; }
    QPushButton:hover { background-color: ${c.controlHover}; }
    QPushButton:disabled { color: ${c.muted}; }
    QToolTip { background-color: ${c.sidebar}; color: ${c.text}; border: 1px solid ${c.border}; }
    ${scrollBarRules(c)}
  `;
}

/** Thin scroll bars in the palette (the native ones would be light on a dark window). */
function scrollBarRules(c: ChromeColors): string {
  return `QScrollBar:vertical { background: transparent; width: 8px; margin: 2px; }
    QScrollBar::handle:vertical { background: ${c.scrollHandle}; border-radius: 3px; min-height: 24px; }
    QScrollBar::add-line, QScrollBar::sub-line { height: 0; width: 0; }
    QScrollBar::add-page, QScrollBar::sub-page { background: transparent; }`;
}

/**
 * A keyboard overlay over the window (the picker, jump to session, rename): a panel with a
 * heading, an input, a list and an optional footer. `id` is the panel's object name; its parts
 * are named `${id}Heading`, `${id}Input`, `${id}List`, `${id}Footer`.
 */
export function overlayStyleSheet(c: ChromeColors, id: string): string {
  return `
    #${id} { background-color: ${c.card}; border: 1px solid ${c.controlBorder}; border-radius: 10px; }
    #${id}Heading { color: ${c.muted}; font-size: 11px; }
    #${id}Input { background-color: ${c.input}; color: ${c.text}; border: 1px solid ${c.controlBorder}; border-radius: 6px; padding: 6px 8px; font-size: 14px; }
    #${id}List { background-color: transparent; color: ${c.text}; border: none; font-size: 13px; }
    #${id}List::item { padding: 5px 6px; border-radius: 5px; }
    #${id}List::item:selected { background-color: ${c.listSelection}; color: ${c.listSelectionText}; }
    #${id}Footer { color: ${c.muted}; font-size: 11px; }
    ${scrollBarRules(c)}
  `;
}

/** The Settings window: tabs, cards, problems box, form controls. */
export function settingsStyleSheet(c: ChromeColors): string {
  return `${chromeStyleSheet(c)}
    #settingsRoot, #settingsPage, QScrollArea, QTabWidget::pane { background-color: ${c.window}; border: none; }
    QTabBar::tab { background: ${c.sidebar}; color: ${c.muted}; padding: 7px 16px; border: none; }
    QTabBar::tab:selected { background: ${c.window}; color: ${c.text}; border-bottom: 2px solid ${c.accent}; }
    #settingsText { color: ${c.text}; } #settingsMuted { color: ${c.muted}; font-size: 11px; }
    #settingsHeading { color: ${c.text}; font-weight: 600; font-size: 13px; }
    #settingsError { color: ${c.warning}; } #settingsOk { color: ${c.accent}; font-size: 11px; }
    #settingsProblems { background-color: ${c.banner.background}; color: ${c.banner.text}; border: 1px solid ${c.banner.border}; border-radius: 6px; padding: 8px 12px; }
    #agentCard { background-color: ${c.card}; border: 1px solid ${c.border}; border-radius: 8px; }
    QCheckBox, QLabel { color: ${c.text}; }
    QLineEdit, QSpinBox, QComboBox { background-color: ${c.input}; color: ${c.text}; border: 1px solid ${c.controlBorder}; border-radius: 5px; padding: 3px 6px; }
    QComboBox::drop-down { border: none; width: 18px; }
    QComboBox QAbstractItemView { background-color: ${c.input}; color: ${c.text}; border: 1px solid ${c.controlBorder}; selection-background-color: ${c.listSelection}; selection-color: ${c.listSelectionText}; outline: none; }
    QComboBox::down-arrow, QSpinBox::down-arrow { image: url("${arrowImage('down', c)}"); width: 10px; height: 6px; }
    QSpinBox::up-arrow { image: url("${arrowImage('up', c)}"); width: 10px; height: 6px; }
    QSpinBox { padding-right: 18px; }
    QSpinBox::up-button, QSpinBox::down-button { border: none; background: transparent; width: 16px; }`;
}

/** The first-launch welcome. */
export function welcomeStyleSheet(c: ChromeColors): string {
  return `${chromeStyleSheet(c)}
    #welcome { background-color: ${c.window}; }
    #welcomeTitle { color: ${c.text}; font-size: 22px; font-weight: 600; }
    #welcomeText { color: ${c.body}; font-size: 13px; }
    #welcomeHeading { color: ${c.text}; font-size: 14px; font-weight: 600; }
    #welcomeMuted { color: ${c.muted}; font-size: 11px; padding-left: 26px; }
    QCheckBox { color: ${c.text}; font-size: 13px; }
    #primary { background-color: ${c.primary.background}; border: 1px solid ${c.primary.border}; color: ${c.primary.text}; font-weight: 600; }
    #primary:hover { background-color: ${c.primary.hover}; }`;
}

/** The review view of a worktree session: heading, file list, diff, comments, commit message, actions. */
export function reviewStyleSheet(c: ChromeColors): string {
  return `${chromeStyleSheet(c)}
    #review, #reviewRoot { background-color: ${c.window}; }
    #reviewTitle { color: ${c.text}; font-size: 16px; font-weight: 600; }
    #reviewDetail, #reviewStatus { color: ${c.muted}; font-size: 12px; }
    #reviewFiles { background-color: ${c.sidebar}; color: ${c.text}; border: 1px solid ${c.border}; border-radius: 6px; font-size: 12px; padding: 4px; outline: none; }
    #reviewFiles::item { padding: 4px 6px; border-radius: 4px; }
    #reviewFiles::item:selected { background-color: ${c.listSelection}; color: ${c.listSelectionText}; }
    #reviewDiff { background-color: ${c.card}; color: ${c.text}; border: 1px solid ${c.border}; border-radius: 6px; padding: 4px 6px; outline: none; }
    #reviewDiff::item:selected { background-color: ${c.listSelection}; color: ${c.listSelectionText}; }
    #reviewCommentsHeading, #reviewEditorPlace { color: ${c.text}; font-size: 12px; font-weight: 600; }
    #reviewComments { background-color: ${c.sidebar}; color: ${c.text}; border: 1px solid ${c.border}; border-radius: 6px; font-size: 12px; padding: 4px; outline: none; }
    #reviewComments::item { padding: 3px 6px; border-radius: 4px; }
    #reviewComments::item:selected { background-color: ${c.listSelection}; color: ${c.listSelectionText}; }
    #reviewMessage, #reviewEditor { background-color: ${c.input}; color: ${c.text}; border: 1px solid ${c.controlBorder}; border-radius: 5px; padding: 4px 8px; }
    #reviewMerge, #reviewSend, #reviewAddComment { background-color: ${c.primary.background}; border: 1px solid ${c.primary.border}; color: ${c.primary.text}; font-weight: 600; }
    #reviewMerge:hover, #reviewSend:hover, #reviewAddComment:hover { background-color: ${c.primary.hover}; }
    #reviewSend:disabled { background-color: ${c.input}; border: 1px solid ${c.controlBorder}; color: ${c.muted}; font-weight: 400; }`;
}

/** The fan-out compare view: member cards on the window, the review's buttons and colours. */
export function compareStyleSheet(c: ChromeColors): string {
  return `${chromeStyleSheet(c)}
    #compare, #compareRoot, #compareCards { background-color: ${c.window}; }
    #compareScroll { background-color: ${c.window}; border: none; }
    #compareTitle { color: ${c.text}; font-size: 17px; font-weight: 600; }
    #compareDetail, #compareStatus { color: ${c.muted}; font-size: 12px; }
    #compareCard { background-color: ${c.card}; border: 1px solid ${c.border}; border-radius: 10px; }
    #compareAgent { color: ${c.text}; font-size: 14px; font-weight: 600; background: transparent; }
    #compareBranch { color: ${c.muted}; font-size: 12px; background: transparent; }
    #compareFacts { color: ${c.body}; font-size: 12px; background: transparent; }
    #compareState { font-size: 11px; font-weight: 600; padding: 1px 8px; border-radius: 8px; background: transparent; }
    #compareMerged { color: ${c.state.done}; font-size: 12px; font-weight: 600; padding: 0 6px; background: transparent; }
    #compareMerge { background-color: ${c.primary.background}; border: 1px solid ${c.primary.border}; color: ${c.primary.text}; font-weight: 600; }
    #compareMerge:hover { background-color: ${c.primary.hover}; }
    #compareMerge:disabled { background-color: ${c.input}; border: 1px solid ${c.controlBorder}; color: ${c.muted}; font-weight: 400; }`;
}

/** The Usage window: figures in tiles and cards on the window's ground, the bars in the accent. */
export function usageStyleSheet(c: ChromeColors): string {
  return `${chromeStyleSheet(c)}
    #usage, #usageRoot, #usageBody { background-color: ${c.window}; }
    #usageScroll { background-color: ${c.window}; border: none; }
    #usageTitle { color: ${c.text}; font-size: 20px; font-weight: 600; }
    #usageDetail, #usageStatus, #usageMuted { color: ${c.muted}; font-size: 12px; background: transparent; }
    #usageTile, #usageCard { background-color: ${c.card}; border: 1px solid ${c.border}; border-radius: 10px; }
    #usageTileTitle { color: ${c.muted}; font-size: 10px; font-weight: 600; letter-spacing: 0.6px; background: transparent; }
    #usageTileValue { color: ${c.text}; font-size: 22px; font-weight: 600; background: transparent; }
    #usageCardTitle { color: ${c.text}; font-size: 13px; font-weight: 600; background: transparent; }
    #usageHead { color: ${c.muted}; font-size: 11px; font-weight: 600; background: transparent; }
    #usageCell { color: ${c.body}; font-size: 12px; background: transparent; }
    #usageTotal { color: ${c.text}; font-size: 12px; font-weight: 600; background: transparent; }
    #usageRule { background-color: ${c.border}; }
    #usageAxis { color: ${c.muted}; font-size: 10px; background: transparent; }
    #usageBar { background-color: ${c.accent}; border-top-left-radius: 3px; border-top-right-radius: 3px; }
    #usageBarEmpty { background-color: ${c.border}; }`;
}

/** The History pane: a search field over result rows, the hits marked in the selection colour. */
export function historyStyleSheet(c: ChromeColors): string {
  return `${chromeStyleSheet(c)}
    #history, #historyRoot { background-color: ${c.window}; }
    #historyInput { font-size: 15px; padding: 7px 10px; border-radius: 8px; background-color: ${c.input}; color: ${c.text}; border: 1px solid ${c.controlBorder}; }
    #historyInput:focus { border: 1px solid ${c.accent}; }
    #historyScroll { background-color: ${c.card}; border: 1px solid ${c.border}; border-radius: 10px; }
    #historyList { background-color: ${c.card}; }
    #historyAgent { color: ${c.text}; font-size: 13px; font-weight: 600; background: transparent; }
    #historyTitle { color: ${c.body}; font-size: 13px; background: transparent; }
    #historyFacts, #historyStatus { color: ${c.muted}; font-size: 11px; background: transparent; }
    #historyLine { color: ${c.body}; font-size: 12px; background: transparent; }`;
}
