// Review comments through the real host and the real termio command: a worktree session of the
// fake claude (reading input as a TUI does, with bracketed paste, and recording every input it
// takes) in a real temporary repository. Comments written with the CLI are checked against the
// diff, listed, removed, and sent as one multi-line prompt, typed only once the agent's turn
// (held on a permission question) has ended.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/app/client/controlClient';
import { Host } from '../../../src/app/host/host';
import type { ControlArgs, ControlVerb } from '../../../src/protocol/control';
import { termio } from '../../helpers/controlHost';
import { enterTestHome, leaveTestHome, startHostHere } from '../../helpers/testHome';
import { makeRepo, writeIn } from '../../helpers/gitRepo';
import { waitFor } from '../../helpers/waitFor';

const fakeAgent = resolve(__dirname, '../../fakes/fake-agent.mjs');
let home: string;
let repo: string;
let inputs: string;
let host: Host | null;

beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-comments-')));
  repo = makeRepo({ 'src/greet.js': "export function greet(name) {\n  return 'Hello ' + name;\n}\n" }, home);
  inputs = join(home, 'inputs.jsonl');
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${fakeAgent}" claude "$@"\n`, { mode: 0o755 });
  enterTestHome(home, bin, { FAKE_AGENT_PASTE: '1', FAKE_AGENT_INPUTS: inputs });
  host = await startHostHere();
});

afterEach(async () => {
  await host?.dispose();
  host = null;
  leaveTestHome();
  rmSync(home, { recursive: true, force: true });
});

async function ask<V extends ControlVerb>(verb: V, args: ControlArgs<V>) {
  const c = await ControlClient.connect(process.env);
  if (!(c instanceof ControlClient)) throw new Error(c.message);
  try {
    return await c.request(verb, args);
  } finally {
    c.close();
  }
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await termio(argv, process.env, repo);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Every input the agent took, in order (prompts and answers). */
const taken = (): string[] =>
  existsSync(inputs)
    ? readFileSync(inputs, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string)
    : [];

describe('review comments', () => {
  it('checks comments against the diff, and sends them as one prompt once its question is answered and the turn has ended', async () => {
    const first = 'Make greet polite, and ask before running the tests';
    const spawned = await ask('sessions.spawn', { agent: 'claude', cwd: repo, worktree: {}, prompt: first });
    if (!spawned.ok) throw new Error(spawned.error.message);
    const { id, session } = spawned.result;
    // The turn holds on its permission question: the agent needs the user until it is answered.
    await waitFor(() => taken().length === 1 && host!.registry.get(id)?.state === 'attention', { what: 'the first turn on its question' });
    writeIn(session.cwd, 'src/greet.js', "export function greet(name) {\n  const hello = 'Good day';\n  return hello + ', ' + name;\n}\n");
    writeIn(session.cwd, 'src/farewell.js', 'export function farewell(name) {\n  return `Goodbye, ${name}.`;\n}\n');

    const notInDiff = await cli('sessions', 'comment', id, '--file', 'README.md', '--line', '1', 'Why?');
    expect(notInDiff.code).toBe(1);
    expect(notInDiff.err).toContain(`'README.md' is not in the diff of ${session.worktree!.branch} against main`);
    expect(notInDiff.err).toContain('changed: src/farewell.js, src/greet.js');
    const outside = await cli('sessions', 'comment', id, '--file', 'src/greet.js', '--line', '2-9', 'Too far');
    expect(outside.code).toBe(1);
    expect(outside.err).toContain('line 9 of src/greet.js is not in its diff (the diff covers lines 1-4)');
    const badLine = await cli('sessions', 'comment', id, '--file', 'src/greet.js', '--line', 'two', 'Hm');
    expect(badLine.code).toBe(2);
    expect(badLine.err).toContain("--line wants N or N-M (whole numbers), not 'two'");

    expect((await cli('sessions', 'comment', id, '--file', 'src/greet.js', '--line', '2-3', 'Use a template literal.')).code).toBe(0);
    expect((await cli('sessions', 'comment', id, '--file', 'src/farewell.js', '--line', '1', 'Drop this file.')).code).toBe(0);
    const third = await cli('sessions', 'comment', id, '--file', 'src/farewell.js', '--line', '2', 'Say "Bye"\ninstead.');
    expect(third.code).toBe(0);
    expect(third.out).toBe(
      [
        '1. src/greet.js:2-3',
        "   > -  return 'Hello ' + name;",
        "   > +  const hello = 'Good day';",
        "   > +  return hello + ', ' + name;",
        '   Use a template literal.',
        '2. src/farewell.js:1',
        '   > +export function farewell(name) {',
        '   Drop this file.',
        '3. src/farewell.js:2',
        '   > +  return `Goodbye, ${name}.`;',
        '   Say "Bye"',
        '   instead.',
        '',
      ].join('\n'),
    );
    const edited = await cli('sessions', 'comment', id, '--file', 'src/farewell.js', '--line', '1-3', '--replace', '2', 'Keep it, but export it as default.');
    expect(edited.code).toBe(0);
    expect(edited.out).toContain('2. src/farewell.js:1-3\n   > +export function farewell(name) {\n   > +  return `Goodbye, ${name}.`;\n   > +}\n   Keep it');
    const removed = await cli('sessions', 'comments', 'remove', id, '3');
    expect(removed.code).toBe(0);
    expect(removed.out).not.toContain('3. ');
    expect((await cli('sessions', 'comments', 'remove', id, '5')).err).toContain('no comment 5: the list has 1-2');

    const sent = await cli('sessions', 'comments', 'send', id);
    expect(sent.code).toBe(0);
    expect(sent.out).toBe('Sending 2 comments as one prompt once the agent is ready for input.\n');
    const listed = JSON.parse((await cli('sessions', 'comments', id, '--json')).out) as { comments: unknown[]; sending: number };
    expect(listed).toMatchObject({ comments: [], sending: 2 });

    // Answering the question ends the turn; only then are the comments typed (typed into the
    // question, they would have been its answer, and 'y' a prompt of its own).
    const answered = await ask('sessions.send', { id, text: 'y', enter: true });
    expect(answered).toMatchObject({ ok: true });
    await waitFor(() => taken().length === 3, { what: 'the comments typed' });
    expect(taken()).toEqual([
      first,
      'y',
      [
        'Review comments on your changes; please address each one:',
        '',
        'src/greet.js:2-3',
        "> -  return 'Hello ' + name;",
        "> +  const hello = 'Good day';",
        "> +  return hello + ', ' + name;",
        'Use a template literal.',
        '',
        'src/farewell.js:1-3',
        '> +export function farewell(name) {',
        '> +  return `Goodbye, ${name}.`;',
        '> +}',
        'Keep it, but export it as default.',
      ].join('\n'),
    ]);
    const after = await waitFor(
      async () => {
        const r = await ask('sessions.comments', { id });
        return r.ok && r.result.sending === 0 ? r.result : null;
      },
      { what: 'the sent comments off the list' },
    );
    expect(after).toEqual({ id, comments: [], sending: 0 });
    expect((await cli('sessions', 'comments', 'send', id)).err).toContain(`session ${id} has no pending comments to send`);
  });

  it('refuses comments on a session that has no worktree', async () => {
    const spawned = await ask('sessions.spawn', { agent: 'claude', cwd: repo });
    if (!spawned.ok) throw new Error(spawned.error.message);
    const r = await cli('sessions', 'comment', spawned.result.id, '--file', 'src/greet.js', '--line', '1', 'Hm');
    expect(r.code).toBe(1);
    expect(r.err).toContain('does not work in a worktree');
  });
});
