// The one way out of the app (Quit action, ⌘Q, SIGTERM, SIGINT, SIGHUP): dispose every session
// and window, then exit, within a bounded time even if a session will not die.
import type { Logger } from '../host/log';

/** If disposing sessions hangs (a pty that will not die), exit anyway after this long; a
 *  SIGTERM must end the app within 2 s, and this leaves headroom for process teardown. */
const QUIT_DEADLINE_MS = 1_500;

export interface QuitSteps {
  /** Disposes the sessions and host services. */
  disposeHost(): Promise<void>;
  /** Closes the windows and the tray. */
  disposeUi(): void;
  /** Stops the Qt event loop. */
  stopRuntime(): void;
}

export class QuitPath {
  private started = false;

  constructor(
    private readonly log: Logger,
    private readonly steps: QuitSteps,
  ) {}

  /** Quitting has begun: nothing should be redrawn any more. */
  get quitting(): boolean {
    return this.started;
  }

  async quit(reason: string): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.log.info('quitting', { reason });
    const deadline = setTimeout(() => {
      this.log.warn('quit deadline passed; exiting anyway');
      process.exit(0);
    }, QUIT_DEADLINE_MS);
    try {
      await this.steps.disposeHost();
      this.steps.disposeUi();
    } catch (err) {
      this.log.error('error while quitting', { error: String(err) });
    } finally {
      clearTimeout(deadline);
      this.steps.stopRuntime();
      process.exit(0);
    }
  }
}
