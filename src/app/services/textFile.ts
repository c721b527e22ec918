// Reading a file Termio edits (an agent's config, a hook script, a skill): its text, or null when
// it does not exist. Any other failure (a folder at the path, no permission) is thrown, so the
// caller reports it instead of taking the file for absent and writing over it.
import { readFileSync } from 'node:fs';

export function readTextIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
