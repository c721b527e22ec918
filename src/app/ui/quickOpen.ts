// A small keyboard overlay for one line of input, with or without a filtered list: "jump to a
// session by name" (type, ↑/↓, Enter) and "rename session" (type, Enter). Esc closes.
import { Direction, Key, QBoxLayout, QKeyEvent, QLabel, QLineEdit, QListWidget, QListWidgetItem, QWidget, ScrollBarPolicy, WidgetEventTypes } from '@nodegui/nodegui';
import { fuzzyFilter } from '../host/fuzzy';
import { darkChrome, overlayStyleSheet, type ChromeColors } from './chromeStyle';

export interface QuickItem {
  id: string;
  label: string;
  detail: string;
}

const WIDTH_PX = 520;

export class QuickOpen {
  readonly widget = new QWidget();
  private readonly heading = new QLabel();
  private readonly input = new QLineEdit();
  private readonly list = new QListWidget();
  private items: QuickItem[] = [];
  private shown: QuickItem[] = [];
  private onChoose: ((value: string) => void) | null = null;
  private withList = true;

  constructor(
    private readonly parent: QWidget,
    chrome: ChromeColors = darkChrome,
  ) {
    this.widget.setParent(parent);
    this.widget.setObjectName('quickOpen');
    this.widget.setStyleSheet(overlayStyleSheet(chrome, 'quick'));
    const col = new QBoxLayout(Direction.TopToBottom);
    col.setContentsMargins(12, 10, 12, 10);
    col.setSpacing(8);
    this.widget.setLayout(col);
    this.heading.setObjectName('quickHeading');
    this.input.setObjectName('quickInput');
    this.list.setObjectName('quickList');
    this.list.setHorizontalScrollBarPolicy(ScrollBarPolicy.ScrollBarAlwaysOff);
    col.addWidget(this.heading);
    col.addWidget(this.input);
    col.addWidget(this.list, 1);
    this.input.addEventListener('textChanged', () => this.refilter());
    this.input.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const key = new QKeyEvent(native as never).key();
      if (key === Key.Key_Escape) this.close();
      else if (key === Key.Key_Return || key === Key.Key_Enter) this.choose();
      else if (this.withList && (key === Key.Key_Up || key === Key.Key_Down)) {
        const n = this.list.count();
        if (n > 0) this.list.setCurrentRow((this.list.currentRow() + (key === Key.Key_Down ? 1 : -1) + n) % n);
      } else return;
      this.input.setEventProcessed(true);
    });
    this.list.addEventListener('itemActivated', () => this.choose());
    this.widget.hide();
  }

  setChrome(c: ChromeColors): void {
    this.widget.setStyleSheet(overlayStyleSheet(c, 'quick'));
  }

  get isOpen(): boolean {
    return this.widget.isVisible();
  }

  /** A filtered list; Enter chooses the selected item's id. */
  openList(heading: string, items: QuickItem[], onChoose: (id: string) => void): void {
    this.withList = true;
    this.items = items;
    this.open(heading, '', 'Type a name, a folder or an agent…', onChoose);
  }

  /** One line of text; Enter chooses it. */
  openText(heading: string, value: string, onChoose: (text: string) => void): void {
    this.withList = false;
    this.items = [];
    this.open(heading, value, '', onChoose);
    this.input.selectAll();
  }

  private open(heading: string, value: string, placeholder: string, onChoose: (v: string) => void): void {
    this.heading.setText(heading);
    this.onChoose = onChoose;
    this.input.setText(value);
    this.input.setPlaceholderText(placeholder);
    if (this.withList) this.list.show();
    else this.list.hide();
    this.refilter();
    const rows = this.withList ? Math.min(8, Math.max(3, this.shown.length)) : 0;
    const pw = this.parent.geometry().width();
    this.widget.setGeometry(Math.max(0, Math.round((pw - WIDTH_PX) / 2)), 60, WIDTH_PX, 84 + (rows ? 12 + rows * 34 : 0));
    this.widget.show();
    this.widget.raise();
    this.input.setFocus();
  }

  close(): void {
    this.widget.hide();
  }

  private refilter(): void {
    if (!this.withList) return;
    this.shown = fuzzyFilter(this.input.text(), this.items, (i) => [i.label, i.detail]).map((r) => r.item);
    this.list.clear();
    for (const i of this.shown) {
      const item = new QListWidgetItem();
      item.setText(`${i.label}    ${i.detail}`);
      this.list.addItem(item);
    }
    if (this.shown.length) this.list.setCurrentRow(0);
  }

  private choose(): void {
    const cb = this.onChoose;
    if (!cb) return;
    if (this.withList) {
      const item = this.shown[this.list.currentRow()];
      if (!item) return;
      this.close();
      cb(item.id);
    } else {
      const text = this.input.text().trim();
      this.close();
      if (text) cb(text);
    }
  }
}
