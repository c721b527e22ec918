// The Settings window: agents (catalog with sources, availability, problems, enable and bypass),
// live agent status (hook install/uninstall, with what is written where), notifications,
// appearance and terminal, shortcuts. Every change is written to settings.json at once and
// applies live; problems in a hand-edited settings.json are listed at the top.
import { homedir } from 'node:os';
import {
  QBoxLayout,
  QCheckBox,
  QComboBox,
  QIcon,
  QLabel,
  QLineEdit,
  QMainWindow,
  QPushButton,
  QScrollArea,
  QSpinBox,
  QTabWidget,
  QWidget,
  ScrollBarPolicy,
} from '@nodegui/nodegui';
import { defaultSettings, type Settings } from '../services/settingsFile';
import { darkChrome, settingsStyleSheet, type ChromeColors } from './chromeStyle';
import { defaultShortcuts, type ShortcutAction } from './shortcuts';
import { shortenHome } from '../../protocol/homePath';
import {
  agentCardText,
  hookCardText,
  settingsLabels as L,
  globalKeyStatusText,
  settingsProblemsText,
  shortcutLabel,
  type SettingsAgent,
  type SettingsTab,
} from './presenters/settingsText';
import { boxWidget } from './boxWidget';
import type { MachinesPage } from './machinesPage';
import type { PhonePage } from './phonePage';
import { label } from './boxWidget';
import type { GlobalKeyAction, GlobalKeyStatus } from '../platform/globalKeys';

export type { SettingsAgent } from './presenters/settingsText';

export interface SettingsModel {
  settings(): Settings;
  /** Problems in settings.json, one line each. */
  errors(): string[];
  settingsFile(): string;
  set(path: string[], value: unknown): void;
  agents(): SettingsAgent[];
  /** Moves an agent up or down in the picker order. */
  moveAgent(agentId: string, delta: -1 | 1): void;
  /** Installs or removes our hook entries for one agent (the host does); resolves with a line to show. */
  setHooks(agentId: string, on: boolean): Promise<string>;
  /** Settings → Phone (the web companion, asked of the session host). */
  phone: PhonePage;
  /** Settings → Machines (saved ssh machines, asked of the session host). */
  machines: MachinesPage;
  /** The global keys' status, and the reason none can work here (null when they can). */
  globalKeys(): { statuses: GlobalKeyStatus[]; unavailable: string | null };
}

const TAB_NAMES = L.tabs;

/** A Settings page: what `fill` adds, top to bottom, and the rest of the height left empty. */
function page(fill: (layout: QBoxLayout) => void): QWidget {
  const { widget, layout } = boxWidget('column', { name: 'settingsPage', margins: [18, 14, 18, 14], spacing: 10 });
  fill(layout);
  layout.addStretch(1);
  return widget;
}

function row(...widgets: QWidget[]): QWidget {
  const { widget: w, layout: l } = boxWidget('row', { spacing: 10 });
  for (const x of widgets) l.addWidget(x);
  l.addStretch(1);
  return w;
}

export class SettingsWindow {
  readonly window = new QMainWindow();
  private readonly tabs = new QTabWidget();
  private readonly problems = new QLabel();
  /** Qt objects (layouts, actions, handlers) referenced only by Qt: held so the garbage collector leaves them be. */
  private readonly keep: unknown[] = [];
  private readonly scrolls: QScrollArea[] = [];
  private status = '';
  /** The status line beside each global key on the Shortcuts page (updated as the helper answers). */
  private globalKeyLabels = new Map<GlobalKeyAction, QLabel>();

