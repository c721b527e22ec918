// Where a session's transcript is when its hooks do not say: the pinned record in the agent's
// store (the file itself, or resume.transcriptName inside a "dir:" record), and what
// `sessions read --transcript` answers for a known, an unknown and an unreadable file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pinnedTranscript, readTranscript } from '../../../src/app/host/resume/transcript';

const ID = '0b7f7c55-4c1e-4b55-9a55-7d0f3d1b2a10';
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-transcript-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('pinnedTranscript', () => {
  it('is the record file of a "file:" store', async () => {
    mkdirSync(join(home, '.a/projects/p'), { recursive: true });
    writeFileSync(join(home, `.a/projects/p/${ID}.jsonl`), '{}\n');
    const resume = { create: '--id {id}', resume: '--r {id}', storeRoot: '~/.a/projects', storeMatch: 'file:{id}.jsonl' };
    expect(await pinnedTranscript(resume, ID, home)).toBe(join(home, `.a/projects/p/${ID}.jsonl`));
    expect(await pinnedTranscript(resume, null, home)).toBeUndefined();
  });
  it('is transcriptName inside a "dir:" record, and unknown without one', async () => {
    mkdirSync(join(home, `.g/sessions/enc/${ID}`), { recursive: true });
    const resume = { create: '--id {id}', resume: '--r {id}', storeRoot: '~/.g/sessions', storeMatch: `dir:{id}` };
    expect(await pinnedTranscript({ ...resume, transcriptName: 'chat_history.jsonl' }, ID, home)).toBe(join(home, `.g/sessions/enc/${ID}/chat_history.jsonl`));
    expect(await pinnedTranscript(resume, ID, home)).toBeUndefined();
  });
});

describe('readTranscript', () => {
  const size = { cols: 80, rows: 24 };
  it('answers the last lines of the file', () => {
    const file = join(home, 't.jsonl');
    writeFileSync(file, '{"a":1}\n{"b":2}\n{"c":3}\n');
    expect(readTranscript('s', file, 2, size)).toEqual({ ok: true, result: { id: 's', lines: ['{"b":2}', '{"c":3}'], cols: 80, rows: 24, transcript: file } });
  });
  it('says why when there is none or it cannot be read', () => {
    expect(readTranscript('s', undefined, undefined, size)).toMatchObject({
      ok: false,
      code: 'noTranscript',
      message: expect.stringMatching(/^session s has no known transcript/),
    });
    expect(readTranscript('s', join(home, 'gone.jsonl'), undefined, size)).toMatchObject({
      ok: false,
      code: 'noTranscript',
      message: expect.stringMatching(/^cannot read the transcript .*gone\.jsonl: ENOENT/),
    });
  });
});
