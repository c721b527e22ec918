// The agent picker: an overlay in the current window, opened by the new-session shortcut and
// used entirely from the keyboard. Type to filter (fuzzy), ↑/↓ to choose, Enter to start in the
// current folder, Ctrl+B to toggle the agent's permission bypass, Ctrl+O to pick another folder
// first, Esc to close. Agents that are not installed show their install link instead.
import { Direction, Key, KeyboardModifier, QBoxLayout, QBrush, QColor, QIcon, QKeyEvent, QLabel, QLineEdit, QListWidget, QListWidgetItem, QWidget, ScrollBarPolicy, WidgetEventTypes } from '@nodegui/nodegui';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { expandHome } from '../../protocol';
import { fuzzyFilter } from '../host/fuzzy';
import { agentIcon } from './agentIcons';
import { darkChrome, overlayStyleSheet, type ChromeColors } from './chromeStyle';

export interface PickerAgent {
  /** null = the plain login shell. */
  id: string | null;
  name: string;
  iconFile?: string;
  iconTint?: string;
  installed: boolean;
  installUrl?: string;
  hasBypass: boolean;
}

export interface PickerOptions {
  agents(): PickerAgent[];
  folder(): string;
  bypassDefault(agentId: string | null): boolean;
  onStart(agentId: string | null, cwd: string, bypass: boolean): void;
  onInstallLink(url: string): void;
  chrome?: ChromeColors;
}

const PICKER_WIDTH_PX = 560;
const PICKER_MAX_ROWS = 9; // rows visible before the list scrolls; keeps the overlay compact



export class Picker {
  readonly widget = new QWidget();
  private readonly input = new QLineEdit();
  private readonly list = new QListWidget();
  private readonly heading = new QLabel();
  private readonly footer = new QLabel();
  private shown: PickerAgent[] = [];
  private mode: 'agents' | 'folder' = 'agents';
  private folder = '';
  private bypass = new Map<string | null, boolean>();
  private filterText = '';
  /** When the last filter pass finished (benchmarks read it). */
  lastFilterMs = 0;
  private chrome: ChromeColors;

