// The writer of $TERMIO_HOME/config/settings.json: only the session host loads this module (the
// layer check refuses it in the app's and the CLI's code, but for the CLI's fallback when no host
// can start). A change is written surgically (only the changed key, so the user's comments and
// layout survive) and atomically; the reading side is settingsFile.ts.
import { renameSync } from 'node:fs';
import type * as z from 'zod';
import { homedir } from 'node:os';
import { shortenHome } from '../../protocol/homePath';
import { writeFileAtomic } from './atomicWrite';
import { describeValue, editSettingsText, notAnObject, parseSettings, SettingsFile, SettingsSchema, unreadableBecause } from './settingsFile';

export * from './settingsFile';

/**
 * Moves a file that cannot be read as JSON aside byte for byte (it is never spliced into), for a
 * change to start a new one; answers the notice that says so. Settings and machines.json share it.
 */
export function moveAsideUnreadable(file: string, label: string, why: string, home: string = homedir()): string {
  const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, aside);
  return `${label} could not be read (${why}); it was moved to ${shortenHome(aside, home)} unchanged, and a new ${label} holds only this change`;
}

/** A setting change that was not made: the file holds something in its way; nothing was written. */
export class SettingsEditRefused extends Error {}

export class SettingsStore extends SettingsFile {
  /**
   * Changes one setting in the file (atomically), keeping the rest of the user's text. A file that
   * does not parse is never edited (splicing into it would make it worse): it is moved aside
   * byte for byte, as a corrupt sessions.json is, and a new file holds this change; the answer
   * says so. A value in the way (`"companion": "yes"` when setting companion.port) refuses the
   * change with a SettingsEditRefused naming it, and so does a value the setting does not take
   * (checked before anything is written).
   */
  set(path: string[], value: unknown): { notice: string | null } {
    const text = this.readText();
    const unreadable = unreadableBecause(text);
    // A value in the way first: editing through it is what cannot be done at all.
    const blocked = unreadable ? null : notAnObject(text, path);
    if (blocked) {
      throw new SettingsEditRefused(
        `${this.label}: ${blocked.at} is ${describeValue(blocked.value)}, not an object, so ${path.join('.')} cannot be set; fix or remove it and try again (nothing was changed)`,
      );
    }
    const refused = refusedValue(unreadable ? '' : text, path, value, this.label);
    if (refused) throw new SettingsEditRefused(`${refused} (nothing was changed)`);
    if (unreadable) {
      const notice = moveAsideUnreadable(this.file, this.label, unreadable, this.home);
      writeFileAtomic(this.file, editSettingsText('', path, value));
      this.reload();
      return { notice };
    }
    writeFileAtomic(this.file, editSettingsText(text, path, value));
    this.reload();
    return { notice: null };
  }
}

/** Why `value` cannot be set at `path` (an unknown setting, or one the schema refuses), or null. */
function refusedValue(text: string, path: string[], value: unknown, label: string): string | null {
  const unknown = unknownKey(path);
  if (unknown) return `${label}: there is no setting '${unknown.at}'${unknown.known.length ? ` (known: ${unknown.known.join(', ')})` : ''}`;
  // Problems the change adds: those the file had before are the user's, reported as they were.
  const before = new Set(parseSettings(text, label).errors);
  const added = parseSettings(editSettingsText(text, path, value), label).errors.filter((e) => !before.has(e));
  return added[0]?.replace(/; using the default$/, '') ?? null;
}

/** The schema's parts a key path walks through: wrappers (default, optional) hold one inner type. */
interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
}

/** The first part of `path` the schema has no place for (the schema would drop it unsaid), or null. */
function unknownKey(path: string[]): { at: string; known: string[] } | null {
  let schema: z.ZodType = SettingsSchema;
  for (let i = 0; i < path.length; i++) {
    let def = schema.def as SchemaDef;
    while (def.innerType) def = def.innerType.def as SchemaDef;
    const at = path.slice(0, i + 1).join('.');
    if (def.type === 'object' && def.shape) {
      const next = Object.hasOwn(def.shape, path[i]!) ? def.shape[path[i]!] : undefined;
      if (!next) return { at, known: Object.keys(def.shape) };
      schema = next;
    } else if (def.type === 'record' && def.valueType) schema = def.valueType;
    else return { at, known: [] };
  }
  return null;
}
