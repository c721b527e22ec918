// Knowing the program before trusting it: a command name says little (the `grok` npm installs is
// not xAI's Grok Build), so a manifest's `identify` names the arguments that make the program say
// what it is and a pattern its answer must match. The answer is asked once per program file as it
// is now (path, size and modified time), off the caller's loop, bounded in time and in output.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { commandLineProgram } from '../../protocol/commandLine';
import { compileManifestPattern } from '../../protocol/manifestParse';
import type { Manifest, ManifestIdentify } from '../../protocol/manifestSchema';

/** `--version` of a healthy CLI answers in well under a second; a cold start of a large binary on
 *  a busy machine may take several. Past this the program is given up on (and its group ended). */
export const IDENTIFY_TIMEOUT_MS = 10_000;
/** Enough for any version line or the top of a help text; more is not read (the program is ended). */
export const IDENTIFY_MAX_BYTES = 16 * 1024;
/** Programs asked at once: a catalog asks every installed agent as it loads, and a machine with a
 *  dozen Node CLIs should not start them all together. */
const MAX_ASKING = 2;
/** What identify runs when the manifest names no arguments. */
export const DEFAULT_IDENTIFY_ARGS: readonly string[] = ['--version'];

/** What a program said: its stdout and stderr as they came (escape sequences removed), or why it said nothing. */
export type ProgramAnswer = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Whether a resolved command is the program its manifest means:
 * - unchecked: nothing to check (no `identify`, not installed, or the login shell);
 * - checking: the program was asked and has not answered yet;
 * - matched / other: its answer matches `identify.match`, or does not (another program of that name);
 * - unanswered: it could not be asked or gave no answer in time (launched as before, not refused).
 */
export type ProgramIdentity =
  | { state: 'unchecked' }
  | { state: 'checking' }
  | { state: 'matched'; answer: string }
  | { state: 'other'; answer: string }
  | { state: 'unanswered'; reason: string };

/** CSI and OSC sequences some CLIs colour their version line with. */
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** Runs program with args (no shell, stdin closed, in its own process group) and collects the first
 *  IDENTIFY_MAX_BYTES of stdout and stderr; the exit status does not matter, the words do. */
export function askProgram(program: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = IDENTIFY_TIMEOUT_MS): Promise<ProgramAnswer> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, args, { env, cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      resolve({ ok: false, reason: `could not run it: ${(err as Error).message}` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let outcome: ProgramAnswer | null = null;
    const endGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const text = () => Buffer.concat(chunks).subarray(0, IDENTIFY_MAX_BYTES).toString('utf8').replace(ESCAPES, '');
    const take = (d: Buffer) => {
      if (size >= IDENTIFY_MAX_BYTES) return;
      chunks.push(d);
      size += d.length;
      if (size >= IDENTIFY_MAX_BYTES) {
        outcome = { ok: true, text: text() };
        endGroup();
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      outcome ??= { ok: false, reason: `it did not answer within ${timeoutMs / 1000} s` };
      endGroup();
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve(outcome ?? { ok: false, reason: `could not run it: ${err.message}` });
    });
    child.on('close', () => {
      clearTimeout(timer);
      // A helper the program left behind with our pipes open is not waited for.
      endGroup();
      resolve(outcome ?? { ok: true, text: text() });
    });
  });
}

interface Asked {
  promise: Promise<ProgramAnswer>;
  /** Set once the program answered. */
  answer?: ProgramAnswer;
}

/** Answers by program file as it is now: a reinstalled or updated program is asked again. */
export class ProgramAnswers {
  private readonly asked = new Map<string, Asked>();
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly ask: typeof askProgram = askProgram) {}

  /** The answer of program to args: settled (answer set) when it was asked before, else being asked. */
  get(program: string, args: readonly string[], env: NodeJS.ProcessEnv): Asked {
    let key: string;
    try {
      const st = statSync(program);
      key = [program, st.size, st.mtimeMs, ...args].join('\0');
    } catch (err) {
      const answer: ProgramAnswer = { ok: false, reason: `cannot read it: ${(err as Error).message}` };
      return { promise: Promise.resolve(answer), answer };
    }
    let asked = this.asked.get(key);
    if (!asked) {
      const entry: Asked = {
        promise: this.inTurn(() => this.ask(program, args, env)).then((answer) => {
          entry.answer = answer;
          return answer;
        }),
      };
      asked = entry;
      this.asked.set(key, asked);
    }
    return asked;
  }

  /** Runs job once fewer than MAX_ASKING others run; a job that ends hands its turn to the next. */
  private async inTurn<T>(job: () => Promise<T>): Promise<T> {
    if (this.running < MAX_ASKING) this.running++;
    else await new Promise<void>((r) => this.queue.push(r));
    try {
      return await job();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** What a program's answer says about it under a manifest's rule. */
export function identityOf(rule: ManifestIdentify, answer: ProgramAnswer | undefined): ProgramIdentity {
  if (!answer) return { state: 'checking' };
  if (!answer.ok) return { state: 'unanswered', reason: answer.reason };
  // The manifest was checked on load, so the pattern compiles.
  const said = firstLines(answer.text);
  return compileManifestPattern(rule.match).test(answer.text) ? { state: 'matched', answer: said } : { state: 'other', answer: said };
}

/** The arguments identify passes. */
export function identifyArgs(rule: ManifestIdentify): readonly string[] {
  return rule.args ?? DEFAULT_IDENTIFY_ARGS;
}

/** The program name a manifest's command runs, as messages name it ("grok"). */
export function programName(m: Pick<Manifest, 'command' | 'id'>): string {
  const program = m.command !== undefined ? (commandLineProgram(m.command) ?? m.command) : m.id;
  return basename(program);
}

/** How the picker, Settings, the tray and `termio agents list` say why an agent cannot start, or
 *  null when it can: its command is not on PATH, or the program there is another one. */
export function unavailableNote(e: { installed: boolean; identity: ProgramIdentity; manifest: Pick<Manifest, 'command' | 'id'> }): string | null {
  if (e.identity.state === 'other') return `another program named ${programName(e.manifest)}`;
  return e.installed ? null : 'not installed';
}

/** An answer as messages quote it: its first non-empty lines, one line, cut short. */
function firstLines(text: string): string {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 2)
    .join(' | ');
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
