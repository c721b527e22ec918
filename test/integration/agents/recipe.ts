// What the release matrix (test/integration/agents/matrixRunner.ts) needs to know about one agent
// CLI from npm to run it for real, offline: how to install it, what a returning user has on disk
// (login, onboarding, trusted folder) pointed at the loopback model server, and what the agent is
// expected to report on each path. One file per agent in ./recipes; the matrix runs every recipe
// on the newest two releases npm has, and the host tests that run one real CLI set it up with the
// same recipe. Everything here was measured on the real CLI: a recipe's comment says which
// release and what was seen. Below, the pieces several recipes share.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ModelStep } from '../../helpers/modelScript';

/** The API key recipes sign in with where the CLI wants one that looks real (the loopback model
 *  server takes any). */
export const LOOPBACK_API_KEY = 'sk-termio-test-0123456789abcdefghij';

/** The config of an OpenCode-style CLI (OpenCode, its fork Kilo Code) as such a user has it:
 *  updates and sharing off, bash set to ask, and one model, `loopback/m`, of a custom provider
 *  through the AI SDK package `sdk` (bundled in the binary) on the loopback model server. `extra`
 *  adds to it. */
export function writeOpenCodeConfig(file: string, sdk: string, modelUrl: string, extra: Record<string, unknown> = {}): void {
  const config = {
    autoupdate: false,
    share: 'disabled',
    permission: { bash: 'ask' },
    provider: {
      loopback: {
        npm: sdk,
        name: 'Termio loopback',
        options: { baseURL: `${modelUrl}/v1`, apiKey: LOOPBACK_API_KEY },
        models: { m: { name: 'Loopback model' } },
      },
    },
    model: 'loopback/m',
    ...extra,
  };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config, null, 2));
}

export interface RecipeSetup {
  /** The throwaway HOME the agent runs in (realpath). */
  home: string;
  /** The project folder the session starts in (inside home, not a git repository). */
  project: string;
  /** The loopback model server's origin, e.g. http://127.0.0.1:41234 (no path). */
  modelUrl: string;
  /** The installed CLI's executable. */
  cli: string;
  /** The release under test, e.g. "0.24.4". */
  version: string;
}

export interface AgentRecipe {
  /** The bundled manifest's id (agents/<id>.json). */
  id: string;
  /** The npm package that installs the CLI. */
  pkg: string;
  /** Executables under the install prefix to try in order (the npm bin link first, then a
   *  platform package's binary for when npm skipped the postinstall that links it). */
  candidates: string[];
  /** Extra packages installed beside it at the same prefix (a platform package the shim's own
   *  dependency range misses, for one). `{version}` is replaced by the release under test. */
  extraPackages?: string[];
  /** Writes what a returning user has (onboarding done, login or API key, this folder trusted,
   *  self-update off) pointing at the model server; returns the session's environment. */
  prepare(s: RecipeSetup): Record<string, string>;
  /** The turn that runs the agent's shell tool on a command that needs permission. null: the
   *  agent asks nothing (it runs tools without asking by design, or approves by default). */
  question: null | {
    /** The choice `termio sessions answer` gives to allow it once (a number, label or key). */
    allow: string;
    /** A line of the question as Termio reads it (hook payload or screen), e.g. "touch probe.txt". */
    mentions?: RegExp;
    /** The agent draws no menu Termio reads off the screen (OpenCode's row of buttons): answer once
     *  its hook brought the question. Otherwise the answer waits for the menu on screen, as keys
     *  sent before the TUI draws it go to its prompt instead. */
    hookOnly?: true;
  };
  /** Hook events expected on each path (exact names, as `termio sessions why` shows them; for
   *  statusChannel 'screen', the manifest's screen rules, as its `rule` shows them).
   *  working: the first event of a turn; attention: the permission question; done: the end of a
   *  turn that completed; failed: the end of a turn that ended in the scripted error. */
  events: {
    working: string;
    attention?: string;
    done: string;
    /** null: no hook fires at all on a failed turn (failureUnreported says what was measured). */
    failed: string | null;
  };
  /** Where `events` are read (default 'hooks'). 'progress': an agent with no hooks whose status
   *  comes from its OSC 9;4 progress (manifest `progressStatus`); `events` are then the events
   *  `termio sessions why` names on that channel ("0%" while an indeterminate report is active,
   *  "cleared" when it ends), a failed turn ends done like any other, and `failureReason` is
   *  matched on the screen, as no reason reaches Termio. 'screen': an agent with no hooks whose
   *  status comes from its manifest's screen rules (`status`); `events` are the rules' sources
   *  (the done event "no rule matches"), and the failed turn is attention with the reason its
   *  `failureScreen` pattern reads (events.failed: that pattern). */
  statusChannel?: 'hooks' | 'progress' | 'screen';
  /** The model server's answer that ends a turn in failure for this agent without retries
   *  (most agents retry a 429 or a 5xx on their own for minutes: a 400 or 401 ends at once). */
  failure: ModelStep;
  /** The reason the failed turn is shown with ("API error 401", …), matched in `sessions why`. */
  failureReason: RegExp;
  /** Set when the agent ends a failed turn with the same event and an equally silent payload as a
   *  completed one, so no hook can tell Termio it failed: what was measured. The matrix then
   *  expects the failed turn to end `done` (events.failed) rather than attention with a reason;
   *  with events.failed null, the error on screen (failureReason) and no hook since. */
  failureUnreported?: string;
  /** How its conversation is resumed after a relaunch: the manifest's family. 'none' when the CLI
   *  cannot resume by id (the matrix then checks that a relaunch starts fresh). */
  resume: 'pinned' | 'discovered' | 'none';
  /** A string the relaunched agent shows once the earlier conversation is back on screen. */
  resumedShows?: RegExp;
  /** Dialogs a first launch shows before the prompt that prepare() cannot pre-answer: keys the
   *  matrix types, in order, each once the screen matches. */
  startup?: Array<{ screen: RegExp; keys: string }>;
  /** Releases known broken on npm itself (a shim whose platform package is missing), with why. */
  brokenOnNpm?: Record<string, string>;
}
