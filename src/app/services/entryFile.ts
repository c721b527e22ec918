// A list the host keeps in a JSON file of its own, `{ "version": 1, "<key>": [ … ] }` (worktrees,
// fan-out groups): read leniently (a file that cannot be read, or an entry that does not fit, is
// said and skipped, never fatal), written whole and atomically.
import * as z from 'zod';
import { writeFileAtomic } from './atomicWrite';
import { readTextIfExists } from './textFile';

/** The entries of `file`'s `key` list that `schema` accepts. `unreadable` says what is left
 *  untouched when the file cannot be read; `entry` names one entry in a warning. */
export function readEntries<T>(
  file: string,
  key: string,
  schema: z.ZodType<T>,
  warn: (message: string) => void,
  words: { unreadable: string; entry: string },
): T[] {
  const text = readTextIfExists(file);
  if (text === null) return [];
  let list: unknown[];
  try {
    list = z.looseObject({ version: z.literal(1), [key]: z.array(z.unknown()) }).parse(JSON.parse(text))[key] as unknown[];
  } catch (err) {
    warn(`${file} could not be read (${(err as Error).message}); ${words.unreadable}`);
    return [];
  }
  return list.flatMap((item) => {
    const r = schema.safeParse(item);
    if (r.success) return [r.data];
    warn(`${file}: ${words.entry} was skipped: ${r.error.issues[0]?.message ?? 'not one'}`);
    return [];
  });
}

export function writeEntries(file: string, key: string, entries: readonly unknown[]): void {
  writeFileAtomic(file, `${JSON.stringify({ version: 1, [key]: entries }, null, 2)}\n`);
}
