// The pill in a terminal view's bottom-right corner while the session is scrolled back: how many
// lines were written below since, and a click back to the bottom. The viewport stays on the lines
// the user scrolled to while output streams (the emulator keeps it there); this says what it misses.
import { CursorShape, QPushButton, type QWidget } from '@nodegui/nodegui';
import type { Disposable } from '../../../protocol/events';
import type { Theme } from '../../../terminal/common';
import { cssHex } from '../../../terminal/common/theme';
import { NewLinesCounter, newLinesText } from '../../present/newLines';
import { blend } from './cellColors';

/** Gap between the pill and the view's bottom-right corner (logical pixels). */
const MARGIN = 12;

export class NewLinesPill implements Disposable {
  private readonly button: QPushButton;
  private readonly counter = new NewLinesCounter();
  private shown: string | null = null;

  constructor(
    private readonly host: QWidget,
    theme: Theme,
    onClick: () => void,
  ) {
    this.button = new QPushButton(host);
    this.button.setObjectName('newLinesPill');
    this.button.setCursor(CursorShape.PointingHandCursor);
    this.button.addEventListener('clicked', onClick);
    this.setTheme(theme);
    this.button.hide();
  }

  /** What the pill says now (null: hidden), for tests and diagnostics. */
  get text(): string | null {
    return this.shown;
  }

  setTheme(theme: Theme): void {
    const bg = cssHex(blend(theme.foreground, theme.background, 0.2));
    this.button.setStyleSheet(
      `#newLinesPill { background-color: ${bg}; color: ${cssHex(theme.foreground)}; border: 1px solid ${cssHex(theme.ansi[4]!)};
         border-radius: 11px; padding: 3px 14px; min-height: 16px; font-weight: 600; }`,
    );
  }

  /** From each frame painted: shown while scrolled back, with the lines written below since. */
  update(scrollOffset: number, scrollbackLength: number): void {
    const n = this.counter.update(scrollOffset, scrollbackLength);
    const text = n === null ? null : newLinesText(n);
    if (text === this.shown) return;
    this.shown = text;
    if (text === null) {
      this.button.hide();
      return;
    }
    this.button.setText(text);
    this.button.adjustSize();
    this.place();
    this.button.show();
    this.button.raise();
  }

  /** Keeps the pill in the bottom-right corner of the view. */
  place(): void {
    if (this.shown === null) return;
    this.button.move(Math.max(0, this.host.width() - this.button.width() - MARGIN), Math.max(0, this.host.height() - this.button.height() - MARGIN));
  }

  dispose(): void {
    this.button.close();
  }
}
