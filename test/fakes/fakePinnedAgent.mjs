#!/usr/bin/env node
// A pinned-id agent CLI for tests, behaving like Claude Code / Grok:
//   --session-id <uuid>  starts a NEW conversation under that id; an id already in the store is refused;
//   --resume <id> / -r   continues one; a missing id is refused;
//   no id                mints its own (like the real CLIs without --session-id).
// The record is written when the first message is typed (as Claude writes its transcript), or at
// start with FAKE_PINNED_EAGER=1. Store ($FAKE_PINNED_ROOT, default ~/.fakepinned/sessions):
//   FAKE_PINNED_STORE=file (default): <root>/<cwd with / and . as ->/<id>.jsonl   (storeMatch file:{id}.jsonl)
//   FAKE_PINNED_STORE=dir:            <root>/<url-encoded cwd>/<id>/summary.json  (storeMatch dir:{id})
// Every launch and outcome is logged to $FAKE_AGENT_LOG (see fakeResumeKit.mjs).
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { UUID_RE, fail, findBelow, flagValue, logEvent, promptLoop, reportHook, setTitle } from './fakeResumeKit.mjs';

const AGENT = 'fake-pinned';
const argv = process.argv.slice(2);
const cwd = process.cwd();
const root = process.env.FAKE_PINNED_ROOT || join(process.env.HOME || homedir(), '.fakepinned', 'sessions');
const style = process.env.FAKE_PINNED_STORE === 'dir' ? 'dir' : 'file';
logEvent(AGENT, 'start', { argv, cwd });

const createId = flagValue(argv, ['--session-id']);
const resumeId = flagValue(argv, ['--resume', '-r']);
if (createId !== undefined && resumeId !== undefined) fail(AGENT, '--session-id cannot be used with --resume');
if (createId !== undefined && !UUID_RE.test(createId)) fail(AGENT, `Invalid session ID "${createId}". Must be a valid UUID.`);

/** The record of id anywhere in the store (2 levels: project folder, then the record). */
function findRecord(id) {
  const name = style === 'dir' ? id : `${id}.jsonl`;
  return findBelow(root, (n, e) => n === name && (style === 'dir' ? e.isDirectory() : e.isFile()), 2)[0] ?? null;
}
function recordPathFor(id) {
  if (style === 'dir') return join(root, encodeURIComponent(cwd), id);
  return join(root, cwd.replace(/[/.]/g, '-'), `${id}.jsonl`);
}
function messagesOf(path) {
  const file = style === 'dir' ? join(path, 'chat_history.jsonl') : path;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((m) => m.type === 'user')
    .map((m) => m.text);
}

let id;
let path = null;
if (resumeId !== undefined) {
  path = findRecord(resumeId);
  if (!path) fail(AGENT, `No conversation found with session ID: ${resumeId}`);
  id = resumeId;
  const earlier = messagesOf(path);
  logEvent(AGENT, 'resumed', { id, path, earlier });
  process.stdout.write(`Resumed conversation ${id} (${earlier.length} earlier messages)\r\n`);
} else {
  id = createId ?? randomUUID();
  if (findRecord(id)) fail(AGENT, `Session ID ${id} is already in use.`);
  logEvent(AGENT, 'created', { id });
  process.stdout.write(`New conversation ${id}\r\n`);
}
reportHook(id);

function ensureRecord() {
  if (path) return path;
  path = recordPathFor(id);
  const now = new Date().toISOString();
  if (style === 'dir') {
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'summary.json'), JSON.stringify({ id, cwd, title: 'New session', createdAt: now }));
    writeFileSync(join(path, 'chat_history.jsonl'), '');
  } else {
    mkdirSync(join(path, '..'), { recursive: true });
    appendFileSync(path, `${JSON.stringify({ type: 'session', sessionId: id, cwd, timestamp: now })}\n`);
  }
  logEvent(AGENT, 'recordWritten', { id, path });
  return path;
}

function addMessage(text) {
  const p = ensureRecord();
  const file = style === 'dir' ? join(p, 'chat_history.jsonl') : p;
  appendFileSync(file, `${JSON.stringify({ type: 'user', sessionId: id, cwd, text, timestamp: new Date().toISOString() })}\n`);
  logEvent(AGENT, 'message', { id, text });
  process.stdout.write(`ok: ${text}\r\n`);
}

if (process.env.FAKE_PINNED_EAGER === '1') ensureRecord();
setTitle('✳ Fake Pinned');
promptLoop(addMessage);
