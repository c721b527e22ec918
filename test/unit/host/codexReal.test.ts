// The real Codex CLI from npm in a real pty Session: `termio hooks install` (the real installer)
// writes our entries to ~/.codex/hooks.json and records Codex's trust in them in config.toml, so
// Codex starts straight to its prompt with no "Hooks need review" step, and typing a prompt fires
// its UserPromptSubmit hook through the real reporter: the session reports working. Signed in
// with `codex login --with-api-key` and a dummy key, Codex reaches its prompt offline. Uninstall
// leaves config.toml as it was. Skips with the reason when the CLI cannot be installed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentHookStatus, defaultReporterLocation, installAgentHooks, uninstallAgentHooks } from '../../../src/app/services/hookInstaller';
import { HookServer } from '../../../src/app/host/status/hookServer';
import { termioPaths } from '../../../src/app/services/paths';
import { StatusTracker } from '../../../src/app/host/status/statusTracker';
import type { HookReport } from '../../../src/protocol/hookReport';
import { parseManifest } from '../../../src/protocol/manifestParse';
import { Session } from '../../../src/terminal/node';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, ensureCodex, type AgentCli } from '../../helpers/agentCli';
import { waitFor } from '../../helpers/waitFor';
import { SessionSecrets } from '../../helpers/sessionSecrets';
import { startHookRig, type HookRig } from '../../helpers/hookRig';
import { endProcessesWithHome, processesWithHome } from '../../helpers/processes';

/** Codex shows its prompt within ~2 s here; 30 s covers a loaded CI box. */
const START_TIMEOUT_MS = 30_000;

const manifestFile = join(__dirname, '..', '..', '..', 'agents', 'codex.json');
const parsed = parseManifest(readFileSync(manifestFile, 'utf8'), manifestFile);
if (!parsed.manifest?.hooks) throw new Error(`agents/codex.json did not load: ${parsed.errors.join('; ')}`);
const agent = { agentId: parsed.manifest.id, hooks: parsed.manifest.hooks };

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };
let home: string;
let server: HookServer;
let tracker: StatusTracker;
let secrets: SessionSecrets;
let session: Session | null = null;
let rig: HookRig | undefined;

beforeAll(async () => {
  cli = await ensureCodex();
  if (cli.ok) console.log(`real Codex: ${cli.version} (${cli.path})`);
  else console.warn(`skipping the real Codex test: ${cli.reason}`);
}, AGENT_CLI_INSTALL_TIMEOUT_MS + 15_000);

beforeEach(async (ctx) => {
  if (!cli.ok) ctx.skip(`the real Codex CLI is not available: ${cli.reason}`);
  // The real path: the CLI reports its cwd resolved (macOS's /var is a symlink to /private/var).
  rig = await startHookRig('termio-codex-real-');
  ({ home, tracker, secrets, server } = rig);
});

afterEach(async () => {
  session = null;
  // Codex starts an app-server daemon beside its TUI that outlives it: end what runs under this HOME.
  const h = rig?.home;
  await rig?.close();
  if (h) {
    await endProcessesWithHome(h);
    expect(processesWithHome(h)).toEqual([]);
  }
});

describe('the real Codex CLI in a Termio session', () => {
  it(
    'runs our hooks without a review step once termio hooks install has recorded their trust',
    async () => {
      if (!cli.ok) throw new Error(cli.reason);
      const env = { HOME: home, PATH: process.env.PATH ?? '' };
      const login = spawnSync(cli.path, ['login', '--with-api-key'], { input: 'sk-dummy-key-for-tests\n', encoding: 'utf8', env });
      expect(login.status).toBe(0);
      const configFile = join(home, '.codex', 'config.toml');
      const configBefore = existsSync(configFile) ? readFileSync(configFile, 'utf8') : null;

      const opts = { paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), home, reporter: defaultReporterLocation() };
      const installed = installAgentHooks(agent, opts);
      expect(installed).toMatchObject({ state: 'installed', file: join(home, '.codex', 'hooks.json'), trust: { state: 'recorded', file: configFile } });
      expect(installed.note).toBeUndefined();
      expect(agentHookStatus(agent, opts)).toMatchObject({ state: 'installed', trust: { state: 'recorded' } });

      const project = join(home, 'project');
      mkdirSync(project);
      const reports: HookReport[] = [];
      server.onReport((r) => reports.push(r));
      const minted = secrets.mint();
      const started = Session.spawn({
        id: minted.id,
        argv: ['env', '-u', 'CODEX_HOME', '-u', 'OPENAI_API_KEY', cli.path],
        cwd: project,
        env: { HOME: home, TERMIO_HOME: join(home, '.termio'), ...server.sessionEnv(), ...minted.env },
      });
      if (!(started instanceof Session)) throw new Error(started.message);
      session = rig!.own(started, 'codex');
      const s = session;
      tracker.track(s, agent);
      const screen = () => s.screenLines().join('\n');
      await waitFor(() => /Ask Codex|Hooks need review/.test(screen()), { what: `Codex's prompt (screen: ${screen()})`, timeout: START_TIMEOUT_MS });
      expect(screen()).not.toMatch(/Hooks need review|won't run/);

      s.write('list the files here');
      await waitFor(() => screen().includes('list the files here'), { what: 'the typed prompt on screen', timeout: START_TIMEOUT_MS });
      s.write('\r');
      const submitted = await waitFor(() => reports.find((r) => r.event === 'UserPromptSubmit'), {
        what: 'the UserPromptSubmit hook',
        timeout: START_TIMEOUT_MS,
      });
      expect(submitted).toMatchObject({ session: s.id, agent: 'codex', state: 'working' });
      expect(JSON.parse(submitted.payload)).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'list the files here' });
      expect(tracker.status(s.id)?.why).toMatchObject({ channel: 'hooks' });

      expect(uninstallAgentHooks(agent, opts)).toMatchObject({ state: 'absent' });
      expect(existsSync(configFile) ? readFileSync(configFile, 'utf8') : null).toBe(configBefore);
    },
    4 * START_TIMEOUT_MS,
  );
});
