// This host's id: a random UUID kept in TERMIO_HOME/host-id, said in the hello. It names the host
// (one per TERMIO_HOME), not the computer: a hub reaching the same host by two saved machines
// (two names, or an ssh alias of this very host) sees the same id and connects it once.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_ID_PATTERN } from '../../protocol/machines';
import { writeFileAtomic } from './atomicWrite';

export const HOST_ID_FILE = 'host-id';

/** Reads the id, or mints and keeps one when the file is missing or does not hold one. */
export function loadHostId(termioHome: string): string {
  const file = join(termioHome, HOST_ID_FILE);
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (HOST_ID_PATTERN.test(id)) return id;
  } catch {
    // None yet.
  }
  const id = randomUUID();
  writeFileAtomic(file, `${id}\n`, { mode: 0o644 });
  return id;
}
