// Session secrets as the host keeps them, for tests that wire a HookServer and a StatusTracker by
// hand: mint one per session id, put it in that session's environment, look it up for the server.
import { randomUUID } from 'node:crypto';
import { mintSessionSecret, SESSION_SECRET_ENV } from '../../src/app/services/sessionSecret';

export class SessionSecrets {
  private readonly secrets = new Map<string, string>();

  /** A session id (fresh unless given) and the environment that carries its secret. */
  mint(id: string = randomUUID()): { id: string; env: Record<string, string> } {
    const secret = mintSessionSecret();
    this.secrets.set(id, secret);
    return { id, env: { [SESSION_SECRET_ENV]: secret } };
  }

  readonly secretOf = (id: string): string | undefined => this.secrets.get(id);
}
