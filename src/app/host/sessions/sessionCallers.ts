// Which running session a control request comes from: each session's TERMIO_SESSION_SECRET,
// minted per launch, and the lookup from a secret back to its session.
import { mintSessionSecret, sameSecret } from '../../services/sessionSecret';
import type { SessionRegistry } from './sessionRegistry';

export class SessionCallers {
  private readonly secrets = new Map<string, string>();

  constructor(private readonly registry: SessionRegistry) {}

  /** A fresh secret for a launch; it counts once `remember` binds it to the session that started. */
  mint(): string {
    return mintSessionSecret();
  }

  remember(id: string, secret: string): void {
    this.secrets.set(id, secret);
  }

  /** A relaunch mints a new secret; the old one dies with its processes. */
  forget(id: string): void {
    this.secrets.delete(id);
  }

  secretOf(id: string): string | undefined {
    return this.secrets.get(id);
  }

  /** The running session a control request's secret belongs to, with its bypass flag; null: none. */
  callerOf(secret: string): { sessionId: string; bypass: boolean } | null {
    for (const [sessionId, own] of this.secrets) {
      if (!sameSecret(secret, own)) continue;
      const record = this.registry.get(sessionId);
      return record ? { sessionId, bypass: record.bypass } : null;
    }
    return null;
  }
}
