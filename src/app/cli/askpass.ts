// The SSH_ASKPASS helper the hub gives ssh (bin/termio-askpass, run through the host's own
// askpass script): ssh runs it with the question as its one argument and reads the answer from
// its stdout. It asks the host that runs ssh (TERMIO_ASKPASS_SOCKET, proving itself with
// TERMIO_ASKPASS_TOKEN), which asks the user in the app; it prints the answer and exits 0, or
// says why not on stderr (ssh shows it in its own error) and exits 1. Nothing is written to disk.
import { HostClient } from '../client/hostClient';
import { packageVersion } from '../services/install';

/** Beyond the host's own limit for the user's answer (machines/askpass.ts). */
const ANSWER_WAIT_MS = 130_000;

export async function askpassMain(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const socket = env.TERMIO_ASKPASS_SOCKET;
  const token = env.TERMIO_ASKPASS_TOKEN;
  if (!socket || !token) {
    err('termio-askpass: run by the Termio host for ssh (TERMIO_ASKPASS_SOCKET and TERMIO_ASKPASS_TOKEN are not set)\n');
    return 1;
  }
  const c = await HostClient.connect(socket, { client: 'termio-askpass', version: packageVersion() });
  if (!(c instanceof HostClient)) {
    err(`termio-askpass: ${c.message}\n`);
    return 1;
  }
  try {
    const r = await c.request('machines.ask', { token, prompt: (argv[0] ?? '').slice(0, 2000) }, ANSWER_WAIT_MS);
    if (!r.ok) {
      err(`termio-askpass: ${r.error.message}\n`);
      return 1;
    }
    out(`${r.result.answer}\n`);
    return 0;
  } finally {
    c.close();
  }
}
