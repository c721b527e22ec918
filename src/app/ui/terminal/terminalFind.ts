// Find in scrollback for a terminal view: owns the find bar, the matches of its query and which
// one is current; searches again as output arrives (throttled), scrolls to the current match and
// tells the view which cells to highlight.
import type { QWidget } from '@nodegui/nodegui';
import type { Disposable } from '../../../protocol/events';
import type { BufferRange, Theme } from '../../../terminal/common';
import type { TerminalSource } from '../../client/terminalSource';
import { FindBar } from './findBar';
import { nextCurrentMatch, revealTop, visibleHighlights, type FindStep } from './findMatches';
import type { Highlight } from './gridPainter';

/** While the find bar is open, matches follow new output at most this often (a search of
 *  10,000 lines takes a few ms; output can arrive every frame). */
const FIND_REFRESH_MS = 250;

export class TerminalFind implements Disposable {
  private bar: FindBar | null = null;
  private matches: BufferRange[] = [];
  private current = -1;
  private refreshTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  /** `onChange` runs when the highlights change, to repaint every row. */
  constructor(
    private readonly widget: QWidget,
    private readonly session: TerminalSource,
    private theme: Theme,
    private readonly onChange: () => void,
  ) {}

  /** Opens the find bar (or selects its query again); typing searches the whole scrollback. */
  open(): void {
    this.bar ??= new FindBar(this.widget, this.theme, {
      onQuery: () => this.search('start'),
      onStep: (direction) => this.search(direction),
      onClose: () => this.close(),
    });
    this.bar.open(this.widget.width());
  }

  close(): void {
    if (!this.bar?.isOpen) return;
    this.bar.close();
    this.matches = [];
    this.current = -1;
    this.onChange();
    this.widget.setFocus();
  }

  /** The matches of the current query and which one is current (for tests and diagnostics). */
  get state(): { query: string; matches: readonly BufferRange[]; current: number } {
    return { query: this.bar?.query ?? '', matches: this.matches, current: this.current };
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.bar?.setTheme(theme);
  }

  /** Keeps the bar in the top-right corner of a view this wide. */
  place(width: number): void {
    this.bar?.place(width);
  }

  /** New output: search again soon, if a query is open. */
  scheduleRefresh(): void {
    if (this.refreshTimer || !this.bar?.isOpen || !this.bar.query) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      if (!this.disposed && this.bar?.isOpen) this.search('refresh');
    }, FIND_REFRESH_MS);
  }

  /** Matches on the viewport's rows, the current one marked. */
  highlights(): Highlight[] {
    if (this.matches.length === 0) return [];
    return visibleHighlights(this.matches, this.current, this.session.viewport.top, this.session.rows, this.session.cols);
  }

  dispose(): void {
    this.disposed = true;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.bar?.dispose();
  }

  /** Searches again (the buffer may have changed), moves the current match and, unless this is
   *  a refresh, scrolls to show it. */
  private search(step: FindStep): void {
    const query = this.bar?.query ?? '';
    // Answers come back in the order asked (one connection), and each applies its own step to
    // the state the one before left: the same result as searching synchronously.
    void this.session.find(query).then((matches) => {
      if (!this.disposed && this.bar?.isOpen) this.showMatches(matches, step);
    });
  }

  private showMatches(matches: BufferRange[], step: FindStep): void {
    const view = this.session.viewport;
    const previous = this.matches[this.current]?.start ?? null;
    this.matches = matches;
    const bottom = { x: this.session.cols, y: view.top + this.session.rows - 1 };
    this.current = nextCurrentMatch(this.matches, previous, this.current, step, bottom);
    const m = step === 'refresh' ? undefined : this.matches[this.current];
    if (m) this.reveal(m);
    this.bar?.setCount(this.current, this.matches.length);
    this.onChange();
  }

  private reveal(m: BufferRange): void {
    const view = this.session.viewport;
    const top = revealTop(m, view.top, this.session.rows, view.bottom);
    if (top !== null) this.session.scrollLines(top - view.top);
  }
}
