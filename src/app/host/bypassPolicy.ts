// Who may start an agent with the permission-bypass flag through the control socket, and which
// session a request speaks for. The asking session is named by its secret (controlServer.ts's
// header explains the threat model); a request without one is the user's own.
import type { Outcome } from './driveVerbs';
import type { Logger } from '../shared/log';

/** The running session a secret belongs to, with its bypass flag; null: no running session has it. */
export type CallerOf = (secret: string) => { sessionId: string; bypass: boolean } | null;

export class BypassPolicy {
  constructor(
    private readonly callerOf: CallerOf,
    private readonly logger: Logger,
  ) {}

  /**
   * A spawn with the permission-bypass flag: allowed from outside Termio (the user) and from a
   * session that itself runs with bypass; refused from any other session, including one whose
   * secret no running session has. Either way the decision is logged. Every verb that spawns
   * with bypass asks this first.
   */
  refuse(secret: string | undefined, agent: string | undefined): Outcome | null {
    if (secret === undefined) {
      this.logger.info('control: bypass spawn allowed (from outside Termio)', { agent });
      return null;
    }
    const caller = this.callerOf(secret);
    if (caller?.bypass) {
      this.logger.info('control: bypass spawn allowed (the asking session runs with bypass)', { agent, caller: caller.sessionId });
      return null;
    }
    this.logger.warn('control: bypass spawn refused (asked from inside a session without bypass)', { agent, caller: caller?.sessionId ?? 'unknown session' });
    return {
      ok: false,
      code: 'forbidden',
      message: caller
        ? `session ${caller.sessionId} runs without permission bypass, so it cannot start an agent with it`
        : 'this request carries a session secret no running Termio session has (a session that ended?), so it cannot start an agent with permission bypass',
    };
  }

  /** A spawn's parent is the session its secret names, whatever TERMIO_SESSION the client claims. */
  withCaller<A extends { parent?: string }>(args: A, secret: string | undefined): A {
    const caller = secret !== undefined ? this.callerOf(secret) : null;
    return caller ? { ...args, parent: caller.sessionId } : args;
  }
}