  constructor(
    private readonly model: SettingsModel,
    chrome: ChromeColors = darkChrome,
  ) {
    this.window.setWindowTitle(L.windowTitle);
    this.window.setObjectName('mainWindow');
    this.window.resize(760, 560);
    this.window.setStyleSheet(settingsStyleSheet(chrome));
    const { widget: root, layout: col } = boxWidget('column', { name: 'settingsRoot' });
    this.problems.setObjectName('settingsProblems');
    this.problems.setWordWrap(true);
    col.addWidget(this.problems);
    col.addWidget(this.tabs, 1);
    this.window.setCentralWidget(root);
    for (const name of TAB_NAMES) {
      const s = new QScrollArea();
      s.setWidgetResizable(true);
      s.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
      // With a QIcon: NodeGUI's string overload checks `instanceof String` and drops plain strings.
      this.tabs.addTab(s, new QIcon(), name);
      this.scrolls.push(s);
    }
    this.rebuild();
  }

  show(tab?: SettingsTab, over?: QMainWindow): void {
    this.rebuild();
    if (over && !this.window.isVisible()) {
      const g = over.geometry();
      this.window.move(g.left() + Math.round((g.width() - 760) / 2), g.top() + Math.round((g.height() - 560) / 3));
    }
    if (tab) this.tabs.setCurrentIndex(TAB_NAMES.indexOf(tab));
    this.window.show();
    this.window.raise();
    this.window.activateWindow();
  }

  setChrome(c: ChromeColors): void {
    this.window.setStyleSheet(settingsStyleSheet(c));
  }

  isVisible(): boolean {
    return this.window.isVisible();
  }

  /** Shows the problems of settings.json (after any change to it). */
  refreshProblems(): void {
    const text = settingsProblemsText(this.model.errors(), shortenHome(this.model.settingsFile(), homedir()));
    this.problems.setText(text);
    if (text) this.problems.show();
    else this.problems.hide();
  }

  /**
   * Rebuilds every page from the model (shown, catalog changed, hooks changed). Deferred: it
   * deletes the page widgets, which must never happen inside one of their own signal handlers.
   */
  refresh(): void {
    setImmediate(() => this.rebuild());
  }

  private rebuild(): void {
    const current = this.tabs.currentIndex();
    this.refreshProblems();
    // Qt deletes each page's old widget when setWidget replaces it.
    this.keep.length = 0;
    const pages = [
      this.agentsPage(),
      this.hooksPage(),
      this.notificationsPage(),
      this.sessionsPage(),
      this.appearancePage(),
      this.shortcutsPage(),
      this.model.phone.build(),
      this.model.machines.build(),
    ];
    pages.forEach((p, i) => {
      this.scrolls[i]!.setWidget(p);
      this.keep.push(p);
    });
    if (current >= 0) this.tabs.setCurrentIndex(current);
  }

  private spinBox(o: { min: number; max: number; value: number; suffix?: string; step?: number }, onChange: (v: number) => void): QSpinBox {
    const b = new QSpinBox();
    b.setRange(o.min, o.max);
    if (o.step) b.setSingleStep(o.step);
    b.setValue(o.value);
    if (o.suffix) b.setSuffix(o.suffix);
    b.addEventListener('valueChanged', (v) => onChange(v));
    this.keep.push(b);
    return b;
  }

  private choice(options: string[], value: string, onChange: (v: string) => void): QComboBox {
    const c = new QComboBox();
    c.addItems(options);
    c.setCurrentIndex(options.indexOf(value));
    c.addEventListener('currentIndexChanged', (i) => onChange(options[i]!));
    this.keep.push(c);
    return c;
  }

  private checkbox(text: string, value: boolean, onChange: (v: boolean) => void): QCheckBox {
    const c = new QCheckBox();
    c.setText(text);
    c.setChecked(value);
    c.addEventListener('toggled', (v) => onChange(v));
    this.keep.push(c);
    return c;
  }

  /** Writes one field of a settings section (the file applies it: every window follows). */
  private setter(section: 'notifications' | 'terminal' | 'sessions') {
    return (key: string) => (value: unknown) => this.model.set([section, key], value);
  }

