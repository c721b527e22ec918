// The picker's machine choice: where a new session runs — this machine, or one of the saved
// machines (termio machines) — remembered per folder, so the next pick in the same folder
// preselects it. Without a remembered choice the picker starts on the machine of the session
// whose folder it opened in (a folder of that machine). Pure: the picker shows it, the settings
// keep the remembered choices (`picker.machines`, folder → machine name, or "" for this machine
// where another would be preselected).
import type { MachineInfo } from '../../protocol/machines';

export interface MachineChoice {
  /** null: this machine. */
  name: string | null;
  label: string;
  /** Why a start there may fail now (its state when not connected), else null. */
  note: string | null;
}

/** This machine first, then each saved machine (a duplicate of another is not one to pick). */
export function machineChoices(machines: ReadonlyArray<Pick<MachineInfo, 'name' | 'state'>>): MachineChoice[] {
  const saved = machines.filter((m) => m.state !== 'sameMachine').map((m) => ({ name: m.name, label: m.name, note: m.state === 'connected' ? null : m.state }));
  return [{ name: null, label: 'this machine', note: null }, ...saved];
}

/** The machine the picker starts with in `folder`: the one chosen there last, while it is saved;
 *  else `folderMachine` (the machine of the session the folder is from), while it is saved. */
export function preselectedMachine(
  remembered: Readonly<Record<string, string>>,
  folder: string,
  choices: readonly MachineChoice[],
  folderMachine: string | null = null,
): string | null {
  const saved = (m: string | null): boolean => m !== null && choices.some((c) => c.name === m);
  const m = Object.hasOwn(remembered, folder) ? remembered[folder] : undefined;
  if (m === '') return null;
  if (m !== undefined && saved(m)) return m;
  return saved(folderMachine) ? folderMachine : null;
}

/** ⌃M: the next choice, round to this machine after the last. */
export function nextMachine(choices: readonly MachineChoice[], current: string | null): string | null {
  const at = choices.findIndex((c) => c.name === current);
  return choices[(at + 1) % choices.length]?.name ?? null;
}

/** What the settings keep after a start in a folder on `machine`: the value to set at
 *  `picker.machines.<folder>`; undefined removes it (the choice is what would be preselected
 *  anyway), "" is this machine where `folderMachine` would be. */
export function rememberedValue(machine: string | null, folderMachine: string | null = null): string | undefined {
  if (machine === folderMachine) return undefined;
  return machine ?? '';
}

/** The footer's part: nothing while no machine is saved; else where the session will run. */
export function machineFooter(choices: readonly MachineChoice[], current: string | null): string {
  if (choices.length < 2) return '';
  const c = choices.find((x) => x.name === current) ?? choices[0]!;
  return `    ⌃M on: ${c.label}${c.note ? ` (${c.note})` : ''}`;
}
