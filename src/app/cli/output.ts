// What `--json` prints, for every command that talks to the app: one object per line with
// `schemaVersion`, `ok: true` and the verb's fields, or `ok: false` with an error code and message.
// The shapes are documented in docs/cli.md; scripts rely on them.
import type { ControlErrorCode } from '../../protocol/control';
import type { CliIo } from './cliIo';

/** Bumped when a --json shape changes incompatibly (a field removed or retyped); new fields do not bump it. */
export const CLI_JSON_SCHEMA_VERSION = 1;

/** The app's error codes, plus the ones the command itself finds. */
export type CliErrorCode = ControlErrorCode | 'hostNotRunning' | 'usage' | 'connectionLost';

export function printOk(io: CliIo, fields: object): void {
  io.out(`${JSON.stringify({ schemaVersion: CLI_JSON_SCHEMA_VERSION, ok: true, ...fields })}\n`);
}

/** The --json error object alone, for a command that words its own stderr line; `fields` adds
 *  what the command still knows (a status that says what is wrong). */
export function printJsonError(io: CliIo, code: string, message: string, fields: object = {}): void {
  io.out(`${JSON.stringify({ schemaVersion: CLI_JSON_SCHEMA_VERSION, ok: false, code, message, ...fields })}\n`);
}

/** With --json the error is an object on stdout (scripts parse one stream); always a line on stderr too. */
export function printError(io: CliIo, json: boolean, code: CliErrorCode, message: string): void {
  if (json) printJsonError(io, code, message);
  io.err(`termio: ${message}\n`);
}
