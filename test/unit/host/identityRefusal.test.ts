// The bundled Grok manifest against the real host process and the built `termio` CLI: with npm's
// other `grok` on PATH (it answers `--version` with a bare "1.0.1" and refuses every flag the
// manifest passes), `termio sessions spawn --agent grok` is refused, saying what was found, and no
// tab is made; once a program that answers as Grok Build does is there instead, the same spawn
// starts it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { HostProcess } from '../../../src/app/host/hostProcess';
import { termio } from '../../helpers/controlHost';
import { makeHostHome, startLoggedHost } from '../../helpers/loggedHost';
import { writeFake } from '../../helpers/fakeOnPath';

let home: string;
let proj: string;
let bin: string;
let host: HostProcess;
let env: NodeJS.ProcessEnv;
let logs: string[];

beforeEach(async () => {
  ({ home, proj, bin, env } = makeHostHome('termio-identity-host-'));
  ({ host, logs } = await startLoggedHost(env));
});

afterEach(async () => {
  await host.stop('test over');
  rmSync(home, { recursive: true, force: true });
});

it('refuses to start another program named grok, saying what it found, and starts Grok Build once it is there', async () => {
  // What `npm install -g @vibe-kit/grok-cli` puts on PATH, as far as Termio can see: each run logged.
  const grok = join(bin, 'grok');
  writeFileSync(
    grok,
    `#!/bin/sh\necho "$*" >> "${grok}.runs"\n[ "$1" = --version ] && { echo 1.0.1; exit 0; }\necho "error: unknown option '$1'" >&2\nexit 1\n`,
    { mode: 0o755 },
  );
  const refused = await termio(['sessions', 'spawn', '--agent', 'grok', '--cwd', proj], env, proj);
  expect(refused.status, refused.stdout).toBe(1);
  expect(refused.stderr).toContain(
    `Grok is not started: ${grok} is another program named grok (it answered "1.0.1" to --version); Grok installs from https://x.ai/cli`,
  );
  expect(host.registry.list()).toHaveLength(0);
  // It was asked what it is, and never launched.
  expect(readFileSync(`${grok}.runs`, 'utf8')).toBe('--version\n');

  // Grok Build installed over it: asked again (another file), and started.
  writeFake(bin, 'grok', 'fake-agent.mjs', 'grok');
  const started = await termio(['sessions', 'spawn', '--agent', 'grok', '--cwd', proj], env, proj);
  expect(started.status, `${started.stderr}\n${logs.join('\n')}`).toBe(0);
  expect(host.registry.list().map((r) => r.agentId)).toEqual(['grok']);
}, 60_000);
