// Who sent a hook report (src/protocol/hookOrigin.ts), on the ancestor chains real launches give.
import { describe, expect, it } from 'vitest';
import { hookOrigin } from '../../../src/protocol/hookOrigin';

const ROOT = 100;
type Chain = ReadonlyArray<readonly [number, string]>;
const chain = (c: Chain): Array<[number, string]> => [...c.map(([p, n]) => [p, n] as [number, string]), [1, 'systemd']];

describe('hookOrigin', () => {
  it.each([
    ['the agent runs the hook itself', [[ROOT, 'node']], ROOT],
    [
      'through sh -c',
      [
        [201, 'sh'],
        [ROOT, 'claude'],
      ],
      ROOT,
    ],
    [
      'through a login bash that forks, then sh',
      [
        [202, 'sh'],
        [201, 'bash'],
        [ROOT, 'node'],
      ],
      ROOT,
    ],
    [
      "npm's codex.js spawning the native binary, which runs the hook",
      [
        [201, 'sh'],
        [150, 'codex'],
        [ROOT, 'node'],
      ],
      150,
    ],
    [
      'a wrapper script that does not exec, then a node launcher',
      [
        [201, 'sh'],
        [151, 'codex'],
        [150, 'node'],
        [ROOT, 'sh'],
      ],
      151,
    ],
  ] as const)('the first report names the runner: %s', (_name, c, runner) => {
    expect(hookOrigin(chain(c), ROOT)).toEqual({ kind: 'agent', runner });
    // And the same runner is the agent from then on.
    expect(hookOrigin(chain(c), ROOT, runner)).toEqual({ kind: 'agent', runner });
  });

  it.each([
    [
      "claude -p from the agent's Bash tool (bash stays)",
      [
        [301, 'sh'],
        [300, 'node'],
        [250, 'bash'],
        [ROOT, 'node'],
      ],
      ROOT,
      300,
    ],
    [
      "claude -p from a tool whose bash exec'd it",
      [
        [301, 'sh'],
        [300, 'node'],
        [ROOT, 'node'],
      ],
      ROOT,
      300,
    ],
    [
      'a nested codex through its npm launcher',
      [
        [302, 'sh'],
        [301, 'codex'],
        [300, 'node'],
        [250, 'zsh'],
        [150, 'codex'],
        [ROOT, 'node'],
      ],
      150,
      301,
    ],
  ] as const)('nested once the agent is known: %s', (_name, c, agentRunner, nested) => {
    expect(hookOrigin(chain(c), ROOT, agentRunner)).toMatchObject({ kind: 'nested', pid: nested });
  });

  it('outside: a chain that never reaches the session (a detached daemon, another terminal), or none at all', () => {
    expect(
      hookOrigin(
        chain([
          [401, 'sh'],
          [400, 'codex'],
        ]),
        ROOT,
      ),
    ).toEqual({ kind: 'outside' });
    expect(hookOrigin([], ROOT, ROOT)).toEqual({ kind: 'outside' });
  });
});
