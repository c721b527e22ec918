// Shared bits of the resume fakes (fakePinnedAgent.mjs, fakeDiscoveredAgent.mjs): the launch log
// tests read, a line-based prompt like an agent TUI in a pty, and bounded store searches.
import { spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Appends one JSON line to $FAKE_AGENT_LOG (when set): what was launched and what happened. */
export function logEvent(agent, event, fields = {}) {
  const file = process.env.FAKE_AGENT_LOG;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ agent, event, pid: process.pid, termioSession: process.env.TERMIO_SESSION ?? null, ...fields })}\n`);
}

/** Appends what a SessionStart-style hook would report to $FAKE_HOOK_FILE (when set). */
export function reportHook(conversationId) {
  const file = process.env.FAKE_HOOK_FILE;
  if (file) appendFileSync(file, `${JSON.stringify({ termioSession: process.env.TERMIO_SESSION ?? null, conversationId, cwd: process.cwd() })}\n`);
  // $FAKE_HOOK_REPORTER (bin/termio-hook) and $FAKE_HOOK_AGENT: the SessionStart hook run for real,
  // through the reporter to the hook socket in the environment, as an agent's installed hook runs.
  const reporter = process.env.FAKE_HOOK_REPORTER;
  if (!reporter || !process.env.TERMIO_SESSION) return;
  const payload = JSON.stringify({ session_id: conversationId, hook_event_name: 'SessionStart', cwd: process.cwd() });
  spawnSync(process.execPath, [reporter, process.env.FAKE_HOOK_AGENT ?? '', 'idle', 'SessionStart'], {
    input: payload,
    stdio: ['pipe', 'ignore', 'inherit'],
    timeout: 5000,
  });
}

/** Refuses like the real CLIs: a message on stderr and a non-zero exit. */
export function fail(agent, message) {
  logEvent(agent, 'refused', { message });
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
}

/** Sets the terminal title (OSC 0, BEL-terminated) as agent TUIs do. */
export function setTitle(title) {
  process.stdout.write(`\x1b]0;${title}\x07`);
}

/** Reads lines typed into the pty; "/exit" (or end of input) quits with status 0. */
export function promptLoop(onLine) {
  process.stdout.write('> ');
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    if (line.trim() === '/exit') process.exit(0);
    onLine(line);
    process.stdout.write('> ');
  });
  rl.on('close', () => process.exit(0));
}

/** Paths below root (to maxDepth levels) whose last component satisfies test. */
export function findBelow(root, test, maxDepth) {
  const out = [];
  const walk = (dir, depth) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (test(e.name, e)) out.push(p);
      if (e.isDirectory() && depth + 1 < maxDepth) walk(p, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Value of --flag <v>, --flag=<v> or a short alias; undefined when absent. */
export function flagValue(argv, names) {
  for (let i = 0; i < argv.length; i++) {
    for (const n of names) {
      if (argv[i] === n) return argv[i + 1] ?? '';
      if (argv[i].startsWith(`${n}=`)) return argv[i].slice(n.length + 1);
    }
  }
  return undefined;
}
