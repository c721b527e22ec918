// What Web Push keeps in TERMIO_HOME, both files 0600 and written atomically:
// - push-vapid.json: the host's VAPID key pair (RFC 8292), made once. Push services tie every
//   subscription to the public key it was made with, so a new pair would orphan every device.
// - push-subscriptions.json: one entry per device (the id its page made; a second subscription
//   from the same device replaces the first), checked with zod on every read.
// A file that cannot be read or does not check out is left exactly as it is: the log names it and
// what is wrong, push is off until it is fixed (or removed), and nothing is written over it.
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { describeIssues } from '../../../../protocol/hostMessages';
import { PushDevicesFileSchema, type PushDevice } from '../../../../protocol/push';
import { writeFileAtomic } from '../../../services/atomicWrite';
import { readTextIfExists } from '../../../services/textFile';

export const VAPID_FILE = 'push-vapid.json';
export const DEVICES_FILE = 'push-subscriptions.json';

/** Push services use the subject to reach whoever runs the sender; this one names the project. */
export const DEFAULT_VAPID_SUBJECT = 'mailto:termio-push@users.noreply.github.com';

const VapidFileSchema = z.strictObject({
  publicKey: z.string().regex(/^[A-Za-z0-9_-]{87}$/, 'an uncompressed P-256 point, base64url'),
  privateKey: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'a P-256 private key, base64url'),
  subject: z.string().regex(/^(mailto:|https:\/\/)/, 'a mailto: or https: URL'),
});
export type VapidKeys = z.infer<typeof VapidFileSchema>;

export type Loaded<T> = { ok: true; value: T } | { ok: false; message: string };

/** Reads and checks a JSON file; null when it does not exist. Tightens a loosened mode to 0600. */
function readChecked<T>(file: string, schema: z.ZodType<T>): Loaded<T> | null {
  let text: string | null;
  try {
    text = readTextIfExists(file);
  } catch (err) {
    return { ok: false, message: `${file} cannot be read: ${(err as Error).message}` };
  }
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `${file} is not JSON (${(err as Error).message}); fix or remove it, push is off until then` };
  }
  const r = schema.safeParse(json);
  if (!r.success) return { ok: false, message: `${describeIssues(r.error, file)}; fix or remove it, push is off until then` };
  if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  return { ok: true, value: r.data };
}

function writeJson(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, forceMode: true });
}

/** The VAPID keys, made with `generate` (web-push's generateVAPIDKeys) the first time. */
export function loadVapidKeys(home: string, generate: () => { publicKey: string; privateKey: string }): Loaded<VapidKeys> {
  const file = join(home, VAPID_FILE);
  const read = readChecked(file, VapidFileSchema);
  if (read) return read;
  const keys = { ...generate(), subject: DEFAULT_VAPID_SUBJECT };
  writeJson(file, keys);
  return { ok: true, value: keys };
}

/** The devices' subscriptions. Read again whenever the file changed on disk (a hand edit fixing
 *  it), so a repair takes effect without a restart. */
export class PushDevices {
  readonly file: string;
  private cache: { stamp: string; loaded: Loaded<PushDevice[]> } | null = null;

  constructor(home: string) {
    this.file = join(home, DEVICES_FILE);
  }

  private stamp(): string {
    try {
      const s = statSync(this.file);
      return `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return 'none';
    }
  }

  /** Every device, or why the file cannot be used. */
  load(): Loaded<PushDevice[]> {
    const stamp = this.stamp();
    if (this.cache?.stamp !== stamp) {
      const read = readChecked(this.file, PushDevicesFileSchema);
      this.cache = { stamp, loaded: read ? (read.ok ? { ok: true, value: read.value.devices } : read) : { ok: true, value: [] } };
    }
    return this.cache.loaded;
  }

  /** Changes the list and writes it; refused (with the reason) while the file is unusable. */
  update(change: (devices: PushDevice[]) => PushDevice[]): Loaded<PushDevice[]> {
    const cur = this.load();
    if (!cur.ok) return cur;
    const next = change(cur.value.map((d) => ({ ...d })));
    writeJson(this.file, { version: 1, devices: next });
    this.cache = { stamp: this.stamp(), loaded: { ok: true, value: next } };
    return this.cache.loaded;
  }
}
