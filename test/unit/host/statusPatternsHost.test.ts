// A manifest's status patterns run on text the program controls (its title, its screen), inside
// the one host that serves every session. A pattern that backtracks catastrophically on a near
// miss must not hold that host: here the real termio-host runs a user agent whose title rule is
// "^(a|a)+$" (no nested quantifier, so `agents validate` lets it through) and whose program sets
// the title to forty a's and a '!' (2^40 steps on a backtracking engine), then to a plain match.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHostProcess } from '../../helpers/companionHost';
import { waitFor } from '../../helpers/waitFor';

let host: Awaited<ReturnType<typeof startHostProcess>> | undefined;

afterEach(async () => {
  try {
    await host?.stop();
  } catch (err) {
    // A host stuck in a pattern cannot run its SIGTERM handler: end it through its handle.
    host?.child.kill('SIGKILL');
    throw err;
  } finally {
    host = undefined;
  }
  // Room for stop() to give up on a stuck host before the kill.
}, 30_000);

describe('status patterns in the real host', () => {
  it('a catastrophic title rule neither freezes the host nor stops the rule from matching', async () => {
    const nearMiss = `${'a'.repeat(40)}!`;
    const agentScript = join(process.env.TMPDIR ?? '/tmp', `redos-agent-${process.pid}.sh`);
    writeFileSync(agentScript, `#!/bin/sh\nprintf '\\033]0;${nearMiss}\\007'\nread x\nprintf '\\033]0;aaaa\\007'\nexec sleep 600\n`);
    chmodSync(agentScript, 0o755);
    host = await startHostProcess({
      enabled: false,
      agents: { redos: { name: 'ReDoS', command: agentScript, titleStatus: { working: ['^(a|a)+$'] } } },
    });
    const c = await host.client();
    const spawned = await c.request('sessions.spawn', { agent: 'redos', cwd: host.home });
    if (!spawned.ok) throw new Error(spawned.error.message);
    const id = spawned.result.id;
    const info = async () => {
      const r = await c.request('sessions.list', {});
      if (!r.ok) throw new Error(r.error.message);
      return r.result.sessions.find((s) => s.id === id);
    };
    // The host answers while the near-miss title is up, and the rule did not match it.
    const first = await waitFor(async () => ((await info())?.title === nearMiss ? await info() : null), { what: 'the near-miss title' });
    expect(first.state).toBe('idle');
    // Another session still runs and echoes meanwhile.
    const shell = await host.spawnShell('other');
    await c.request('sessions.send', { id: shell, text: 'echo still-$((6*7))', enter: true });
    await waitFor(
      async () => {
        const r = await c.request('sessions.read', { id: shell });
        return r.ok && r.result.lines.some((l) => l.includes('still-42'));
      },
      { what: 'the other session to echo' },
    );
    // The rule still classifies: a matching title makes the agent working.
    await c.request('sessions.send', { id, text: '', enter: true });
    const working = await waitFor(async () => ((await info())?.state === 'working' ? await info() : null), { what: 'the matching title to count as working' });
    expect(working.stateWhy).toContain('^(a|a)+$');
  });
});
