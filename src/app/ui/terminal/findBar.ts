// The find bar: a small field over the top-right corner of a terminal view. It only collects the
// query and the keys (typing searches, Enter goes to the next older match, Shift+Enter to the
// next newer one, Esc closes); the view does the searching, scrolling and highlighting.
import { Key, QKeyEvent, QLabel, QLineEdit, QWidget, WidgetEventTypes } from '@nodegui/nodegui';
import type { Disposable } from '../../../protocol/events';
import type { FindDirection, Theme } from '../../../terminal/common';
import { cssHex } from '../../../terminal/common/theme';
import { blend } from './cellColors';
import { QtMod } from './keyMapping';

export interface FindBarHandlers {
  onQuery(query: string): void;
  onStep(direction: FindDirection): void;
  onClose(): void;
}

/** Logical pixels: wide enough for a long word and "999 of 999", small enough to hide little. */
const BAR_WIDTH = 300;
const BAR_HEIGHT = 30;
/** Gap between the bar and the view's top-right corner. */
const MARGIN = 8;

export class FindBar implements Disposable {
  readonly widget: QWidget;
  private readonly input: QLineEdit;
  private readonly count: QLabel;

  constructor(
    host: QWidget,
    theme: Theme,
    private readonly handlers: FindBarHandlers,
  ) {
    const w = new QWidget(host);
    this.widget = w;
    w.setObjectName('findBar');
    this.input = new QLineEdit(w);
    this.input.setObjectName('findInput');
    this.input.setPlaceholderText('Find');
    this.count = new QLabel(w);
    this.count.setObjectName('findCount');
    this.setTheme(theme);
    w.setGeometry(0, 0, BAR_WIDTH, BAR_HEIGHT);
    this.input.setGeometry(6, 4, BAR_WIDTH - 96, BAR_HEIGHT - 8);
    this.count.setGeometry(BAR_WIDTH - 86, 4, 80, BAR_HEIGHT - 8);
    this.input.addEventListener('textChanged', (text) => this.handlers.onQuery(text));
    this.input.addEventListener(WidgetEventTypes.KeyPress, (native) => {
      const e = new QKeyEvent(native as never);
      const key = e.key();
      if (key === Key.Key_Return || key === Key.Key_Enter) {
        this.handlers.onStep((e.modifiers() & QtMod.shift) !== 0 ? 'down' : 'up');
        this.input.setEventProcessed(true);
      } else if (key === Key.Key_Escape) {
        this.handlers.onClose();
        this.input.setEventProcessed(true);
      }
    });
    w.hide();
  }

  get isOpen(): boolean {
    return this.widget.isVisible();
  }

  get query(): string {
    return this.input.text();
  }

  setTheme(theme: Theme): void {
    const fg = cssHex(theme.foreground);
    const bg = cssHex(theme.background);
    this.widget.setStyleSheet(
      `#findBar { background-color: ${cssHex(blend(theme.foreground, theme.background, 0.15))}; border-radius: 6px; }
       #findInput { background-color: ${bg}; color: ${fg}; border: 1px solid ${cssHex(theme.ansi[3]!)}; border-radius: 4px; padding: 0 4px; }
       #findCount { color: ${fg}; }`,
    );
  }

  /** Shows the bar in the host's top-right corner with the query selected, ready to type over. */
  open(hostWidth: number): void {
    this.place(hostWidth);
    this.widget.show();
    this.widget.raise();
    this.input.setFocus();
    this.input.selectAll();
  }

  place(hostWidth: number): void {
    this.widget.move(Math.max(0, hostWidth - BAR_WIDTH - MARGIN), MARGIN);
  }

  close(): void {
    this.widget.hide();
  }

  /** "3 of 12", "No matches", or nothing while the query is empty. */
  setCount(current: number, total: number): void {
    this.count.setText(!this.input.text() ? '' : total === 0 ? 'No matches' : `${current + 1} of ${total}`);
  }

  dispose(): void {
    this.widget.close();
  }
}
