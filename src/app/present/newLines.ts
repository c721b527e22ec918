// What the pill over a scrolled-back terminal says: while the viewport is away from the bottom, how
// many lines were written below it since it left (the viewport itself stays on the same lines).

/** Counts lines written since the view left the bottom, from each frame's scroll offset and
 *  scrollback length. */
export class NewLinesCounter {
  /** The scrollback's length when the view left the bottom; null while it is at the bottom. */
  private base: number | null = null;

  /** null while the view is at the bottom (no pill); else the lines written below since it left. */
  update(scrollOffset: number, scrollbackLength: number): number | null {
    if (scrollOffset <= 0) {
      this.base = null;
      return null;
    }
    this.base ??= scrollbackLength;
    // Past the scrollback limit the oldest lines go as new ones come: the length stops growing
    // and the count with it, rather than guessing.
    return Math.max(0, scrollbackLength - this.base);
  }
}

/** "12 new lines ↓", or "Back to bottom ↓" when nothing was written since. */
export function newLinesText(n: number): string {
  if (n === 0) return 'Back to bottom ↓';
  return `${n.toLocaleString('en-US')} new line${n === 1 ? '' : 's'} ↓`;
}
