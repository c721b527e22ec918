// The shapes `termio sessions` and its worktree verbs share: a verb's spec, its parsed command
// line, and what a handler is given (the output, --json, the connection).
import type { ParseArgsConfig } from 'node:util';
import type { ControlArgs, ControlResult, ControlVerb } from '../../protocol/control';
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

/** How a verb module asks the host: the result, or the exit code once the failure was reported. */
export type Call = <V extends ControlVerb>(
  ctx: { io: CliIo; json: boolean },
  verb: V,
  args: ControlArgs<V>,
) => Promise<{ ok: true; result: ControlResult<V> } | { ok: false; code: number }>;

/** --json and --help, which every verb takes. */
export const commonOptions = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const satisfies Options;
