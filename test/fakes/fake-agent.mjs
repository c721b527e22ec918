#!/usr/bin/env node
// A stand-in for a real agent CLI, for tests: `fake-agent.mjs <dialect>` with dialect claude,
// codex, gemini, grok, copilot, cursor or cline. Like the real CLI it reads the hook entries from
// the agent's own config under $HOME, runs each matching command through /bin/sh with the agent's
// payload shape on stdin and its environment, and sets OSC 0 titles the way the real one does.
// cline runs the executable named after the event in ~/Documents/Cline/Hooks instead (Cline's global hooks
// folder), with Cline's payload (event data under its own key), and requires its JSON reply. Input is line based, typed into the pty:
//   any text        → a turn: prompt hook, spinner title, one Bash tool call, stop hook
//   text with "ask" → the tool call first needs permission; the next line answers it
//   text with "slow" → the tool call runs for a minute (the turn stays working, silent)
//   /clear          → a new conversation id (SessionStart with source "clear")
//   /exit           → exits 0
//   /fail N text    → prints text and exits with code N, as a CLI that cannot go on does
//   /hook Event {json} → fires that event's hooks with the json merged into the payload, as the
//                     agent does mid-turn, and prints "hooked Event #n" (n counts these lines)
//   /hook-detached Event {json} → the same, each hook run by a node supervisor the agent starts
//                     (`node -e`, no shell between), as Qwen Code runs its StopFailure hook
//   !command        → its Bash tool runs `bash -c command` (PreToolUse, the command with this
//                     environment, PostToolUse, Stop), as the real agent runs a shell command
// $FAKE_AGENT_INPUTS names a file each input line is appended to (as JSON), and $FAKE_AGENT_PASTE=1
// reads input as a TUI does, with bracketed paste (see readPastes).
// `-p <prompt>` runs one headless turn (SessionStart, prompt, Stop) and exits, like `claude -p`.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const dialect = process.argv[2] ?? 'claude';
// Asked what it is (a manifest's `identify`: --version or --help), it answers as the real CLI
// does, so Termio takes it for that agent; then it exits like the real one.
const identities = {
  claude: '2.1.332 (Claude Code)',
  codex: 'codex-cli 0.171.0',
  gemini: 'Gemini CLI - Defaults to interactive mode.',
  qwen: 'Qwen Code - Launch an interactive CLI',
  copilot: 'GitHub Copilot CLI 1.0.102.',
  grok: 'grok 1.0.3 (1a29d5bc12d4) [stable]',
  cline: 'Cline CLI - AI coding assistant in your terminal',
  opencode: '  opencode serve               starts a headless opencode server',
  pi: '  PI_CODING_AGENT_DIR              - Config directory (default: ~/.pi/agent)',
  droid: "Droid - Factory's AI coding agent in your terminal",
};
if (process.argv.length === 4 && (process.argv[3] === '--version' || process.argv[3] === '--help')) {
  process.stdout.write(`${identities[dialect] ?? `${dialect} (fake agent)`}\n`);
  process.exit(0);
}
const printIndex = process.argv.indexOf('-p', 3);
const HOME = process.env.HOME;
const cwd = process.cwd();

