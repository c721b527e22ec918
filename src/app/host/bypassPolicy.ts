// Who may start a program with an agent's permission-bypass flag, through any door (the control
// socket's spawn and run, the host socket's spawn and app.launch), and which session a request
// speaks for. The asking session is named by its secret (controlServer.ts's header explains the
// threat model); a request that neither carries a secret nor names a session is the user's own.
import type { Outcome } from './driveVerbs';
import type { Logger } from '../services/log';

/** The running session a secret belongs to, with its bypass flag; null: no running session has it. */
export type CallerOf = (secret: string) => { sessionId: string; bypass: boolean } | null;

/** Which agent's bypass flag a command line carries (bypassArgv.ts), or null. */
export type BypassFlagIn = (argv: readonly string[]) => Promise<{ agent: string; flag: string } | null>;

/** Who asks: the secret it carries and the session it names (TERMIO_SESSION, or a spawn's parent). */
export interface Asker {
  secret?: string | undefined;
  session?: string | undefined;
}

export class BypassPolicy {
  constructor(
    private readonly callerOf: CallerOf,
    private readonly logger: Logger,
    private readonly flagIn: BypassFlagIn = async () => null,
  ) {}

  /**
   * A start with the permission-bypass flag: allowed from outside Termio (the user) and from a
   * session that itself runs with bypass; refused from any other session, including one whose
   * secret no running session has, and a request that names a session but carries no secret.
   * Either way the decision is logged, with the door it came through.
   */
  refuse(who: Asker, what: string, door: string): Outcome | null {
    const { secret, session } = who;
    if (secret === undefined && session === undefined) {
      this.logger.info(`${door}: bypass start allowed (from outside Termio)`, { what });
      return null;
    }
    const caller = secret !== undefined ? this.callerOf(secret) : null;
    if (caller?.bypass) {
      this.logger.info(`${door}: bypass start allowed (the asking session runs with bypass)`, { what, caller: caller.sessionId });
      return null;
    }
    this.logger.warn(`${door}: bypass start refused (asked from inside a session without bypass)`, {
      what,
      caller: caller?.sessionId ?? session ?? 'unknown session',
    });
    return {
      ok: false,
      code: 'forbidden',
      message: caller
        ? `session ${caller.sessionId} runs without permission bypass, so it cannot start ${what} with it`
        : secret === undefined
          ? `this request names session ${session} but carries no session secret (TERMIO_SESSION_SECRET), so it cannot start ${what} with permission bypass`
          : `this request carries a session secret no running Termio session has (a session that ended?), so it cannot start ${what} with permission bypass`,
    };
  }

  /** A command line as is (`sessions run`, `host spawn`): refused as above when it carries an agent's bypass flag. */
  async refuseArgv(argv: readonly string[] | undefined, who: Asker, door: string): Promise<Outcome | null> {
    if (!argv?.length) return null;
    const found = await this.flagIn(argv);
    return found ? this.refuse(who, `${found.agent} (${found.flag} in the command line)`, door) : null;
  }

  /** A spawn's parent is the session its secret names, whatever TERMIO_SESSION the client claims. */
  withCaller<A extends { parent?: string }>(args: A, secret: string | undefined): A {
    const caller = secret !== undefined ? this.callerOf(secret) : null;
    return caller ? { ...args, parent: caller.sessionId } : args;
  }
}
