// The picker's machine choice: this machine first, then the saved machines; ⌃M goes round them;
// the choice is remembered per folder in settings.json (`picker.machines`) and preselected by the
// next pick in that folder, while that machine is still saved; without one, the machine of the
// session the folder is from; a choice that is what would be preselected anyway leaves no entry.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../src/protocol/machines';
import { machineChoices, machineFooter, nextMachine, preselectedMachine, rememberedValue } from '../../src/app/present/pickerMachines';
import { SettingsStore } from '../../src/app/services/settings';

const m = (name: string, state: MachineInfo['state']): Pick<MachineInfo, 'name' | 'state'> => ({ name, state });

describe("the picker's machine choice", () => {
  const choices = machineChoices([m('gpu', 'connected'), m('lab', 'unreachable'), m('alias', 'sameMachine')]);

  it('offers this machine first, then each saved machine (not a duplicate), saying which is away', () => {
    expect(choices).toEqual([
      { name: null, label: 'this machine', note: null },
      { name: 'gpu', label: 'gpu', note: null },
      { name: 'lab', label: 'lab', note: 'unreachable' },
    ]);
    expect(nextMachine(choices, null)).toBe('gpu');
    expect(nextMachine(choices, 'gpu')).toBe('lab');
    expect(nextMachine(choices, 'lab')).toBeNull();
    // A machine removed while the picker was open: round to the first after this machine.
    expect(nextMachine(choices, 'gone')).toBeNull();
    expect(machineFooter(choices, 'lab')).toBe('    ⌃M on: lab (unreachable)');
    expect(machineFooter(choices, null)).toBe('    ⌃M on: this machine');
    // No machine saved: the picker does not mention machines at all.
    expect(machineFooter(machineChoices([]), null)).toBe('');
  });

  it("preselects the machine last chosen in the folder, while it is saved, else the folder's own", () => {
    const remembered = { '/srv/api': 'gpu', '/srv/old': 'gone', '/srv/lab': 'lab', '/srv/here': '' };
    expect(preselectedMachine(remembered, '/srv/api', choices)).toBe('gpu');
    expect(preselectedMachine(remembered, '/srv/lab', choices, 'gpu')).toBe('lab');
    expect(preselectedMachine(remembered, '/srv/old', choices)).toBeNull();
    expect(preselectedMachine(remembered, '/srv/other', choices)).toBeNull();
    expect(preselectedMachine(remembered, 'constructor', choices)).toBeNull();
    // No memory: the machine of the session whose folder it is (while that machine is saved).
    expect(preselectedMachine(remembered, '/srv/other', choices, 'gpu')).toBe('gpu');
    expect(preselectedMachine(remembered, '/srv/old', choices, 'gpu')).toBe('gpu');
    expect(preselectedMachine(remembered, '/srv/other', choices, 'gone')).toBeNull();
    // This machine chosen on purpose in a folder of gpu's session.
    expect(preselectedMachine(remembered, '/srv/here', choices, 'gpu')).toBeNull();
    // What is kept: nothing when the choice is what would be preselected anyway.
    expect(rememberedValue('gpu', 'gpu')).toBeUndefined();
    expect(rememberedValue(null, null)).toBeUndefined();
    expect(rememberedValue('gpu', null)).toBe('gpu');
    expect(rememberedValue(null, 'gpu')).toBe('');
  });

  it('is kept in settings.json per folder, and this machine removes the entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'termio-pickm-'));
    try {
      const file = join(dir, 'settings.json');
      const store = new SettingsStore(file);
      expect(store.settings.picker.machines).toEqual({});
      store.set(['picker', 'machines', '/srv/api'], rememberedValue('gpu'));
      store.set(['picker', 'machines', '/srv/web'], rememberedValue('lab'));
      // What the next picker open reads (a fresh store: what a restarted app reads too).
      const again = new SettingsStore(file);
      expect(preselectedMachine(again.settings.picker.machines, '/srv/api', choices)).toBe('gpu');
      again.set(['picker', 'machines', '/srv/api'], rememberedValue(null, null));
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ picker: { machines: { '/srv/web': 'lab' } } });
      expect(preselectedMachine(new SettingsStore(file).settings.picker.machines, '/srv/api', choices)).toBeNull();
      store.dispose();
      again.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