const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const agents = {
  claude: {
    files: ['.claude/settings.json'],
    events: { start: 'SessionStart', prompt: 'UserPromptSubmit', pre: 'PreToolUse', post: 'PostToolUse', permission: 'PermissionRequest', stop: 'Stop' },
    title: { idle: '✳ Claude Code', busy: (f) => `${'⠂⠐⠄'[f % 3]} Working` },
    env: { CLAUDE_PROJECT_DIR: cwd },
  },
  codex: {
    files: ['.codex/hooks.json'],
    events: { start: 'SessionStart', prompt: 'UserPromptSubmit', pre: 'PreToolUse', post: 'PostToolUse', permission: 'PermissionRequest', stop: 'Stop' },
    title: { idle: 'app', busy: (f) => `${'⠋⠙⠹'[f % 3]} app`, attention: '[ ! ] Action Required' },
    st: true,
  },
  gemini: {
    files: ['.gemini/settings.json'],
    events: { start: 'SessionStart', prompt: 'BeforeAgent', pre: 'BeforeTool', post: 'AfterTool', permission: 'Notification', stop: 'AfterAgent' },
    title: { idle: '◇  Ready (app)'.padEnd(80), busy: () => '✦  Working… (app)'.padEnd(80), attention: '✋  Action Required (app)'.padEnd(80) },
    env: { GEMINI_PROJECT_DIR: cwd },
  },
  grok: {
    files: ['.grok/hooks'],
    events: { start: 'SessionStart', prompt: 'UserPromptSubmit', pre: 'PreToolUse', post: 'PostToolUse', permission: 'Notification', stop: 'Stop' },
    camel: true,
    title: { idle: 'grok', busy: () => 'grok' },
  },
  copilot: {
    files: ['.copilot/hooks'],
    events: { start: 'sessionStart', prompt: 'userPromptSubmitted', pre: 'preToolUse', post: 'postToolUse', permission: 'notification', stop: 'agentStop' },
    camel: true,
    commandKey: 'bash',
    flat: true,
    title: { idle: 'GitHub Copilot', busy: () => 'Running tests · GitHub Copilot' },
  },
  cline: {
    scripts: 'Documents/Cline/Hooks',
    events: { start: 'TaskStart', prompt: 'UserPromptSubmit', pre: 'PreToolUse', post: 'PostToolUse', permission: null, stop: 'TaskComplete' },
    title: { idle: 'cline', busy: () => 'cline' },
  },
  cursor: {
    files: ['.cursor/hooks.json'],
    events: { start: 'sessionStart', prompt: 'beforeSubmitPrompt', pre: 'preToolUse', post: 'postToolUse', permission: null, stop: 'stop' },
    flat: true,
    conversationKey: 'conversation_id',
    title: { idle: 'Cursor Agent', busy: () => 'Cursor Agent' },
  },
}[dialect];
if (!agents) {
  process.stderr.write(`fake-agent: unknown dialect ${dialect}\n`);
  process.exit(2);
}
const agent = agents;

function configs() {
  const out = [];
  for (const rel of agent.files) {
    const p = join(HOME, rel);
    const files = rel.endsWith('.json')
      ? [p]
      : (() => {
          try {
            return readdirSync(p)
              .filter((n) => n.endsWith('.json'))
              .map((n) => join(p, n));
          } catch {
            return [];
          }
        })();
    for (const f of files) {
      try {
        // The real CLIs read strict JSON (Cursor voids a file it cannot read): so do we.
        out.push(JSON.parse(readFileSync(f, 'utf8')));
      } catch {
        /* unreadable: no hooks from it */
      }
    }
  }
  return out;
}

/** The commands registered for an event, honouring matchers the way Claude does (regex on the tool / notification type). */
function commandsFor(event, subject) {
  const cmds = [];
  const matches = (m) => m === undefined || m === '' || m === '*' || new RegExp(`^(?:${m})$`).test(subject ?? '');
  for (const cfg of configs()) {
    for (const entry of cfg?.hooks?.[event] ?? []) {
      if (agent.flat) {
        const c = entry[agent.commandKey ?? 'command'];
        if (typeof c === 'string') cmds.push(c);
      } else if (matches(entry.matcher)) {
        for (const h of entry.hooks ?? []) if (h.type === 'command' && typeof h.command === 'string') cmds.push(h.command);
      }
    }
  }
  return cmds;
}

// Like `claude --session-id <uuid>`: the conversation id Termio minted, else a fresh one.
const pinnedIndex = process.argv.indexOf('--session-id', 3);
let sessionId = pinnedIndex > 0 && process.argv[pinnedIndex + 1] ? process.argv[pinnedIndex + 1] : randomUUID();
function payload(event, extra) {
  const base = {
    [agent.conversationKey ?? 'session_id']: sessionId,
    transcript_path: join(HOME, `.${dialect}`, 'projects', `${sessionId}.jsonl`),
    cwd,
    hook_event_name: event,
    ...extra,
  };
  if (!agent.camel) return base;
  return Object.fromEntries(Object.entries(base).map(([k, v]) => [camel(k), v]));
}

