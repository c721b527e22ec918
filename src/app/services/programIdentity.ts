// Knowing the program before trusting it: a command name says little (the `grok` npm installs is
// not xAI's Grok Build), so a manifest's `identify` names the arguments that make the program say
// what it is and a pattern its answer must match. The answer is asked once per program file as it
// is now (path, size and modified time), off the caller's loop, bounded in time and in output,
// and kept in $TERMIO_HOME/state/program-answers.json for the next process.
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { commandLineProgram } from '../../protocol/commandLine';
import { compileManifestPattern } from '../../protocol/manifestParse';
import type { Manifest, ManifestIdentify } from '../../protocol/manifestSchema';
import { writeFileAtomic } from './atomicWrite';

/** `--version` of a healthy CLI answers in well under a second, but a Node CLI's `--help` on a
 *  busy machine was seen taking 9 s. Past this the program is given up on (and its group ended);
 *  nobody waits this long for it (a session starting waits less), and an answer is asked once. */
export const IDENTIFY_TIMEOUT_MS = 20_000;
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

/** Ends a child started detached, with its whole process group; nothing when it is gone. */
function endProcessGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Collects the first IDENTIFY_MAX_BYTES of a child's stdout and stderr, escapes stripped;
 *  `full` runs once that much has come. Returns what has come so far, as text. */
function collectOutput(child: ChildProcessByStdio<null, Readable, Readable>, full: () => void): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  const text = () => Buffer.concat(chunks).subarray(0, IDENTIFY_MAX_BYTES).toString('utf8').replace(ESCAPES, '');
  const take = (d: Buffer) => {
    if (size >= IDENTIFY_MAX_BYTES) return;
    chunks.push(d);
    size += d.length;
    if (size >= IDENTIFY_MAX_BYTES) full();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return text;
}

/** Runs program with args (no shell, stdin closed, in its own process group) and collects the first
 *  IDENTIFY_MAX_BYTES of stdout and stderr; the exit status does not matter, the words do. An
 *  aborted signal ends it at once (its owner is closing). */
