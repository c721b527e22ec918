// The stall alarm: a session that works with no output and no hook report for longer than the
// stall time is flagged, with a health note `sessions why` and the why strip show; output clears
// it. A real pty runs a program that sets a busy title, then stays silent until it reads a line.
import { afterEach, describe, expect, it } from 'vitest';
import { StatusTracker, type StallChange } from '../../../src/app/host/status/statusTracker';
import { Session } from '../../../src/terminal/node';
import { waitFor } from '../../helpers/waitFor';

/** Short enough for a test, long enough that the program's own start-up output is over first. */
const STALL_MS = 300;

const sessions: Session[] = [];
let tracker: StatusTracker | null = null;
afterEach(() => {
  for (const s of sessions.splice(0)) s.dispose();
  tracker?.dispose();
  tracker = null;
});

describe('stall alarm', () => {
  it('flags a working session that goes silent, and clears the flag when it shows life', async () => {
    tracker = new StatusTracker({ stallMs: STALL_MS });
    const t = tracker;
    const s = Session.spawn({ argv: ['/bin/sh', '-c', 'printf "\\033]0;* busy\\007"; read x; echo "more output"; read y'], cwd: '/' });
    if (!(s instanceof Session)) throw new Error(s.message);
    sessions.push(s);
    const stalls: StallChange[] = [];
    t.onStall((c) => stalls.push(c));
    t.track(s, { agentId: 'busy', titleStatus: { working: ['^\\* '] } });
    await waitFor(() => t.status(s.id)?.state === 'working', { what: 'the busy title' });
    const stalled = await waitFor(() => stalls[0], { what: 'the stall', timeout: 10 * STALL_MS });
    expect(stalled.sessionId).toBe(s.id);
    expect(Date.now() - (stalled.since ?? 0)).toBeGreaterThanOrEqual(STALL_MS);
    expect(t.status(s.id)?.health).toEqual([
      expect.objectContaining({ code: 'stalled', message: expect.stringMatching(/^stalled: working with no output and no hook report for \d+s$/) }),
    ]);

    s.write('\r');
    await waitFor(() => stalls.length === 2, { what: 'the stall to clear on output' });
    expect(stalls[1]).toEqual({ sessionId: s.id, since: null });
    expect(t.status(s.id)?.health).toEqual([]);
    // Still working and silent again: it stalls again.
    await waitFor(() => stalls.length === 3, { what: 'a second stall', timeout: 10 * STALL_MS });
    expect(stalls[2]?.since).toEqual(expect.any(Number));
  });

  it('never flags a session that is not working', async () => {
    tracker = new StatusTracker({ stallMs: STALL_MS });
    const t = tracker;
    const s = Session.spawn({ argv: ['/bin/sh', '-c', 'printf "\\033]0;idle\\007"; read x'], cwd: '/' });
    if (!(s instanceof Session)) throw new Error(s.message);
    sessions.push(s);
    const working = Session.spawn({ argv: ['/bin/sh', '-c', 'printf "\\033]0;* busy\\007"; read x'], cwd: '/' });
    if (!(working instanceof Session)) throw new Error(working.message);
    sessions.push(working);
    const stalls: StallChange[] = [];
    t.onStall((c) => stalls.push(c));
    const agent = { agentId: 'busy', titleStatus: { working: ['^\\* '], idle: ['^idle'] } };
    t.track(s, agent);
    t.track(working, agent);
    // The working one, silent as long as the idle one, is the only one flagged.
    await waitFor(() => stalls.length > 0, { what: 'the working session to stall', timeout: 10 * STALL_MS });
    expect(stalls.map((c) => c.sessionId)).toEqual([working.id]);
  });
});
