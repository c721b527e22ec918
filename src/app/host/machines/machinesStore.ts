// The saved machines in $TERMIO_HOME/config/machines.json: read leniently (a bad entry is reported
// by name and skipped, the others kept), changed surgically (`termio machines add|remove` and
// Settings → Machines edit only their own entry, so comments and layout survive) and watched, so a
// hand edit applies live, as settings.json does.
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { Emitter } from '../../../protocol/events';
import { parseMachines, type Machine, type MachinesLoad } from '../../../protocol/machines';
import { writeFileAtomic } from '../../services/atomicWrite';
import { readTextIfExists } from '../../services/textFile';

/** Editors write in several steps: read once they are done (as settings.json is). */
const RELOAD_DEBOUNCE_MS = 50;

const EMPTY_FILE = '{\n  "machines": {}\n}\n';

export class MachinesStore {
  private current: MachinesLoad;
  private watcher: FSWatcher | null = null;
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
    try {
      return parseMachines(readTextIfExists(this.file) ?? '', this.label);
    } catch (err) {
      return { machines: [], errors: [`${this.label}: cannot be read (${(err as Error).message}); no machines`] };
    }
  }

  reload(): void {
    this.current = this.read();
    this.changed.fire(this.current);
  }

  /** Adds or replaces one machine, leaving the rest of the file as the user wrote it. */
  put(machine: Machine): void {
    const { name, ...entry } = machine;
    this.edit(['machines', name], entry);
  }

  /** Removes one machine; false when there is none of that name. */
  remove(name: string): boolean {
    if (!this.current.machines.some((m) => m.name === name)) return false;
    this.edit(['machines', name], undefined);
    return true;
  }

  private edit(path: string[], value: unknown): void {
    const text = readTextIfExists(this.file) ?? '';
    const base = text.trim() === '' ? EMPTY_FILE : text;
    const next = applyEdits(base, modify(base, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } }));
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileAtomic(this.file, next);
    this.reload();
  }

  /** Applies hand edits live; watches the folder, since editors replace the file on save. */
  watch(): void {
    if (this.watcher) return;
    mkdirSync(dirname(this.file), { recursive: true });
    let timer: NodeJS.Timeout | null = null;
    this.watcher = watch(dirname(this.file), (_event, name) => {
      if (name !== null && !this.file.endsWith(`/${name}`)) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => this.reload(), RELOAD_DEBOUNCE_MS);
    });
  }

  dispose(): void {
    this.watcher?.close();
    this.watcher = null;
    this.changed.dispose();
  }
}
