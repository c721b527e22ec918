// Events and disposables shared by every layer: an Emitter owns its listeners, a DisposableStore
// releases everything an owner registered, in one call. Pure (no I/O), so even src/protocol may use it.

export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => void) => Disposable;

export class Emitter<T> {
  private listeners: Array<(e: T) => void> = [];
  private disposed = false;

  readonly event: Event<T> = (listener) => {
    if (this.disposed) return { dispose: () => undefined };
    this.listeners.push(listener);
    return {
      dispose: () => {
        const i = this.listeners.indexOf(listener);
        if (i >= 0) this.listeners.splice(i, 1);
      },
    };
  };

  fire(e: T): void {
    // Copy so a listener that unsubscribes (or subscribes) during delivery does not skip others.
    for (const listener of this.listeners.slice()) listener(e);
  }

  get listenerCount(): number {
    return this.listeners.length;
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}

export class DisposableStore implements Disposable {
  private items = new Set<Disposable>();
  private disposed = false;

  add<D extends Disposable>(d: D): D {
    if (this.disposed) d.dispose();
    else this.items.add(d);
    return d;
  }

  get size(): number {
    return this.items.size;
  }

  dispose(): void {
    this.disposed = true;
    const items = [...this.items];
    this.items.clear();
    for (const d of items) d.dispose();
  }
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose: () => {
      if (done) return;
      done = true;
      fn();
    },
  };
}
