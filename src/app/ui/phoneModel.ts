// Settings → Phone's link to the session host: a HostClient connection of its own, opened for
// each question and closed with its answer (a connection held open would keep an idle host up),
// that asks for the companion's status and turns it on, off, to the network, or revokes its
// link; and lists the devices notified by Web Push, or removes one. The host owns the companion, so the app, `termio companion` and the page always agree.
import { join } from 'node:path';
import type { CompanionResults, CompanionStatus } from '../../protocol/companion';
import type { HostParams } from '../../protocol/hostMessages';
import type { PushDeviceInfo } from '../../protocol/push';
import { HOST_SOCKET_FILE } from '../../protocol/hostFraming';
import { HostClient } from '../client/hostClient';
import { packageVersion } from '../services/install';

export type PhoneResult = { ok: true; status: CompanionStatus } | { ok: false; message: string };
export type DevicesResult = { ok: true; devices: PushDeviceInfo[] } | { ok: false; message: string };

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

  private async request<M extends keyof CompanionResults>(
    method: M,
    params: HostParams<M>,
  ): Promise<{ ok: true; result: CompanionResults[M] } | { ok: false; message: string }> {
    const c = await this.connection();
    if (typeof c === 'string') return { ok: false, message: c };
    const r = await c.request(method, params);
    c.close();
    return r.ok ? { ok: true, result: r.result as CompanionResults[M] } : { ok: false, message: r.error.message };
  }

  private async ask(
    method: 'companion.status' | 'companion.disable' | 'companion.revoke' | 'companion.enable',
    params: { network?: 'lan' | 'loopback' } = {},
  ): Promise<PhoneResult> {
    const r = await this.request(method, params);
    return r.ok ? { ok: true, status: r.result } : r;
  }

  async devices(): Promise<DevicesResult> {
    const r = await this.request('companion.devices', {});
    return r.ok ? { ok: true, devices: r.result.devices } : r;
  }

  async removeDevice(id: string): Promise<DevicesResult> {
    const r = await this.request('companion.removeDevice', { id });
    return r.ok ? { ok: true, devices: r.result.devices } : r;
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
