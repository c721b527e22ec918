// The real Claude Code CLI from npm (its newest release) in a real pty Session: with
// our hooks installed by the real installer into a temporary HOME, starting `claude` delivers
// its SessionStart hook through the real reporter to a real HookServer, the StatusTracker binds
// the conversation id, and the CLI's own "✳ Claude Code" title arrives through session.onTitle.
// No network is needed: writeClaudeUser marks onboarding done and the folder trusted (without it
// the CLI checks api.anthropic.com, prints "Unable to connect to Anthropic services" and exits 1
// before any hook runs). Self-updates are switched off: one would `npm install -g` on this machine.
// Skips with the reason when the CLI cannot be installed (no registry), and fails instead where CI is set.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultReporterLocation, installAgentHooks } from '../../../src/app/services/hookInstaller';
import { HookServer } from '../../../src/app/host/status/hookServer';
import { termioPaths } from '../../../src/app/services/paths';
import { StatusTracker, type ConversationChange } from '../../../src/app/host/status/statusTracker';
import type { HookReport } from '../../../src/protocol/hookReport';
import { parseManifest } from '../../../src/protocol/manifestParse';
import { Session } from '../../../src/terminal/node';
import { AGENT_CLI_INSTALL_TIMEOUT_MS, type AgentCli } from '../../helpers/agentCli';
import { SessionSecrets } from '../../helpers/sessionSecrets';
import { waitFor } from '../../helpers/waitFor';
import { startHookRig, type HookRig } from '../../helpers/hookRig';
import { CLAUDE_ENV, ensureNewestClaude, writeClaudeUser } from '../../integration/agents/recipes/claude';

/** The CLI shows its prompt and fires SessionStart within ~1 s here; 20 s covers a loaded CI box. */
const START_TIMEOUT_MS = 20_000;

const manifestFile = join(__dirname, '..', '..', '..', 'agents', 'claude.json');
const parsed = parseManifest(readFileSync(manifestFile, 'utf8'), manifestFile);
if (!parsed.manifest?.hooks) throw new Error(`agents/claude.json did not load: ${parsed.errors.join('; ')}`);
const manifest = parsed.manifest;
// The manifest exactly as shipped: binding rests on its SessionStart event, so losing it fails here.
const agent = { agentId: manifest.id, hooks: parsed.manifest.hooks, ...(manifest.titleStatus ? { titleStatus: manifest.titleStatus } : {}) };

let cli: AgentCli = { ok: false, reason: 'not looked for yet' };
let home: string;
let server: HookServer;
let tracker: StatusTracker;
let secrets: SessionSecrets;
let session: Session | null = null;
let rig: HookRig | undefined;

beforeAll(async () => {
  cli = await ensureNewestClaude();
  if (cli.ok) console.log(`real Claude Code: ${cli.version} (${cli.path})`);
  else console.warn(`skipping the real Claude Code test: ${cli.reason}`);
}, AGENT_CLI_INSTALL_TIMEOUT_MS + 15_000);

beforeEach(async (ctx) => {
  if (!cli.ok) ctx.skip(`the real Claude Code CLI is not available: ${cli.reason}`);
  // The real path: the CLI reports its cwd resolved (macOS's /var is a symlink to /private/var).
  rig = await startHookRig('termio-claude-real-');
  ({ home, tracker, secrets, server } = rig);
});

afterEach(async () => {
  session = null;
  await rig?.close();
});

describe('the real Claude Code CLI in a Termio session', () => {
  it(
    'delivers SessionStart through our installed hook, binds the conversation id, and sets the ✳ Claude Code title',
    async () => {
      if (!cli.ok) throw new Error(cli.reason);
      expect(agent.hooks.events).toContainEqual(expect.objectContaining({ on: 'SessionStart', state: 'idle' }));
      const project = join(home, 'project');
      mkdirSync(project);
      // Onboarding done and this folder trusted: what a user who has run claude before has.
      writeClaudeUser(home, { trusted: [project] });
      const installed = installAgentHooks(agent, { paths: termioPaths({ TERMIO_HOME: join(home, '.termio') }), home, reporter: defaultReporterLocation() });
      expect(installed).toMatchObject({ state: 'installed', file: join(home, '.claude', 'settings.json') });

      const reports: HookReport[] = [];
      server.onReport((r) => reports.push(r));
      const conversations: ConversationChange[] = [];
      tracker.onConversation((c) => conversations.push(c));
      const titles: string[] = [];
      // `env -u` drops variables a developer's or CI's environment may carry that would point the
      // CLI at another config folder or an API key prompt; it execs claude in place (same pid).
      const minted = secrets.mint();
      const started = Session.spawn({
        id: minted.id,
        argv: ['env', '-u', 'CLAUDE_CONFIG_DIR', '-u', 'ANTHROPIC_API_KEY', '-u', 'ANTHROPIC_AUTH_TOKEN', cli.path],
        cwd: project,
        env: {
          HOME: home,
          TERMIO_HOME: join(home, '.termio'),
          ...server.sessionEnv(),
          ...minted.env,
          ...CLAUDE_ENV,
        },
      });
      if (!(started instanceof Session)) throw new Error(started.message);
      session = rig!.own(started, 'claude');
      session.onTitle((t) => titles.push(t));
      tracker.track(session, agent);

      const bound = await waitFor(() => conversations[0], { what: 'SessionStart to bind a conversation', timeout: START_TIMEOUT_MS });
      expect(bound).toMatchObject({ sessionId: session.id, previous: null });
      expect(bound.conversationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      // Claude's store: ~/.claude/projects/<cwd with / and . as ->/<id>.jsonl
      expect(bound.transcriptPath).toBe(join(home, '.claude', 'projects', project.replace(/[/.]/g, '-'), `${bound.conversationId}.jsonl`));

      const start = reports.find((r) => r.event === 'SessionStart');
      expect(start).toMatchObject({ session: session.id, agent: 'claude', state: 'idle', truncated: false });
      expect(JSON.parse(start!.payload)).toMatchObject({ session_id: bound.conversationId, cwd: project, hook_event_name: 'SessionStart', source: 'startup' });

      await waitFor(() => titles.includes('✳ Claude Code'), {
        what: `the ✳ Claude Code title (titles so far: ${JSON.stringify(titles)})`,
        timeout: START_TIMEOUT_MS,
      });
      expect(session.title).toBe('✳ Claude Code');
      expect(tracker.status(session.id)).toMatchObject({ state: 'idle' });
      expect(session.exited).toBeNull();
      // Self-updates stayed off (one would have run `npm install -g` on this machine).
      expect(existsSync(join(home, '.claude', '.last-update-result.json'))).toBe(false);
    },
    2 * START_TIMEOUT_MS,
  );
});
