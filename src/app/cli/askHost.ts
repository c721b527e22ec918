// One request to the host for a command that asks it once: connect (starting the host if none
// runs), send the verb, close. A failure is printed (an object on stdout with --json, a line on
// stderr always) and becomes the command's exit code.
import type { ControlArgs, ControlResult, ControlVerb } from '../../protocol/control';
import { ControlClient } from '../client/controlClient';
import { ExitCode, type CliIo } from './cliIo';
import { printError } from './output';

export type Asked<V extends ControlVerb> = { ok: true; result: ControlResult<V> } | { ok: false; code: number };

export async function askHost<V extends ControlVerb>(io: CliIo, json: boolean, verb: V, args: ControlArgs<V>): Promise<Asked<V>> {
  const client = await ControlClient.connectOrStart(io.env);
  if (!(client instanceof ControlClient)) {
    printError(io, json, 'hostNotRunning', client.message);
    return { ok: false, code: ExitCode.hostNotRunning };
  }
  try {
    const reply = await client.request(verb, args);
    if (reply.ok) return { ok: true, result: reply.result as ControlResult<V> };
    printError(io, json, reply.lost ? 'connectionLost' : reply.error.code, reply.error.message);
    return { ok: false, code: reply.lost ? ExitCode.hostNotRunning : ExitCode.failed };
  } finally {
    client.close();
  }
}
