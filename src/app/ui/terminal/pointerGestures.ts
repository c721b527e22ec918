// Mouse gestures on a terminal view: Ctrl/Cmd-click opens links, presses, moves, releases and
// the wheel go to the application when it tracks the mouse (Shift keeps them local), otherwise
// they select text (click, double-click word, triple-click line, Shift-click extend), paste
// the X11 selection (middle button) or scroll the scrollback.
import { performance } from 'node:perf_hooks';
import { QApplication, QClipboardMode, type QMouseEvent, type QWheelEvent, type QWidget } from '@nodegui/nodegui';
import type { MouseButton } from '../../../terminal/common';
import type { TerminalSource } from '../../client/terminalSource';
import { QtMod } from './keyMapping';
import { ClickCounter, WheelNotches, heldButton, mouseMods, qtButton } from './pointerInput';
import { linkAt } from './terminalLinks';

/** What the gestures need from their view. */
export interface PointerView {
  readonly widget: QWidget;
  /** The viewport cell under a point in logical pixels, clamped to the grid. */
  cellAt(x: number, y: number): { col: number; row: number };
  /** Device pixels per logical pixel at the last paint (mouse reports in pixels use device pixels). */
  devicePixelRatio(): number;
  pasteClipboard(mode: QClipboardMode): void;
  openLink(url: string): void;
}

const isMac = process.platform === 'darwin';
/** Lines scrolled per wheel notch through scrollback. */
const WHEEL_LINES = 3;

export class PointerGestures {
  private selecting = false;
  private readonly clicks = new ClickCounter();
  private readonly wheel = new WheelNotches();
  private buttonsDown = 0;
  private lastMouseCell = { col: -1, row: -1 };

  constructor(
    private readonly session: TerminalSource,
    private readonly view: PointerView,
  ) {}

  handlePress(e: QMouseEvent): void {
    this.view.widget.setFocus();
    const mods = e.modifiers();
    const { col, row } = this.view.cellAt(e.x(), e.y());
    const button = qtButton(e.button());
    this.buttonsDown |= e.button();
    // Qt reports Cmd as Control on macOS, so this is Cmd-click there and Ctrl-click elsewhere.
    const linkModifier = (mods & QtMod.control) !== 0;
    if (button === 'left' && linkModifier) {
      const url = linkAt(this.session.frame?.lines[row], col);
      if (url) {
        this.view.openLink(url);
        return;
      }
    }
    if (this.reportsMouse(mods)) {
      this.session.sendMouse({ kind: 'press', button, col, row, ...this.pixels(e), ...mouseMods(mods, isMac) });
      return;
    }
    if (button === 'middle' && !isMac) {
      this.view.pasteClipboard(QClipboardMode.Selection);
      return;
    }
    if (button === 'left') this.startSelection(col, row, (mods & QtMod.shift) !== 0);
  }

  handleMove(e: QMouseEvent): void {
    const mods = e.modifiers();
    const { col, row } = this.view.cellAt(e.x(), e.y());
    if (col === this.lastMouseCell.col && row === this.lastMouseCell.row) return;
    this.lastMouseCell = { col, row };
    if (this.selecting) {
      this.session.extendSelection(col, row);
      return;
    }
    if (this.reportsMouse(mods)) {
      this.session.sendMouse({ kind: 'move', button: heldButton(this.buttonsDown), col, row, ...this.pixels(e), ...mouseMods(mods, isMac) });
    }
  }

  handleRelease(e: QMouseEvent): void {
    const mods = e.modifiers();
    this.buttonsDown &= ~e.button();
    if (this.selecting) {
      this.selecting = false;
      // X11 convention: a selection is immediately available to middle-click paste.
      if (!isMac) {
        void this.session.selectionText().then((text) => {
          if (text) QApplication.clipboard()?.setText(text, QClipboardMode.Selection);
        });
      }
      return;
    }
    if (this.reportsMouse(mods)) {
      const { col, row } = this.view.cellAt(e.x(), e.y());
      this.session.sendMouse({ kind: 'release', button: qtButton(e.button()), col, row, ...this.pixels(e), ...mouseMods(mods, isMac) });
    }
  }

  handleWheel(e: QWheelEvent): void {
    const notches = this.wheel.add(e.angleDelta().y);
    if (notches === 0) return;
    const mods = e.modifiers();
    const pos = e.position();
    const { col, row } = this.view.cellAt(pos.x, pos.y);
    if (this.reportsMouse(mods)) {
      const button: MouseButton = notches > 0 ? 'wheelUp' : 'wheelDown';
      for (let i = 0; i < Math.abs(notches); i++) this.session.sendMouse({ kind: 'wheel', button, col, row, ...mouseMods(mods, isMac) });
      return;
    }
    if (this.session.viewport.altScreen) {
      // Full-screen apps without mouse support (less, man) scroll with arrow keys.
      const key = notches > 0 ? 'ArrowUp' : 'ArrowDown';
      for (let i = 0; i < Math.abs(notches) * WHEEL_LINES; i++) this.session.sendKey({ key });
      return;
    }
    this.session.scrollLines(-notches * WHEEL_LINES);
  }

  /** Whether mouse events go to the application (Shift forces local selection). */
  private reportsMouse(modifiers: number): boolean {
    return this.session.mouseTracking !== 'none' && (modifiers & QtMod.shift) === 0;
  }

  /** The event's position in device pixels, for SGR-pixels reports. */
  private pixels(e: QMouseEvent): { x: number; y: number } {
    const dpr = this.view.devicePixelRatio();
    return { x: e.x() * dpr, y: e.y() * dpr };
  }

  /** A left click: selects from the cell by character, word or line (by click count), or
   *  extends the selection on Shift-click. */
  private startSelection(col: number, row: number, shift: boolean): void {
    const count = this.clicks.click(col, row, performance.now());
    const mode = count === 3 ? 'line' : count === 2 ? 'word' : 'char';
    if (mode === 'char' && shift && this.session.hasSelection) this.session.extendSelectionFromStart(col, row);
    else this.session.startSelection(col, row, mode);
    this.selecting = true;
  }
}
