// Who may start a program with an agent's permission-bypass flag, through any door (the control
// socket's spawn and run, the host socket's spawn and app.launch), and which session a request
// speaks for. The asking session is named by its secret (controlServer.ts's header explains the
// threat model); a request that neither carries a secret nor names a session is the user's own.
import type { Outcome } from '../../../protocol/control';
import type { Logger } from '../../services/log';

/** A refused request, as every door answers it. */
export type Refusal = Extract<Outcome, { ok: false }>;

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
  refuse(who: Asker, what: string, door: string): Refusal | null {
    return this.decide(who, door, 'bypass start', `start ${what} with permission bypass`, { what });
  }

  /**
   * A change that makes the host run something outside the asking session (a machine's ssh
   * command line and options, a program a setting names): the same rule as a bypass start, since
   * a session that may do it could run anything outside its own tab.
   */
  refuseChange(who: Asker, change: string, door: string): Refusal | null {
    return this.decide(who, door, 'change', change, { change });
  }

  private decide(who: Asker, door: string, kind: string, action: string, fields: Record<string, string>): Refusal | null {
    const { secret, session } = who;
    if (secret === undefined && session === undefined) {
      this.logger.info(`${door}: ${kind} allowed (from outside Termio)`, fields);
      return null;
    }
    const caller = secret !== undefined ? this.callerOf(secret) : null;
    if (caller?.bypass) {
      this.logger.info(`${door}: ${kind} allowed (the asking session runs with bypass)`, { ...fields, caller: caller.sessionId });
      return null;
    }
    this.logger.warn(`${door}: ${kind} refused (asked from inside a session without bypass)`, {
      ...fields,
      caller: caller?.sessionId ?? session ?? 'unknown session',
    });
    return {
      ok: false,
      code: 'forbidden',
      message: caller
        ? `session ${caller.sessionId} runs without permission bypass, so it cannot ${action}`
        : secret === undefined
          ? `this request names session ${session} but carries no session secret (TERMIO_SESSION_SECRET), so it cannot ${action}`
          : `this request carries a session secret no running Termio session has (a session that ended?), so it cannot ${action}`,
    };
  }

  /** A command line as is (`sessions run`, `host spawn`): refused as above when it carries an agent's bypass flag. */
  async refuseArgv(argv: readonly string[] | undefined, who: Asker, door: string): Promise<Outcome | null> {
    if (!argv?.length) return null;
    const found = await this.flagIn(argv);
    return found ? this.refuse(who, `${found.agent} (${found.flag} in the command line)`, door) : null;
  }

  /**
   * Typing into or answering the asking session itself (`sessions send`, `sessions answer`): an
   * agent that answers its own permission question runs what it likes unasked, so this takes the
   * same rule as a bypass start. Another session's question is the user's or a driving agent's to
   * answer, as before. Null: not the caller's own session, or the caller may.
   */
  refuseSelf(who: Asker, target: string, action: string, door: string): Refusal | null {
    const caller = who.secret !== undefined ? this.callerOf(who.secret) : null;
    const self = caller ? caller.sessionId === target : who.session === target;
    return self ? this.decide(who, door, 'own session', action, { action, target }) : null;
  }

  /** Who asks, for the log: the session its secret names, or the user outside Termio. */
  askerName(who: Asker): string {
    const caller = who.secret !== undefined ? this.callerOf(who.secret) : null;
    if (caller) return `session ${caller.sessionId}`;
    return who.secret === undefined && who.session === undefined ? 'outside Termio' : `unknown (claims ${who.session ?? 'a session'})`;
  }

  /** A spawn's parent is the session its secret names, whatever TERMIO_SESSION the client claims. */
  withCaller<A extends { parent?: string }>(args: A, secret: string | undefined): A {
    const caller = secret !== undefined ? this.callerOf(secret) : null;
    return caller ? { ...args, parent: caller.sessionId } : args;
  }
}
