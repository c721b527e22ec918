// How the hub reaches a machine: the user's own OpenSSH (`ssh -T`), so ~/.ssh/config, the agent,
// ProxyJump and known hosts all apply; the machine's port, identity and `-o` options come first
// (ssh keeps the first value it reads for an option, so the user's win over the defaults below).
// And what ssh's exit says when the connection ends: its own last words, classified.
import type { Machine, MachineState } from '../../protocol/machines';

/** What runs on the machine: its termio bridged over stdio. ssh runs it with the user's shell
 *  without a login, so the places an install puts `termio` are added to PATH first
 *  (`termio machines install` uses ~/.termio/bin). */
export const DEFAULT_REMOTE_COMMAND = 'PATH="$HOME/.termio/bin:$HOME/.local/bin:/usr/local/bin:$PATH" exec termio host --stdio';

/** ssh gives up on a host that does not answer (TCP or the SSH handshake) after this long. */
const CONNECT_TIMEOUT_S = 10;
/** A link that goes silent (sleep, a dropped network) is noticed after 3 × 5 s of unanswered
 *  keepalives, well before TCP's own minutes. */
const ALIVE_INTERVAL_S = 5;
const ALIVE_COUNT_MAX = 3;

/** `command`: run this there instead of the machine's host bridge (`termio machines install`). */
export function sshArgs(m: Machine, opts: { batch: boolean; command?: string }): string[] {
  const args = ['-T'];
  for (const o of m.sshOptions ?? []) args.push('-o', o);
  if (m.port !== undefined) args.push('-p', String(m.port));
  if (m.identity !== undefined) args.push('-i', m.identity, '-o', 'IdentitiesOnly=yes');
  if (opts.batch) args.push('-o', 'BatchMode=yes');
  args.push(
    '-o',
    `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    '-o',
    `ServerAliveInterval=${ALIVE_INTERVAL_S}`,
    '-o',
    `ServerAliveCountMax=${ALIVE_COUNT_MAX}`,
    // Only our protocol on stdout: no escape character eating a byte of a frame.
    '-e',
    'none',
    '--',
    m.target,
    opts.command ?? m.remoteCommand ?? DEFAULT_REMOTE_COMMAND,
  );
  return args;
}

/** The last line ssh (or the remote shell) wrote that says something. */
export function lastWords(stderr: string): string | null {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^Warning: Permanently added/.test(l));
  return lines.at(-1) ?? null;
}

/** Why a connection attempt ended before the machine's host said hello, as a state and a sentence. */
export function classifyExit(name: string, code: number | null, signal: string | null, stderr: string): { state: MachineState; why: string } {
  const said = lastWords(stderr);
  // 127: the remote shell found no such command.
  if (code === 127 || (said !== null && /termio: (command )?not found|No such file or directory/.test(said) && /termio/.test(said))) {
    return { state: 'noTermio', why: `Termio is not installed on ${name}${said ? ` (${said})` : ''}: run \`termio machines install ${name}\`` };
  }
  if (said !== null && /Permission denied|Too many authentication failures/.test(said)) {
    return { state: 'unreachable', why: `${name} refused the login: ${said} (check the identity file, or ssh-copy-id)` };
  }
  if (said !== null && /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/.test(stderr)) {
    return { state: 'unreachable', why: `${name}'s host key is not trusted: ${said} (connect once with ssh to check and accept it)` };
  }
  if (said !== null) return { state: 'unreachable', why: `ssh to ${name} failed: ${said}` };
  const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
  return { state: 'unreachable', why: `ssh to ${name} ${how} without saying why` };
}
