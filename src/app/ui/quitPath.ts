// The one way out of the app (Quit action, ⌘Q, SIGTERM, SIGINT, SIGHUP): detach from the session
// host (or end every session, when asked), close every window, then exit, within a bounded time.
import type { Logger } from '../services/log';

/** If ending sessions hangs (a host that does not answer), exit anyway after this long; a SIGTERM
 *  must end the app within 2 s, and this leaves headroom for process teardown. The host's own
 *  grace for sessions is 0.8 s. */
const QUIT_DEADLINE_MS = 1_500;

export interface QuitSteps {
  /** Detaches from the session host, or ends every session first ('end'). */
  disposeHost(mode: 'keep' | 'end' | undefined): Promise<void>;
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

  async quit(reason: string, mode?: 'keep' | 'end'): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.log.info('quitting', { reason, mode: mode || undefined });
    const deadline = setTimeout(() => {
      this.log.warn('quit deadline passed; exiting anyway');
      process.exit(0);
    }, QUIT_DEADLINE_MS);
    try {
      await this.steps.disposeHost(mode);
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