  private agentsPage(): QWidget {
    return page((layout) => {
      const s = this.model.settings();
      layout.addWidget(label(L.agentsIntro, 'settingsMuted'));
      const agents = this.model.agents();
      for (const [index, a] of agents.entries()) {
        const { widget: card, layout: c } = boxWidget('column', { name: 'agentCard', margins: [12, 8, 12, 8], spacing: 4 });
        const text = agentCardText(a);
        c.addWidget(label(text.heading, 'settingsHeading'));
        c.addWidget(label(text.detail, 'settingsMuted'));
        for (const p of text.problems) c.addWidget(label(p, 'settingsError'));
        const prefs = s.agents[a.id] ?? {};
        const toggles: QWidget[] = [this.checkbox(L.enabled, prefs.enabled ?? true, (v) => this.model.set(['agents', a.id, 'enabled'], v))];
        if (a.hasBypass) toggles.push(this.checkbox(L.bypass, prefs.bypass ?? false, (v) => this.model.set(['agents', a.id, 'bypass'], v)));
        for (const [move, delta, can] of [
          [L.moveUp, -1, index > 0],
          [L.moveDown, 1, index < agents.length - 1],
        ] as const) {
          const b = new QPushButton();
          b.setText(move.text);
          b.setToolTip(move.tip);
          b.setEnabled(can);
          b.addEventListener('clicked', () => {
            this.model.moveAgent(a.id, delta);
            this.refresh(); // deferred: this button is rebuilt
          });
          this.keep.push(b);
          toggles.push(b);
        }
        c.addWidget(row(...toggles));
        layout.addWidget(card);
      }
    });
  }

  private hooksPage(): QWidget {
    return page((layout) => {
      layout.addWidget(label(L.hooksIntro, 'settingsMuted'));
      if (this.status) layout.addWidget(label(this.status, 'settingsOk'));
      for (const a of this.model.agents().filter((x) => x.hooks)) {
        const text = hookCardText(a.name, a.hooks!);
        const { widget: card, layout: c } = boxWidget('column', { name: 'agentCard', margins: [12, 8, 12, 8], spacing: 4 });
        c.addWidget(label(text.heading, 'settingsHeading'));
        c.addWidget(label(text.detail, 'settingsMuted'));
        if (a.hooks!.note) c.addWidget(label(a.hooks!.note, 'settingsError'));
        const b = new QPushButton();
        b.setText(text.button);
        b.addEventListener('clicked', () => {
          void this.model.setHooks(a.id, !text.installed).then((status) => {
            this.status = status;
            this.refresh();
          });
        });
        this.keep.push(b);
        c.addWidget(row(b));
        layout.addWidget(card);
      }
    });
  }

  private notificationsPage(): QWidget {
    return page((layout) => {
      const n = this.model.settings().notifications;
      const set = this.setter('notifications');
      layout.addWidget(this.checkbox(L.notifyAttention, n.attention, set('attention')));
      layout.addWidget(this.checkbox(L.notifyDone, n.done, set('done')));
      const secs = this.spinBox({ min: 0, max: 3600, value: n.doneMinSeconds, suffix: ' s' }, set('doneMinSeconds'));
      layout.addWidget(row(label(L.longTurn, 'settingsText'), secs));
      layout.addWidget(this.checkbox(L.notifyTerminal, n.terminal, set('terminal')));
      layout.addWidget(this.checkbox(L.sound, n.sound, set('sound')));
    });
  }

  private sessionsPage(): QWidget {
    return page((layout) => {
      const v = this.model.settings().sessions;
      const set = this.setter('sessions');
      const choices = L.onQuitChoices;
      const onQuit = this.choice(
        choices.map((c) => c.text),
        choices.find((c) => c.value === v.onQuit)!.text,
        (text) => set('onQuit')(choices.find((c) => c.text === text)!.value),
      );
      layout.addWidget(row(label(L.onQuit, 'settingsText'), onQuit));
      const stall = this.spinBox({ min: 10, max: 86_400, step: 30, value: v.stallSeconds, suffix: ' s' }, set('stallSeconds'));
      layout.addWidget(row(label(L.stall, 'settingsText'), stall));
      layout.addWidget(this.checkbox(L.needsYouFirst, v.needsYouFirst, set('needsYouFirst')));
      layout.addWidget(label(L.sessionsNote, 'settingsMuted'));
    });
  }