  constructor(
    private readonly parent: QWidget,
    private readonly opts: PickerOptions,
  ) {
    this.chrome = opts.chrome ?? darkChrome;
    this.widget.setParent(parent);
    this.widget.setObjectName('picker');
    this.widget.setStyleSheet(overlayStyleSheet(this.chrome, 'picker'));
    this.list.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
    const col = new QBoxLayout(Direction.TopToBottom);
    col.setContentsMargins(12, 10, 12, 10);
    col.setSpacing(8);
    this.widget.setLayout(col);
    this.heading.setObjectName('pickerHeading');
    this.input.setObjectName('pickerInput');
    this.list.setObjectName('pickerList');
    this.footer.setObjectName('pickerFooter');
    col.addWidget(this.heading);
    col.addWidget(this.input);
    col.addWidget(this.list, 1);
    col.addWidget(this.footer);
    this.input.addEventListener('textChanged', (text) => {
      if (this.mode === 'agents') {
        this.filterText = text;
        this.refilter();
      } else {
        this.updateFooter();
      }
    });
    this.input.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      if (this.handleKey(e.key(), (e.modifiers() & KeyboardModifier.ControlModifier) !== 0)) this.input.setEventProcessed(true);
    });
    this.list.addEventListener('itemActivated', () => this.activate());
    this.widget.hide();
  }

  get isOpen(): boolean {
    return this.widget.isVisible();
  }

  open(): void {
    this.mode = 'agents';
    this.folder = this.opts.folder();
    this.filterText = '';
    this.input.setText('');
    this.input.setPlaceholderText('Type to filter agents…');
    this.refilter();
    this.place();
    this.widget.show();
    this.widget.raise();
    this.input.setFocus();
  }

  close(): void {
    this.widget.hide();
  }

  setChrome(c: ChromeColors): void {
    if (c === this.chrome) return;
    this.chrome = c;
    this.widget.setStyleSheet(overlayStyleSheet(c, 'picker'));
    // Item colours are set per item: rebuild the list if it is on screen.
    if (this.isOpen && this.mode === 'agents') this.refilter();
  }

  /** The filtered agent names, in display order (tests read it through the log). */
  visibleNames(): string[] {
    return this.shown.map((a) => a.name);
  }

  /** The agent list changed (a manifest was added, edited or removed): show it at once. */
  agentsChanged(): void {
    if (this.isOpen && this.mode === 'agents') this.refilter();
  }

  private place(): void {
    const pw = this.parent.geometry().width();
    // Fits the rows shown (at least three, so the box does not jump while typing).
    const rows = Math.min(PICKER_MAX_ROWS, Math.max(3, this.shown.length));
    const height = 118 + rows * 34;
    this.widget.setGeometry(Math.max(0, Math.round((pw - PICKER_WIDTH_PX) / 2)), 60, PICKER_WIDTH_PX, height);
  }

  private handleKey(key: number, ctrl: boolean): boolean {
    if (key === Key.Key_Escape) {
      if (this.mode === 'folder') this.toAgents();
      else this.close();
      return true;
    }
    if (key === Key.Key_Return || key === Key.Key_Enter) {
      this.activate();
      return true;
    }
    if (this.mode === 'agents' && (key === Key.Key_Up || key === Key.Key_Down)) {
      const n = this.list.count();
      if (n > 0) this.list.setCurrentRow((this.list.currentRow() + (key === Key.Key_Down ? 1 : -1) + n) % n);
      this.updateFooter();
      return true;
    }
    if (ctrl && key === Key.Key_B && this.mode === 'agents') {
      const a = this.current();
      if (a?.hasBypass) this.bypass.set(a.id, !this.bypassOn(a));
      this.updateFooter();
      return true;
    }
    if (ctrl && key === Key.Key_O && this.mode === 'agents') {
      this.mode = 'folder';
      this.input.setText(this.folder);
      this.input.setPlaceholderText('Folder to start in');
      this.updateFooter();
      return true;
    }
    return false;
  }

  private toAgents(): void {
    this.mode = 'agents';
    this.input.setText(this.filterText);
    this.input.setPlaceholderText('Type to filter agents…');
    this.refilter();
  }

  private current(): PickerAgent | undefined {
    return this.shown[this.list.currentRow()];
  }

  private bypassOn(a: PickerAgent): boolean {
    return this.bypass.get(a.id) ?? this.opts.bypassDefault(a.id);
  }

  private activate(): void {
    if (this.mode === 'folder') {
      const dir = resolve(expandHome(this.input.text().trim() || this.folder, homedir()));
      if (isAbsolute(dir) && existsSync(dir) && statSync(dir).isDirectory()) {
        this.folder = dir;
        this.toAgents();
      } else {
        this.footer.setText(`⚠ ${dir} is not a folder`);
      }
      return;
    }
    const a = this.current();
    if (!a) return;
    if (!a.installed) {
      if (a.installUrl) this.opts.onInstallLink(a.installUrl);
      return;
    }
    this.close();
    this.opts.onStart(a.id, this.folder, a.hasBypass && this.bypassOn(a));
  }

  private icon(file: string | undefined, tint?: string): QIcon | undefined {
    return file ? agentIcon(file, tint) : undefined;
  }

  private refilter(): void {
    const t0 = performance.now();
    this.shown = fuzzyFilter(this.filterText, this.opts.agents(), (a) => a.name).map((r) => r.item);
    this.list.clear();
    for (const a of this.shown) {
      const item = new QListWidgetItem();
      item.setText(a.installed ? a.name : `${a.name}   ·  not installed`);
      if (!a.installed) item.setForeground(new QBrush(new QColor(this.chrome.unavailable)));
      const icon = this.icon(a.iconFile, a.iconTint);
      if (icon) item.setIcon(icon);
      this.list.addItem(item);
    }
    if (this.shown.length > 0) this.list.setCurrentRow(0);
    if (this.widget.isVisible()) this.place();
    this.updateFooter();
    this.lastFilterMs = performance.now() - t0;
  }

  private updateFooter(): void {
    const home = homedir();
    const shortFolder = this.folder.startsWith(home) ? `~${this.folder.slice(home.length)}` : this.folder;
    if (this.mode === 'folder') {
      this.heading.setText('CHOOSE A FOLDER');
      this.footer.setText('↵ use this folder    esc back');
      return;
    }
    this.heading.setText(`NEW SESSION IN ${shortFolder}`);
    const a = this.current();
    if (a && !a.installed) {
      this.footer.setText(a.installUrl ? `↵ open the install page: ${a.installUrl}` : `${a.name} is not on your PATH    esc close`);
      return;
    }
    const bypass = a?.hasBypass ? `    ⌃B skip permissions: ${this.bypassOn(a) ? 'ON' : 'off'}` : '';
    this.footer.setText(this.shown.length === 0 ? 'No agent matches.    esc close' : `↵ start${bypass}    ⌃O folder…    esc close`);
  }
}
