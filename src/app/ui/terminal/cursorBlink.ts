// The cursor's blink: a timer that runs only while a blinking cursor is visible in a focused
// view, and the rule that typing or moving keeps the cursor solid.
import type { Disposable } from '../../../protocol/events';
import type { CursorState } from '../../../terminal/common';

/** Cursor blink half-period (the macOS and GNOME default is ~530 ms). */
export const BLINK_INTERVAL_MS = 530;

export class CursorBlink implements Disposable {
  /** False during the "off" half of a blink. */
  on = true;
  private timer: NodeJS.Timeout | null = null;
  private last: CursorState | null = null;
  private focused = false;

  /** `onToggle` runs at each half-period, to repaint the cursor's row. */
  constructor(private readonly onToggle: () => void) {}

  /** The cursor of the last frame, null before the first. */
  get cursor(): CursorState | null {
    return this.last;
  }

  /** Follows a new frame's cursor, and keeps a moved cursor solid. */
  update(cur: CursorState): void {
    // Typing or moving keeps the cursor solid.
    if (this.last && (this.last.x !== cur.x || this.last.y !== cur.y)) this.on = true;
    this.last = cur;
    this.sync();
  }

  /**
   * The view gained or lost the keyboard focus. The timer follows at once, not at the next frame:
   * a view that lost the focus to another tab is hidden and takes no frames, so its blink went on
   * waking the app twice a second for nothing (ten tabs once viewed: ~18 wake-ups a second, 0.7 %
   * of a core while idle).
   */
  focusChanged(focused: boolean): void {
    this.focused = focused;
    this.sync();
  }

  /** Runs the timer exactly while the last cursor blinks, is visible, and its view has the focus. */
  private sync(): void {
    const cur = this.last;
    const wantBlink = cur !== null && cur.blinking && cur.visible && this.focused;
    if (wantBlink && !this.timer) {
      this.timer = setInterval(() => {
        this.on = !this.on;
        this.onToggle();
      }, BLINK_INTERVAL_MS);
    } else if (!wantBlink && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.on = true;
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
