#!/usr/bin/env node
// A discovered-id agent CLI for tests: it mints its own conversation id, like Codex or OpenCode
// (as described in agents/README.md). Two store styles ($FAKE_DISCOVERED_STYLE):
//   rollout (default, Codex-like): <root>/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl whose
//     first line is {"type":"session_meta","payload":{"id","cwd",…}}; root $FAKE_DISCOVERED_ROOT,
//     default ~/.fakecodex/sessions; continue with `resume <id>`;
//   json (OpenCode-like): <root>/global/<ses_…>.json, a standalone metadata file
//     {"id","projectID","directory",…} rewritten on each message; root default
//     ~/.fakeopencode/storage/session; continue with `--session <id>` / `-s <id>`, or fork with
//     `--fork <id>` (Continue-like): the earlier messages are shown again and carried into a new
//     id's record, written at the first message, while the old record stays as it was.
// Like Codex, the rollout style keeps its record open for writing as long as it runs (the host
// ties a record to its session by that); the json style rewrites and closes its file each time
// (the host binds it only as the one new record of a folder where no other such agent runs).
// A fresh launch writes its record when the first message is typed, or after
// $FAKE_RECORD_DELAY_MS (so tests can start several at once and let the records appear).
// Resuming a missing id is refused (stderr, exit 1). Every launch is logged to $FAKE_AGENT_LOG;
// $FAKE_HOOK_FILE receives what a SessionStart hook would report, once the record exists.
import { mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { fail, findBelow, flagValue, logEvent, promptLoop, reportHook, setTitle } from './fakeResumeKit.mjs';

const AGENT = 'fake-discovered';
const argv = process.argv.slice(2);
// Asked what it is (the bundled Codex manifest's `identify`), it answers as Codex does; not a launch.
if (argv.length === 1 && argv[0] === '--version') {
  process.stdout.write('codex-cli 0.171.0\n');
  process.exit(0);
}
const cwd = process.cwd();
const style = process.env.FAKE_DISCOVERED_STYLE === 'json' ? 'json' : 'rollout';
const home = process.env.HOME || homedir();
const root = process.env.FAKE_DISCOVERED_ROOT || (style === 'json' ? join(home, '.fakeopencode', 'storage', 'session') : join(home, '.fakecodex', 'sessions'));
logEvent(AGENT, 'start', { argv, cwd, style });

const pad = (n) => String(n).padStart(2, '0');
function findRecord(id) {
  if (style === 'json') return findBelow(root, (n, e) => e.isFile() && n === `${id}.json`, 2)[0] ?? null;
  return findBelow(root, (n, e) => e.isFile() && n.startsWith('rollout-') && n.endsWith(`-${id}.jsonl`), 4)[0] ?? null;
}
function messagesOf(path) {
  if (style === 'json') return JSON.parse(readFileSync(path, 'utf8')).messages ?? [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.type === 'user_message')
    .map((l) => l.payload.text);
}

let id;
let path = null;
/** The messages a fork carries over from the record it forked. */
let inherited = [];
/** The rollout record, open for appending until the process exits. */
let recordFd = null;
const append = (line) => {
  recordFd ??= openSync(path, 'a');
  writeSync(recordFd, line);
};
const resumeId = style === 'json' ? flagValue(argv, ['--session', '-s']) : argv[0] === 'resume' ? (argv[1] ?? '') : undefined;
const forkId = style === 'json' ? flagValue(argv, ['--fork']) : undefined;
if (forkId !== undefined) {
  const from = findRecord(forkId);
  if (!from) fail(AGENT, `Session not found: ${forkId}`);
  inherited = messagesOf(from);
  id = `ses_${randomBytes(12).toString('hex')}`;
  logEvent(AGENT, 'forked', { from: forkId, id, earlier: inherited });
  process.stdout.write(`Forked ${forkId} as ${id} (${inherited.length} earlier messages)\r\n`);
} else if (resumeId !== undefined) {
  path = findRecord(resumeId);
  if (!path) fail(AGENT, style === 'json' ? `Session not found: ${resumeId}` : `No saved session found with ID ${resumeId}`);
  id = resumeId;
  const earlier = messagesOf(path);
  logEvent(AGENT, 'resumed', { id, path, earlier });
  reportHook(id);
  process.stdout.write(`Resumed ${id} (${earlier.length} earlier messages)\r\n`);
} else {
  id = style === 'json' ? `ses_${randomBytes(12).toString('hex')}` : randomUUID();
  logEvent(AGENT, 'minted', { id });
}

function ensureRecord() {
  if (path) return path;
  const now = new Date();
  if (style === 'json') {
    path = join(root, 'global', `${id}.json`);
    mkdirSync(join(root, 'global'), { recursive: true });
    writeFileSync(
      path,
      JSON.stringify(
        { id, projectID: 'global', directory: cwd, title: 'New session', time: { created: now.getTime(), updated: now.getTime() }, messages: inherited },
        null,
        2,
      ),
    );
  } else {
    const dir = join(root, String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()));
    const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
    path = join(dir, `rollout-${stamp}-${id}.jsonl`);
    mkdirSync(dir, { recursive: true });
    // The real first line also carries the base instructions, tens of KB.
    const meta = {
      timestamp: now.toISOString(),
      type: 'session_meta',
      payload: { id, timestamp: now.toISOString(), cwd, originator: 'fake_codex', cli_version: '0.0.0', instructions: 'x'.repeat(20_000) },
    };
    append(`${JSON.stringify(meta)}\n`);
  }
  logEvent(AGENT, 'recordWritten', { id, path });
  reportHook(id);
  return path;
}

function addMessage(text) {
  const p = ensureRecord();
  if (style === 'json') {
    const rec = JSON.parse(readFileSync(p, 'utf8'));
    rec.messages.push(text);
    rec.time.updated = Date.now();
    writeFileSync(p, JSON.stringify(rec, null, 2));
  } else {
    append(`${JSON.stringify({ timestamp: new Date().toISOString(), type: 'user_message', payload: { text } })}\n`);
  }
  logEvent(AGENT, 'message', { id, text });
  process.stdout.write(`ok: ${text}\r\n`);
}

const delay = Number(process.env.FAKE_RECORD_DELAY_MS);
if (resumeId === undefined && forkId === undefined && Number.isFinite(delay) && delay >= 0) setTimeout(ensureRecord, delay);
setTitle(style === 'json' ? 'OpenCode' : 'Fake Codex');
promptLoop(addMessage);
