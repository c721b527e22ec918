// In-band status signals an application sends through the terminal stream: window title
// (OSC 0/2), bell (BEL), desktop notifications (OSC 9 and OSC 777;notify) and progress
// (OSC 9;4). Hooks into the emulator's parser, so sequences split across reads are handled.
import type { Terminal } from '@xterm/headless';
import { DisposableStore, Emitter, type Disposable, type Event } from '../../protocol/events';

export interface Notification {
  title: string;
  body: string;
}

export interface Progress {
  /** 0 clear, 1 set value, 2 error, 3 indeterminate, 4 paused (ConEmu's OSC 9;4 states). */
  state: number;
  /** Percent, 0–100. */
  value: number;
}

export class InBandSignals implements Disposable {
  private readonly store = new DisposableStore();
  private readonly _onTitle = this.store.add(new Emitter<string>());
  private readonly _onBell = this.store.add(new Emitter<void>());
  private readonly _onNotification = this.store.add(new Emitter<Notification>());
  private readonly _onProgress = this.store.add(new Emitter<Progress>());
  readonly onTitle: Event<string> = this._onTitle.event;
  readonly onBell: Event<void> = this._onBell.event;
  readonly onNotification: Event<Notification> = this._onNotification.event;
  readonly onProgress: Event<Progress> = this._onProgress.event;
  /** Last OSC 0/2 title ('' if none). */
  title = '';

  constructor(term: Terminal) {
    // xterm parses OSC 0/2 (and the title stack, CSI 22/23 t) itself.
    this.store.add(
      term.onTitleChange((t) => {
        this.title = t;
        this._onTitle.fire(t);
      }),
    );
    this.store.add(term.onBell(() => this._onBell.fire()));
    this.store.add(
      term.parser.registerOscHandler(9, (data) => {
        const progress = /^4;(\d+)(?:;(\d+))?/.exec(data);
        if (progress) {
          this._onProgress.fire({ state: Number(progress[1]), value: Math.min(100, Number(progress[2] ?? 0)) });
        } else {
          this._onNotification.fire({ title: '', body: data });
        }
        return true;
      }),
    );
    this.store.add(
      term.parser.registerOscHandler(777, (data) => {
        const m = /^notify;([^;]*)(?:;([\s\S]*))?$/.exec(data);
        if (m) this._onNotification.fire({ title: m[1] ?? '', body: m[2] ?? '' });
        return true;
      }),
    );
  }

  dispose(): void {
    this.store.dispose();
  }
}
