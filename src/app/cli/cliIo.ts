// What every termio command shares: its exit codes (part of the interface: scripts and tests rely
// on them), the streams and environment it runs with, and the shape of a command group's entry.
// Its own module so command groups import it without pulling in main.ts, which loads them.
import { parseArgs, type ParseArgsConfig } from 'node:util';
export const ExitCode = {
  /** Done; for a wait: the session settled. */
  ok: 0,
  /** An error (the app refused, no such session, ...) or a check failed (`termio agents validate`). */
  failed: 1,
  /** Bad usage: unknown verb, missing argument, bad option. */
  usage: 2,
  /** A wait ran out of time (--timeout). */
  timeout: 3,
  /** The Termio host is not running (no control socket answers). */
  hostNotRunning: 4,
  /** A wait ended because the session needs you (a permission prompt, a question). */
  needsYou: 5,
  /** Something unexpected: a bug, reported with its message. */
  internal: 70,
} as const;

export interface CliIo {
  /** Text for a person or a script: control characters in it are made inert (src/app/present/inertText.ts). */
  out(text: string): void;
  /** Bytes that are meant to drive the terminal (a QR code's colours); only our own output. */
  outRaw?(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export type CommandHandler = (args: string[], io: CliIo) => Promise<number>;

type Options = NonNullable<ParseArgsConfig['options']>;
/** What parseOrUsage gives: the options' values and the positionals. */
export type ParsedArgs<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

/** A command's arguments read strictly (an unknown option is an error, positionals are allowed),
 *  or, after printing `termio COMMAND: why` and the help, the usage exit code. */
export function parseOrUsage<O extends Options>(io: CliIo, command: string, help: string, args: string[], options: O): ParsedArgs<O> | number {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`termio ${command}: ${(err as Error).message}\n\n${help}`);
    return ExitCode.usage;
  }
}
