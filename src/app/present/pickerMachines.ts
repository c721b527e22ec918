// The picker's machine choice: where a new session runs — this machine, or one of the saved
// machines (termio machines) — remembered per folder, so the next pick in the same folder
// preselects it. Pure: the picker shows it, the settings keep the remembered choices
// (`picker.machines`, folder → machine name; a folder absent from it starts on this machine).
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

/** The machine the picker starts with in `folder`: the one chosen there last, while it is saved. */
export function preselectedMachine(remembered: Readonly<Record<string, string>>, folder: string, choices: readonly MachineChoice[]): string | null {
  const m = Object.hasOwn(remembered, folder) ? remembered[folder] : undefined;
  return m !== undefined && choices.some((c) => c.name === m) ? m : null;
}

/** ⌃M: the next choice, round to this machine after the last. */
export function nextMachine(choices: readonly MachineChoice[], current: string | null): string | null {
  const at = choices.findIndex((c) => c.name === current);
  return choices[(at + 1) % choices.length]?.name ?? null;
}

/** What the settings keep after a start in `folder` on `machine`: the value to set at
 *  `picker.machines.<folder>` (undefined removes it: this machine is the default). */
export function rememberedValue(machine: string | null): string | undefined {
  return machine ?? undefined;
}

/** The footer's part: nothing while no machine is saved; else where the session will run. */
export function machineFooter(choices: readonly MachineChoice[], current: string | null): string {
  if (choices.length < 2) return '';
  const c = choices.find((x) => x.name === current) ?? choices[0]!;
  return `    ⌃M on: ${c.label}${c.note ? ` (${c.note})` : ''}`;
}