/** Cline's payload: base fields, then the event's data under the event's camelCase name. */
function clinePayload(event, extra) {
  const data =
    event === 'UserPromptSubmit' ? { prompt: extra.prompt } : extra.tool_name ? { toolName: extra.tool_name, parameters: extra.tool_input ?? {} } : {};
  return {
    clineVersion: '3.0.0-fake',
    hookName: event,
    timestamp: String(Date.now()),
    taskId: sessionId,
    workspaceRoots: [cwd],
    userId: 'fake',
    [event[0].toLowerCase() + event.slice(1)]: data,
  };
}

/** Runs ~/Documents/Cline/Hooks/<Event> when it is an executable file; its stdout must be Cline's JSON reply. */
function fireScript(event, extra) {
  const file = join(HOME, agent.scripts, event);
  const r = spawnSync(file, [], { input: JSON.stringify(clinePayload(event, extra)), env: process.env, encoding: 'utf8', timeout: 5000 });
  if (r.error?.code === 'ENOENT' || r.error?.code === 'EACCES') return;
  try {
    if (JSON.parse(r.stdout).cancel !== false) throw new Error('cancel');
  } catch {
    process.stdout.write(`hook ${event} gave no JSON reply: ${JSON.stringify(r.stdout)}\r\n`);
  }
}

function fire(key, extra = {}, subject) {
  fireEvent(agent.events[key], extra, subject);
}

function fireEvent(event, extra = {}, subject) {
  if (!event) return;
  if (agent.scripts) return fireScript(event, extra);
  for (const command of commandsFor(event, subject)) {
    // Agents wait for each hook (synchronously, as Claude does for PreToolUse).
    spawnSync('/bin/sh', ['-c', command], {
      input: JSON.stringify(payload(event, extra)),
      env: { ...process.env, ...(agent.env ?? {}) },
      stdio: ['pipe', 'ignore', 'inherit'],
      timeout: 5000,
    });
  }
}

/** Runs each of the event's hooks from a node supervisor process, which runs /bin/sh in turn. */
function fireSupervised(event, extra) {
  const supervisor =
    "require('node:child_process').spawnSync('/bin/sh', ['-c', process.argv[1]], { input: process.argv[2], stdio: ['pipe', 'ignore', 'inherit'], timeout: 5000 })";
  for (const command of commandsFor(event, extra.tool_name ?? extra.notification_type)) {
    spawnSync(process.execPath, ['-e', supervisor, command, JSON.stringify(payload(event, extra))], {
      env: { ...process.env, ...(agent.env ?? {}) },
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 5000,
    });
  }
}

// $FAKE_AGENT_NO_TITLES=1: no titles at all, so only the hooks can tell the host the state.
const title = (t) => process.env.FAKE_AGENT_NO_TITLES === '1' || process.stdout.write(agent.st ? `\x1b]0;${t}\x1b\\` : `\x1b]0;${t}\x07`);
let frame = 0;

if (printIndex > 0) {
  fire('start', { source: 'startup', model: 'fake-1' });
  fire('prompt', { prompt: process.argv[printIndex + 1] ?? '' });
  fire('stop', { stop_hook_active: false, last_assistant_message: 'Done.' });
  process.stdout.write('Done.\n');
  process.exit(0);
}

title(agent.title.idle);
// Cline starts a task (TaskStart) with the first prompt, not at launch.
let taskStarted = !agent.scripts;
if (!agent.scripts) fire('start', { source: 'startup', model: 'fake-1' });
process.stdout.write(`fake ${dialect} ready\r\n> `);

