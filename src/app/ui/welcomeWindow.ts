// First launch: a short, skippable welcome that offers live agent status for the agents found on
// the PATH, saying exactly which file each will change and for which events.
import { Direction, QBoxLayout, QCheckBox, QLabel, QMainWindow, QPushButton, QWidget } from '@nodegui/nodegui';
import { darkChrome, welcomeStyleSheet, type ChromeColors } from './chromeStyle';
import type { SettingsAgent } from './settingsWindow';
import { boxWidget } from './boxWidget';

export interface WelcomeOptions {
  /** Installed agents that declare hooks. */
  agents: SettingsAgent[];
  onInstall(agentIds: string[]): void;
  onSkip(): void;
  chrome?: ChromeColors;
}

/** About 80 characters of body text per line at 13 px: a comfortable reading measure. */
const WELCOME_WIDTH_PX = 620;

export class WelcomeWindow {
  readonly window = new QMainWindow();
  /** Qt objects (layouts, actions, handlers) referenced only by Qt: held so the garbage collector leaves them be. */
  private readonly keep: unknown[] = [];
  private readonly checks = new Map<string, QCheckBox>();
  /** Keyboard focus starts here, so Space (or Enter) accepts the offer. */
  private primary: QPushButton | null = null;

  constructor(opts: WelcomeOptions) {
    const w = this.window;
    w.setWindowTitle('Welcome to Termio');
    w.setObjectName('mainWindow');
    w.setStyleSheet(welcomeStyleSheet(opts.chrome ?? darkChrome));
    const { widget: root, layout: col } = boxWidget('column', { name: 'welcome', margins: [28, 24, 28, 20], spacing: 8 });
    this.addText(col, 'Welcome to Termio', 'welcomeTitle');
    this.addText(
      col,
      'Run your coding agents in real terminal tabs. Termio keeps an eye on every one of them and tells you the moment one needs you.',
      'welcomeText',
    );
    // A gap in the layout, not a margin in the style sheet: any box-model rule on a QLabel makes Qt
    // indent its text, and the heading would no longer line up with the paragraphs.
    col.addSpacing(8);
    this.addOffer(col, opts.agents);
    // Sized to its content, so a fixed gap (not a stretch) sets the buttons apart from the text.
    col.addSpacing(16);
    col.addWidget(this.buildButtons(opts));
    w.setCentralWidget(root);
  }

  private addText(col: QBoxLayout, t: string, name: string): QLabel {
    const l = new QLabel();
    l.setObjectName(name);
    l.setText(t);
    l.setWordWrap(true);
    col.addWidget(l);
    this.keep.push(l);
    return l;
  }

  /** The live-status offer: one checkbox per agent, with the file it changes and for which events. */
  private addOffer(col: QBoxLayout, agents: SettingsAgent[]): void {
    this.addText(col, 'Live agent status', 'welcomeHeading');
    if (agents.length === 0) {
      this.addText(col, 'No agent with live status was found on your PATH yet. When you install one, turn it on in Settings → Live status.', 'welcomeText');
      return;
    }
    this.addText(
      col,
      'Termio can add one small hook entry per event to each agent’s own settings. Your entries stay as they are, a backup is kept, and you can remove ours at any time in Settings.',
      'welcomeText',
    );
    for (const a of agents) {
      const c = new QCheckBox();
      c.setText(a.name);
      c.setChecked(true);
      col.addWidget(c);
      this.checks.set(a.id, c);
      this.addText(col, `changes ${a.hooks!.file} — ${a.hooks!.events.join(', ')}`, 'welcomeMuted');
    }
  }

  /** "Not now" (or "Start" when there is nothing to offer) and "Turn on live status", right-aligned. */
  private buildButtons(opts: WelcomeOptions): QWidget {
    const buttons = new QWidget();
    const row = new QBoxLayout(Direction.LeftToRight);
    row.setContentsMargins(0, 0, 0, 0);
    buttons.setLayout(row);
    row.addStretch(1);
    const skip = new QPushButton();
    skip.setText(opts.agents.length ? 'Not now' : 'Start');
    skip.addEventListener('clicked', () => {
      opts.onSkip();
      this.window.close();
    });
    row.addWidget(skip);
    if (opts.agents.length) {
      const install = new QPushButton();
      install.setObjectName('primary');
      install.setText('Turn on live status');
      install.setDefault(true);
      install.addEventListener('clicked', () => {
        opts.onInstall([...this.checks].filter(([, c]) => c.isChecked()).map(([id]) => id));
        this.window.close();
      });
      row.addWidget(install);
      this.keep.push(install);
      this.primary = install;
    }
    this.keep.push(skip, buttons);
    return buttons;
  }

  setChrome(c: ChromeColors): void {
    this.window.setStyleSheet(welcomeStyleSheet(c));
  }

  /** Shows it at the width its text reads best at and the height its content needs, centred over
   *  an area (a window's session pages; the desktop's window manager may still place it). */
  show(over?: { left: number; top: number; width: number; height: number }): void {
    this.window.resize(WELCOME_WIDTH_PX, 1);
    this.window.adjustSize();
    const height = Math.max(this.window.sizeHint().height(), 1);
    this.window.resize(WELCOME_WIDTH_PX, height);
    if (over) {
      this.window.move(over.left + Math.round((over.width - WELCOME_WIDTH_PX) / 2), over.top + Math.max(0, Math.round((over.height - height) / 3)));
    }
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
    this.primary?.setFocus();
  }
}