  private appearancePage(): QWidget {
    return page((layout) => {
      const t = this.model.settings().terminal;
      const set = this.setter('terminal');
      const family = new QLineEdit();
      family.setText(t.fontFamily);
      family.setPlaceholderText(defaultSettings().terminal.fontFamily);
      family.addEventListener('editingFinished', () => set('fontFamily')(family.text().trim() || undefined));
      const size = this.spinBox({ min: 6, max: 72, value: t.fontSize, suffix: ' pt' }, set('fontSize'));
      const theme = this.choice(['system', 'dark', 'light'], t.theme, set('theme'));
      const cursor = this.choice(['block', 'bar', 'underline'], t.cursorStyle, set('cursorStyle'));
      const scrollback = this.spinBox({ min: 0, max: 1_000_000, step: 1000, value: t.scrollback }, set('scrollback'));
      this.keep.push(family);
      layout.addWidget(row(label(L.font, 'settingsText'), family, size));
      layout.addWidget(row(label(L.theme, 'settingsText'), theme));
      layout.addWidget(row(label(L.cursor, 'settingsText'), cursor));
      layout.addWidget(this.checkbox(L.cursorBlink, t.cursorBlink, set('cursorBlink')));
      layout.addWidget(row(label(L.scrollback, 'settingsText'), scrollback));
      if (process.platform === 'darwin') layout.addWidget(this.checkbox(L.optionAsMeta, t.optionAsMeta, set('optionAsMeta')));
      layout.addWidget(label(L.appearanceNote, 'settingsMuted'));
    });
  }

  private shortcutsPage(): QWidget {
    return page((layout) => {
      const overrides = this.model.settings().shortcuts;
      const defaults = defaultShortcuts();
      this.globalKeysSection(layout);
      layout.addWidget(label(L.shortcutsIntro, 'settingsMuted'));
      for (const action of Object.keys(defaults) as ShortcutAction[]) {
        const edit = new QLineEdit();
        edit.setText(overrides[action] ?? defaults[action]);
        edit.addEventListener('editingFinished', () => {
          const v = edit.text().trim();
          this.model.set(['shortcuts', action], v && v !== defaults[action] ? v : undefined);
        });
        this.keep.push(edit);
        const name = label(shortcutLabel(action), 'settingsText');
        name.setFixedWidth(170);
        layout.addWidget(row(name, edit));
      }
    });
  }

  /** The global keys: each with its key and whether it works (taken by another application,
   *  not a key, or global keys unavailable here, with the reason). */
  private globalKeysSection(layout: QBoxLayout): void {
    const { statuses, unavailable } = this.model.globalKeys();
    const keys = this.model.settings().globalShortcuts;
    layout.addWidget(label(L.globalKeysTitle, 'settingsMuted'));
    if (unavailable) layout.addWidget(label(unavailable, 'settingsMuted'));
    this.globalKeyLabels = new Map();
    for (const s of statuses) {
      const edit = new QLineEdit();
      edit.setText(keys[s.action]);
      edit.setMinimumWidth(190);
      edit.addEventListener('editingFinished', () => this.model.set(['globalShortcuts', s.action], edit.text().trim()));
      this.keep.push(edit);
      const name = label(L.globalKeyNames[s.action], 'settingsText');
      name.setFixedWidth(170);
      const status = label(unavailable ? '' : globalKeyStatusText(s), 'settingsMuted');
      status.setWordWrap(true);
      this.globalKeyLabels.set(s.action, status);
      layout.addWidget(row(name, edit, status));
    }
  }

  /** A global key was grabbed or refused: its status line says so. */
  globalKeysChanged(): void {
    const { statuses, unavailable } = this.model.globalKeys();
    for (const s of statuses) this.globalKeyLabels.get(s.action)?.setText(unavailable ? '' : globalKeyStatusText(s));
  }

  dispose(): void {
    this.window.close();
  }
}