export function askProgram(
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = IDENTIFY_TIMEOUT_MS,
  signal?: AbortSignal,
): Promise<ProgramAnswer> {
  return new Promise((resolve) => {
    const stopped: ProgramAnswer = { ok: false, reason: 'it was not asked to the end (Termio was closing)' };
    if (signal?.aborted) {
      resolve(stopped);
      return;
    }
    let child;
    try {
      child = spawn(program, args, { env, cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      resolve({ ok: false, reason: `could not run it: ${(err as Error).message}` });
      return;
    }
    let outcome: ProgramAnswer | null = null;
    const endGroup = () => endProcessGroup(child);
    const text = collectOutput(child, () => {
      outcome = { ok: true, text: text() };
      endGroup();
    });
    const timer = setTimeout(() => {
      outcome ??= { ok: false, reason: `it did not answer within ${timeoutMs / 1000} s` };
      endGroup();
    }, timeoutMs);
    const abort = () => {
      outcome ??= stopped;
      endGroup();
    };
    signal?.addEventListener('abort', abort, { once: true });
    const done = (answer: ProgramAnswer) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(answer);
    };
    child.on('error', (err) => done(outcome ?? { ok: false, reason: `could not run it: ${err.message}` }));
    child.on('close', () => {
      // Whatever the program left running in its group is ended with it.
      endGroup();
      done(outcome ?? { ok: true, text: text() });
    });
  });
}

export interface Asked {
  promise: Promise<ProgramAnswer>;
  /** Set once the program answered. */
  answer?: ProgramAnswer;
  /** Someone waits for this one (a session is starting): ask it before the others still waiting. */
  hurry(): void;
}

/** What a program answered, saved with the file as it was: path, args, size and modified time. */
interface SavedAnswer {
  size: number;
  mtimeMs: number;
  text: string;
}

/**
 * Answers by program file as it is now: a reinstalled or updated program is asked again. With a
 * file, answers are kept there too, so the host, the app and each `termio agents list` ask a
 * program once between them, not once each. Only answers are kept: a program that could not be
 * run or timed out is asked again next time.
 */
export class ProgramAnswers {
  private readonly asked = new Map<string, Asked>();
  private saved: Record<string, SavedAnswer> | null = null;
  private running = 0;
  private readonly queue: { key: string; start: () => void }[] = [];
  private readonly closing = new AbortController();

  constructor(
    private readonly file?: string,
    private readonly ask: typeof askProgram = askProgram,
  ) {}

  /** The answer of program to args: settled (answer set) when it was asked before, else being asked. */
  get(program: string, args: readonly string[], env: NodeJS.ProcessEnv): Asked {
    let st;
    try {
      st = statSync(program);
    } catch (err) {
      const answer: ProgramAnswer = { ok: false, reason: `cannot read it: ${(err as Error).message}` };
      return { promise: Promise.resolve(answer), answer, hurry: () => undefined };
    }
    const name = [program, ...args].join('\0');
    const key = [name, st.size, st.mtimeMs].join('\0');
    let asked = this.asked.get(key);
    if (asked) return asked;
    const saved = this.savedAnswers()[name];
    if (saved?.size === st.size && saved.mtimeMs === st.mtimeMs) {
      const answer: ProgramAnswer = { ok: true, text: saved.text };
      asked = { promise: Promise.resolve(answer), answer, hurry: () => undefined };
    } else {
      const entry: Asked = {
        promise: this.inTurn(key, () => this.ask(program, args, env, IDENTIFY_TIMEOUT_MS, this.closing.signal)).then((answer) => {
          entry.answer = answer;
          if (answer.ok) this.save(name, { size: st.size, mtimeMs: st.mtimeMs, text: answer.text });
          return answer;
        }),
        hurry: () => {
          const i = this.queue.findIndex((q) => q.key === key);
          if (i > 0) this.queue.unshift(...this.queue.splice(i, 1));
        },
      };
      asked = entry;
    }
    this.asked.set(key, asked);
    return asked;
  }

  /** Ends every program being asked, and asks no more: their answers come at once, unanswered. */
  close(): void {
    this.closing.abort();
  }

  /** Runs job once fewer than MAX_ASKING others run; a job that ends hands its turn to the next. */
  private async inTurn<T>(key: string, job: () => Promise<T>): Promise<T> {
    if (this.running < MAX_ASKING) this.running++;
    else await new Promise<void>((start) => this.queue.push({ key, start }));
    try {
      return await job();
    } finally {
      const next = this.queue.shift();
      if (next) next.start();
      else this.running--;
    }
  }

  /** The file's answers (read once; a missing or unreadable file is none). */
  private savedAnswers(): Record<string, SavedAnswer> {
    this.saved ??= this.file ? readSaved(this.file) : {};
    return this.saved;
  }

  /** Adds one answer to the file, over what other processes saved since (the last writer wins a race; the loser only asks again). */
  private save(name: string, answer: SavedAnswer): void {
    this.savedAnswers()[name] = answer;
    if (!this.file) return;
    try {
      const all = { ...readSaved(this.file), [name]: answer };
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileAtomic(this.file, `${JSON.stringify(all, null, 1)}\n`, { durable: false });
    } catch {
      // Not kept: asked again next time.
    }
  }
}

function readSaved(file: string): Record<string, SavedAnswer> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed as Record<string, Partial<SavedAnswer>>).filter(
        (e): e is [string, SavedAnswer] => typeof e[1]?.size === 'number' && typeof e[1].mtimeMs === 'number' && typeof e[1].text === 'string',
      ),
    );
  } catch {
    return {};
  }
}

/** What a program's answer says about it under a manifest's rule. */
export function identityOf(rule: ManifestIdentify, answer: ProgramAnswer | undefined): ProgramIdentity {
  if (!answer) return { state: 'checking' };
  if (!answer.ok) return { state: 'unanswered', reason: answer.reason };
  // Messages quote the first lines, which say the program's name.
  const said = firstLines(answer.text);
  // The whole answer is matched (it is bounded: IDENTIFY_MAX_BYTES); the manifest was checked on load, so the pattern compiles.
  return compileManifestPattern(rule.match).testAll(answer.text) ? { state: 'matched', answer: said } : { state: 'other', answer: said };
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

/** What unavailableNote says of a command that is not on PATH. */
export const NOT_INSTALLED = 'not installed';

/** How the picker, Settings, the tray and `termio agents list` say why an agent cannot start, or
 *  null when it can: its command is not on PATH, or the program there is another one. */
export function unavailableNote(e: { installed: boolean; identity: ProgramIdentity; manifest: Pick<Manifest, 'command' | 'id'> }): string | null {
  if (e.identity.state === 'other') return `another program named ${programName(e.manifest)}`;
  return e.installed ? null : NOT_INSTALLED;
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
