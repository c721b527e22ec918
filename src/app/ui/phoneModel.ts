// Settings → Phone's link to the session host: a HostClient connection of its own, opened for
// each question and closed with its answer (a connection held open would keep an idle host up),
// that asks for the companion's status and turns it on, off, to the network, or revokes its
// link. The host owns the companion, so the app, `termio companion` and the page always agree.
import { join } from 'node:path';
import type { CompanionStatus } from '../../protocol/companion';
import { HOST_SOCKET_FILE } from '../../protocol/hostFraming';
import { HostClient } from '../client/hostClient';
import { packageVersion } from '../services/install';

export type PhoneResult = { ok: true; status: CompanionStatus } | { ok: false; message: string };

export class PhoneModel {
  constructor(private readonly runDir: string) {}

  private async connection(): Promise<HostClient | string> {
    const c = await HostClient.connect(join(this.runDir, HOST_SOCKET_FILE), { client: 'termio-app-settings', version: packageVersion() });
    if (!(c instanceof HostClient)) {
      return c.kind === 'notRunning'
        ? 'Termio’s session host is not running. It starts with `termio host start` or `termio companion enable`, and serves the page from then on.'
        : c.message;
    }
    return c;
  }

  private async ask(
    method: 'companion.status' | 'companion.disable' | 'companion.revoke' | 'companion.enable',
    params: { network?: 'lan' | 'loopback' } = {},
  ): Promise<PhoneResult> {
    const c = await this.connection();
    if (typeof c === 'string') return { ok: false, message: c };
    const r = await c.request(method, params);
    c.close();
    return r.ok ? { ok: true, status: r.result } : { ok: false, message: r.error.message };
  }

  status(): Promise<PhoneResult> {
    return this.ask('companion.status');
  }

  enable(network?: 'lan' | 'loopback'): Promise<PhoneResult> {
    return this.ask('companion.enable', network ? { network } : {});
  }

  disable(): Promise<PhoneResult> {
    return this.ask('companion.disable');
  }

  revoke(): Promise<PhoneResult> {
    return this.ask('companion.revoke');
  }
}
