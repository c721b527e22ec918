// OSC 9;4 progress (manifest progressStatus) as a status channel: in the engine an active report
// means working and a cleared one ends it, beside hooks as the title does; through the tracker, a
// real pty printing progress moves the session and exposes its percentage; and an agent whose
// manifest does not say progressStatus is not moved by another program's progress bar.
import { afterEach, describe, expect, it } from 'vitest';
import { StatusTracker } from '../../../src/app/host/status/statusTracker';
import { StatusEngine } from '../../../src/protocol/status';
import { Session } from '../../../src/terminal/node';
import { waitFor } from '../../helpers/waitFor';

const progress = (active: boolean, value: number, at: number) => ({ kind: 'progress' as const, active, value, at });

describe('the progress channel in the engine', () => {
  it('without hooks: working while a report is active, done once it clears (idle when looked at)', () => {
    const e = new StatusEngine({ hooksDeclared: false }, 0);
    e.apply(progress(true, 10, 1));
    expect(e.status).toMatchObject({ state: 'working', why: { channel: 'progress', event: '10%' } });
    e.apply(progress(true, 60, 2));
    expect(e.status.state).toBe('working');
    e.apply(progress(false, 0, 3));
    expect(e.status.state).toBe('done');
    e.apply({ kind: 'focus', focused: true, at: 4 });
    expect(e.status.state).toBe('idle');
  });
  it('with hooks: a report after the hook corrects a missed event, as the title does', () => {
    const e = new StatusEngine({ hooksDeclared: true }, 0);
    e.apply({ kind: 'hook', state: 'done', event: 'Stop', at: 1 });
    e.apply(progress(true, 5, 2));
    expect(e.status).toMatchObject({ state: 'working', why: { channel: 'progress' } });
    e.apply({ kind: 'hook', state: 'done', event: 'Stop', at: 3 });
    expect(e.status).toMatchObject({ state: 'done', why: { channel: 'hooks', event: 'Stop' } });
  });
});

describe('the tracker reads OSC 9;4 from a real pty', () => {
  const sessions: Session[] = [];
  afterEach(() => {
    for (const s of sessions.splice(0)) s.dispose();
  });
  const spawn = (script: string) => {
    const s = Session.spawn({ argv: ['/bin/sh', '-c', script], cwd: '/' });
    if (!(s instanceof Session)) throw new Error(s.message);
    sessions.push(s);
    return s;
  };

  it('moves a progressStatus agent to working with its percentage, and back when the report clears', async () => {
    const tracker = new StatusTracker();
    const progressSeen: (number | null)[] = [];
    tracker.onProgress((p) => progressSeen.push(p.progress));
    const s = spawn(`printf '\\033]9;4;1;42\\007'; read x; printf '\\033]9;4;0;0\\007'; read y`);
    tracker.track(s, { agentId: 'grok', progressStatus: true });
    await waitFor(() => tracker.status(s.id)?.state === 'working', { what: 'working from the progress report' });
    expect(tracker.progressOf(s.id)).toBe(42);
    s.write('\r');
    await waitFor(() => tracker.status(s.id)?.state === 'done', { what: 'done once the report clears' });
    expect(tracker.progressOf(s.id)).toBeNull();
    expect(progressSeen).toEqual([42, null]);
    tracker.dispose();
  });

  it('leaves an agent without progressStatus alone', async () => {
    const tracker = new StatusTracker();
    const s = spawn(`printf '\\033]9;4;1;42\\007marker\\n'; read x`);
    tracker.track(s, { agentId: 'other' });
    await waitFor(() => s.screenLines().join('\n').includes('marker'), { what: 'the output after the report' });
    await s.whenParsed();
    expect(tracker.status(s.id)?.state).toBe('idle');
    expect(tracker.progressOf(s.id)).toBeNull();
    tracker.dispose();
  });
});
