// Input-method (IME) composition for a terminal view: committed text goes to the session, the
// text being composed is shown at the cursor, and the input method learns where the cursor is
// so its candidate window opens next to it.
import type { QInputMethodEvent, QInputMethodQueryEvent, QRect, QWidget } from '@nodegui/nodegui';
import type { TerminalSource } from '../../client/terminalSource';

/** Qt::InputMethodQuery ImCursorRectangle: the query for the cursor's rectangle. */
const IM_CURSOR_RECTANGLE = 0x2;

export class ImeInput {
  /** The composition in progress, shown at the cursor; '' when none. */
  preedit = '';

  /**
   * `cursorRect` gives the cursor's cell in widget pixels; `onPreeditChange` repaints the
   * cursor's row.
   */
  constructor(
    private readonly widget: QWidget,
    private readonly session: TerminalSource,
    private readonly cursorRect: () => QRect,
    private readonly onPreeditChange: () => void,
  ) {}

  handleInputMethod(e: QInputMethodEvent): void {
    const commit = e.commitString();
    const preedit = e.preeditString();
    if (commit) this.session.sendText(commit);
    if (preedit !== this.preedit) {
      this.preedit = preedit;
      this.onPreeditChange();
    }
    this.widget.setEventProcessed(true);
  }

  handleInputMethodQuery(e: QInputMethodQueryEvent): void {
    if (e.queries() & IM_CURSOR_RECTANGLE) {
      e.setValue(IM_CURSOR_RECTANGLE, this.cursorRect());
      this.widget.setEventProcessed(true);
    }
  }
}
