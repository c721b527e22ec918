// `termio host --stdio`: this machine's session host over stdin/stdout, for a hub on another
// machine that reaches it with `ssh -T … termio host --stdio`. It starts the host if none runs,
// then copies bytes both ways unchanged (the client protocol is binary); the hub shakes hands with
// the host itself, so a host of another version answers it directly. It ends when either side does.
import { createConnection } from 'node:net';
import { connectHost, hostSocketPath } from '../client/hostLauncher';
import { HostClient } from '../client/hostClient';
import { ExitCode, type CliIo } from './cliIo';

export async function runStdio(io: CliIo): Promise<number> {
  // Only to make sure a host runs: a host of another version answers too, and the hub hears its
  // refusal through the bridge, by name and version.
  const probe = await connectHost(io.env, { client: 'termio-stdio', start: true });
  if (probe instanceof HostClient) probe.close();
  else if (probe.kind !== 'versionMismatch') {
    io.err(`termio host --stdio: ${probe.message}\n`);
    return ExitCode.failed;
  }
  const socketPath = hostSocketPath(io.env);
  return new Promise<number>((resolve) => {
    const socket = createConnection(socketPath);
    let done = false;
    const finish = (code: number): void => {
      if (done) return;
      done = true;
      process.stdin.unpipe(socket);
      process.stdin.destroy();
      // What the host said last must reach the hub before this process goes.
      if (process.stdout.writableLength === 0) resolve(code);
      else process.stdout.once('drain', () => resolve(code));
    };
    socket.once('connect', () => {
      process.stdin.pipe(socket);
      socket.pipe(process.stdout, { end: false });
    });
    socket.on('error', (err) => {
      io.err(`termio host --stdio: the host socket ${socketPath} failed: ${err.message}\n`);
      finish(ExitCode.failed);
    });
    socket.on('close', () => finish(ExitCode.ok));
    // The hub went (ssh ended): the host drops this client and keeps every session.
    process.stdin.on('end', () => socket.end());
    process.stdout.on('error', () => socket.destroy());
  });
}