let pendingPermission = null;
let hooked = 0;
/** One line of input: a prompt, or the answer to a permission question. */
function onLine(line) {
  line = line.trim();
  if (process.env.FAKE_AGENT_INPUTS) appendFileSync(process.env.FAKE_AGENT_INPUTS, `${JSON.stringify(line)}\n`);
  if (pendingPermission) {
    const done = pendingPermission;
    pendingPermission = null;
    done();
    return;
  }
  if (line === '/exit') process.exit(0);
  const fail = /^\/fail (\d+)\s*(.*)$/.exec(line);
  if (fail) {
    process.stdout.write(`${fail[2]}\r\n`);
    process.exit(Number(fail[1]));
  }
  const hook = /^\/hook(-detached)? (\S+)\s*(.*)$/.exec(line);
  if (hook) {
    const extra = hook[3] ? JSON.parse(hook[3]) : {};
    if (hook[1]) fireSupervised(hook[2], extra);
    else fireEvent(hook[2], extra, extra.tool_name ?? extra.notification_type);
    process.stdout.write(`hooked ${hook[2]} #${++hooked}\r\n> `);
    return;
  }
  if (line === '/clear') {
    sessionId = randomUUID();
    fire('start', { source: 'clear' });
    process.stdout.write('(new conversation)\r\n> ');
    return;
  }
  if (!taskStarted) {
    taskStarted = true;
    fire('start', {});
  }
  if (line.startsWith('!')) {
    fire('pre', { tool_name: 'Bash', tool_input: { command: line.slice(1) } }, 'Bash');
    const r = spawnSync('bash', ['-c', line.slice(1)], { env: process.env, encoding: 'utf8', timeout: 20_000 });
    fire('post', { tool_name: 'Bash', tool_response: { stdout: r.stdout } }, 'Bash');
    fire('stop', { stop_hook_active: false, last_assistant_message: 'Ran it.' });
    process.stdout.write(`${(r.stdout ?? '').trim()}\r\nran: exit ${r.status}\r\n> `);
    return;
  }
  fire('prompt', { prompt: line });
  title(agent.title.busy(frame++));
  fire('pre', { tool_name: 'Bash', tool_input: { command: 'npm test' } }, 'Bash');
  const finish = () => {
    title(agent.title.busy(frame++));
    fire('post', { tool_name: 'Bash', tool_response: { stdout: 'ok' } }, 'Bash');
    // The answer is on screen before the turn's stop hook runs, as the real CLIs stream it.
    process.stdout.write('Done.\r\n');
    fire('stop', { stop_hook_active: false, last_assistant_message: 'Done.' });
    title(agent.title.idle);
    process.stdout.write('> ');
  };
  // A minute is far longer than any test waits on a working turn.
  if (line.includes('slow')) {
    setTimeout(finish, 60_000);
    return;
  }
  if (line.includes('ask')) {
    fire(
      'permission',
      { tool_name: 'Bash', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' },
      dialect === 'claude' ? 'Bash' : 'permission_prompt',
    );
    if (agent.title.attention) title(agent.title.attention);
    process.stdout.write('Allow Bash(npm test)? [y/n] ');
    pendingPermission = finish;
    return;
  }
  finish();
}

if (process.env.FAKE_AGENT_PASTE === '1') readPastes();
else {
  const rl = createInterface({ input: process.stdin });
  rl.on('line', onLine);
  rl.on('close', () => process.exit(0));
}

/**
 * $FAKE_AGENT_PASTE=1: input as a TUI reads it, in raw mode with bracketed paste on: a paste
 * (newlines included) is echoed and kept as typed text, and only a Return typed outside a paste
 * submits it, so a multi-line prompt is one input.
 */
function readPastes() {
  process.stdin.setRawMode(true);
  process.stdout.write('\x1b[?2004h');
  const [start, end] = ['\x1b[200~', '\x1b[201~'];
  let typed = '';
  let pasting = false;
  let pending = '';
  process.stdin.on('data', (chunk) => {
    pending += chunk.toString('utf8');
    while (pending) {
      if (pasting) {
        const at = pending.indexOf(end);
        const body = at < 0 ? pending : pending.slice(0, at);
        typed += body.replace(/\r/g, '\n');
        process.stdout.write(body.replace(/\r/g, '\r\n'));
        pending = at < 0 ? '' : pending.slice(at + end.length);
        pasting = at < 0;
      } else if (pending.startsWith(start)) {
        pasting = true;
        pending = pending.slice(start.length);
      } else {
        const c = pending[0];
        pending = pending.slice(1);
        if (c === '\x03') process.exit(0);
        if (c === '\r') {
          process.stdout.write('\r\n');
          const line = typed;
          typed = '';
          onLine(line);
        } else if (c >= ' ') {
          typed += c;
          process.stdout.write(c);
        }
      }
    }
  });
  process.stdin.on('end', () => process.exit(0));
}
