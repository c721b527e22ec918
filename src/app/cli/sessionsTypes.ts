// The shapes `termio sessions` and its worktree verbs share: a verb's spec, its parsed command
// line, and what a handler is given (the output, --json, the connection).
import type { ParseArgsConfig } from 'node:util';
import type { ControlClient } from '../client/controlClient';
import type { CliIo } from './cliIo';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface VerbSpec {
  usage: string;
  summary: string;
  details?: string;
  options: Options;
  /** Names of positional arguments; a trailing '?' marks an optional one, a trailing '...' the rest. */
  positionals: string[];
}

export type Values = Record<string, string | boolean | undefined>;
export interface Parsed {
  values: Values;
  positionals: string[];
}

export interface Ctx {
  io: CliIo;
  json: boolean;
  client: ControlClient;
}
