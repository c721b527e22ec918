// Settles the window's last flush while the view is idle after an echo, so the next keystroke's
// paint does not wait for it (NativeGrid.settleFlush: on X11, Qt's backing store otherwise makes
// a round trip to the X server at the start of the next paint). Only after paints while the user
// types: during a flood the next paint comes anyway, and would only wait in another place.
import type { Disposable } from '../../../protocol/events';

/** How long after an echo's paint: the X server has long read the flush by then, and the next key
 *  of even a fast typist (tens of ms apart) comes later. */
export const SETTLE_AFTER_MS = 2;

export class FlushSettler implements Disposable {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly settle: () => void) {}

  /** A paint starts: it makes the round trip itself if one is due, so none is needed before it. */
  painting(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A paint was flushed; `typing`: the user typed in the last moments. */
  painted(typing: boolean): void {
    if (!typing) return;
    this.painting();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.settle();
    }, SETTLE_AFTER_MS);
  }

  dispose(): void {
    this.painting();
  }
}
