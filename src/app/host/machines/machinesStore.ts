// The saved machines in $TERMIO_HOME/config/machines.json: read leniently (a bad entry is reported
// by name and skipped, the others kept), changed surgically (`termio machines add|remove` and
// Settings → Machines edit only their own entry, so comments and layout survive) and watched, so a
// hand edit applies live, as settings.json does. A file that cannot be read as JSON (cut short,
// binary, a folder, far too large) is never edited: the first change moves it aside unchanged and
// starts a new one, and says so.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { Emitter, type Disposable } from '../../../protocol/events';
import { MAX_MACHINES, parseMachines, type Machine, type MachinesLoad } from '../../../protocol/machines';
import { writeFileAtomic } from '../../services/atomicWrite';
import { watchFile } from '../../services/fileWatch';
import { moveAsideUnreadable, notAnObject, unreadableBecause } from '../../services/settings';

/** Editors write in several steps: read once they are done (as settings.json is). */

const EMPTY_FILE = '{\n  "machines": {}\n}\n';

/** machines.json is read whole: a list of machines is a few KiB, and a file past this is not one. */
export const MAX_MACHINES_FILE_BYTES = 1024 * 1024;

/** A change that was not made: the file holds something in its way, or the list is full. Nothing was written. */
export class MachinesEditRefused extends Error {}

/** The file's text ('' when absent), or why it cannot be taken for a machines list. */
function readMachinesFile(file: string): { text: string } | { unreadable: string } {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { unreadable: 'it is a folder or another non-file' };
    size = st.size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { text: '' };
    return { unreadable: (err as Error).message };
  }
  if (size > MAX_MACHINES_FILE_BYTES) return { unreadable: `it is ${size} bytes, more than a machines list's ${MAX_MACHINES_FILE_BYTES}` };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
  const why = unreadableBecause(text);
  return why ? { unreadable: why } : { text };
}

export class MachinesStore {
  private current: MachinesLoad;
  private watcher: Disposable | null = null;
  private readonly changed = new Emitter<MachinesLoad>();
  readonly onChange = this.changed.event;

  constructor(
    readonly file: string,
    readonly label: string,
  ) {
    this.current = this.read();
  }

  get machines(): Machine[] {
    return this.current.machines;
  }

  get errors(): string[] {
    return this.current.errors;
  }

  private read(): MachinesLoad {
    const r = readMachinesFile(this.file);
    if ('unreadable' in r)
      return {
        machines: [],
        errors: [
          `${this.label}: cannot be read (${r.unreadable}); no machines. It is left as it is; the next \`termio machines add\` moves it aside and starts a new one`,
        ],
      };
    return parseMachines(r.text, this.label);
  }

  reload(): void {
    this.current = this.read();
    this.changed.fire(this.current);
  }

  /**
   * Adds or replaces one machine, leaving the rest of the file as the user wrote it. The answer's
   * notice says when an unreadable file was moved aside first; a full list, or a "machines" that
   * is not an object, is a MachinesEditRefused.
   */
  put(machine: Machine): { notice: string | null } {
    const { name, ...entry } = machine;
    if (!this.current.machines.some((m) => m.name === name) && this.current.machines.length >= MAX_MACHINES)
      throw new MachinesEditRefused(`${this.label} already holds ${MAX_MACHINES} machines, the most Termio connects; remove one first (nothing was changed)`);
    return this.edit(['machines', name], entry);
  }

  /** Removes one machine; false when there is none of that name. */
  remove(name: string): boolean {
    if (!this.current.machines.some((m) => m.name === name)) return false;
    this.edit(['machines', name], undefined);
    return true;
  }

  private edit(path: string[], value: unknown): { notice: string | null } {
    mkdirSync(dirname(this.file), { recursive: true });
    const r = readMachinesFile(this.file);
    let notice: string | null = null;
    let text = '';
    if ('unreadable' in r) {
      // A folder is moved aside as it is, too.
      notice = moveAsideUnreadable(this.file, this.label, r.unreadable);
    } else {
      text = r.text;
      const blocked = notAnObject(text, path);
      if (blocked)
        throw new MachinesEditRefused(
          `${this.label}: "${blocked.at}" is not an object, so ${path.join('.')} cannot be written; fix or remove it and try again (nothing was changed)`,
        );
    }
    const base = text.trim() === '' ? EMPTY_FILE : text;
    const next = applyEdits(base, modify(base, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } }));
    writeFileAtomic(this.file, next);
    this.reload();
    return { notice };
  }

  /** Applies hand edits live. */
  watch(): void {
    this.watcher ??= watchFile(this.file, () => this.reload());
  }

  dispose(): void {
    this.watcher?.dispose();
    this.watcher = null;
    this.changed.dispose();
  }
}
