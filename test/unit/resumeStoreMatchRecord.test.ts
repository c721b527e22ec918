// storeMatch rule parsing/matching and discovered-record parsing (src/protocol/resumeStoreMatch.ts,
// src/protocol/resumeRecord.ts), including ids that try to escape the store root.
import { describe, expect, it } from 'vitest';
import { parseStoreMatch, storeMatcher, type StoreMatchRule } from '../../src/protocol/resumeStoreMatch';
import { parseDiscoveredRecord, readKeyPath } from '../../src/protocol/resumeRecord';

const ID = '0b7f7c55-4c1e-4b55-9a55-7d0f3d1b2a10';
const rule = (text: string): StoreMatchRule => {
  const r = parseStoreMatch(text);
  if ('message' in r) throw new Error(r.message);
  return r;
};
const matcher = (text: string, id = ID) => {
  const m = storeMatcher(rule(text), id);
  if ('message' in m) throw new Error(m.message);
  return m;
};

describe('parseStoreMatch', () => {
  it('parses dir and file rules', () => {
    expect(rule('dir:{id}')).toMatchObject({ kind: 'dir', pattern: '{id}' });
    expect(rule('file:{id}.jsonl')).toMatchObject({ kind: 'file', pattern: '{id}.jsonl', parents: [] });
    expect(rule('file:chats/{id}.jsonl')).toMatchObject({ kind: 'file', pattern: '{id}.jsonl', parents: ['chats'] });
    expect(rule('file:session-*-{id:8}.jsonl').parts).toEqual([{ lit: 'session-' }, { star: true }, { lit: '-' }, { id: true, prefix: 8 }, { lit: '.jsonl' }]);
  });
  it.each([
    ['{id}', 'storeMatch "{id}": expected "dir:<pattern>" or "file:<pattern>"'],
    ['folder:{id}', 'storeMatch "folder:{id}": expected the kind "dir" or "file", got "folder"'],
    ['file:../{id}.jsonl', 'storeMatch "file:../{id}.jsonl": no folder or name may be empty, "." or ".."'],
    ['file:a//{id}.jsonl', 'storeMatch "file:a//{id}.jsonl": no folder or name may be empty, "." or ".."'],
    ['file:{id}/x.jsonl', 'storeMatch "file:{id}/x.jsonl": the folders before the name are literal (no {id} or *)'],
    ['file:..', 'storeMatch "file:..": no folder or name may be empty, "." or ".."'],
    ['dir:static', 'storeMatch "dir:static": the pattern must contain {id}'],
    ['file:{uuid}.jsonl', 'storeMatch "file:{uuid}.jsonl": unknown placeholder {uuid} (only {id} and {id:N})'],
    ['file:{id:0}', 'storeMatch "file:{id:0}": {id:N} needs 1 ≤ N ≤ 64, got 0'],
  ])('%s → %s', (text, message) => {
    expect(parseStoreMatch(text)).toEqual({ kind: 'storeMatchError', message });
  });
});

describe('storeMatcher', () => {
  it('matches dir:{id} exactly', () => {
    const m = matcher('dir:{id}');
    expect(m).toMatchObject({ kind: 'dir', exactName: ID });
    expect(m.test(ID)).toBe(true);
    expect(m.test(`${ID}.bak`)).toBe(false);
    expect(m.test(ID.toUpperCase())).toBe(false);
  });
  it('matches file:{id}.jsonl and treats regex characters in ids literally', () => {
    const m = matcher('file:{id}.jsonl', 'a.b+(c)');
    expect(m.exactName).toBe('a.b+(c).jsonl');
    expect(m.test('a.b+(c).jsonl')).toBe(true);
    expect(m.test('aXb+(c).jsonl')).toBe(false);
    expect(m.test('a.b+(c)Xjsonl')).toBe(false);
  });
  it('matches wildcards and id prefixes (Gemini-style names)', () => {
    const m = matcher('file:session-*-{id:8}.jsonl');
    expect(m.exactName).toBeNull();
    expect(m.test('session-2026-01-02T10-11-0b7f7c55.jsonl')).toBe(true);
    expect(m.test('session-2026-01-02T10-11-0b7f7c56.jsonl')).toBe(false);
    expect(matcher('file:x-{id:8}', 'abc').exactName).toBe('x-abc');
  });
  it.each(['../..', '..', 'a/../../etc', '/etc/passwd', 'x\\y', '', '-rf'])('refuses the unsafe id %j', (id) => {
    const m = storeMatcher(rule('dir:{id}'), id);
    expect(m).toMatchObject({ kind: 'storeMatchError' });
  });
  it('never matches . or .. even with a bare wildcard', () => {
    const m = matcher('dir:*{id:1}*', 'x');
    expect(m.test('..')).toBe(false);
    expect(m.test('.')).toBe(false);
    expect(m.test('axb')).toBe(true);
  });
});

describe('parseDiscoveredRecord', () => {
  const jsonl = { format: 'jsonl' as const, id: 'payload.id', cwd: 'payload.cwd' };
  const json = { format: 'json' as const, id: 'id', cwd: 'directory' };
  const meta = (id: unknown, cwd: unknown) => JSON.stringify({ type: 'session_meta', payload: { id, cwd, cli_version: '0.1' } });

  it('reads only the first line of a jsonl record', () => {
    const text = `${meta(ID, '/w/p')}\n{"type":"response_item","payload":{"id":"other","cwd":"/elsewhere"}}\nnot even json`;
    expect(parseDiscoveredRecord(text, jsonl)).toEqual({ ok: true, id: ID, cwd: '/w/p' });
  });
  it('accepts CRLF, a BOM and a finished first line without a newline', () => {
    expect(parseDiscoveredRecord(`\ufeff${meta(ID, '/w')}\r\n`, jsonl)).toEqual({ ok: true, id: ID, cwd: '/w' });
    expect(parseDiscoveredRecord(meta(ID, '/w'), jsonl)).toEqual({ ok: true, id: ID, cwd: '/w' });
  });
  it('calls an unfinished first line incomplete, a finished bad one malformed', () => {
    expect(parseDiscoveredRecord(meta(ID, '/w').slice(0, 20), jsonl)).toMatchObject({ ok: false, kind: 'incomplete' });
    expect(parseDiscoveredRecord('', jsonl)).toMatchObject({ ok: false, kind: 'incomplete' });
    expect(parseDiscoveredRecord('{oops\n{}', jsonl)).toMatchObject({ ok: false, kind: 'malformed' });
    expect(parseDiscoveredRecord('\n{}', jsonl)).toMatchObject({ ok: false, kind: 'malformed', message: 'the first line is empty' });
    expect(parseDiscoveredRecord('[1,2]\n', jsonl)).toMatchObject({ ok: false, kind: 'malformed', message: 'expected a JSON object' });
  });
  it('reads a whole json record', () => {
    const text = JSON.stringify({ id: 'ses_1a2b', projectID: 'global', directory: '/w/p', time: { created: 1 } }, null, 2);
    expect(parseDiscoveredRecord(text, json)).toEqual({ ok: true, id: 'ses_1a2b', cwd: '/w/p' });
    expect(parseDiscoveredRecord(text.slice(0, -3), json)).toMatchObject({ ok: false, kind: 'malformed' });
    expect(parseDiscoveredRecord('', json)).toMatchObject({ ok: false, kind: 'malformed' });
  });
  it('names the missing or mistyped key', () => {
    expect(parseDiscoveredRecord(`${meta(undefined, '/w')}\n`, jsonl)).toEqual({
      ok: false,
      kind: 'missingKey',
      message: 'payload.id: expected a string id, got nothing',
    });
    expect(parseDiscoveredRecord(`${meta(7, '/w')}\n`, jsonl)).toEqual({
      ok: false,
      kind: 'missingKey',
      message: 'payload.id: expected a string id, got number',
    });
    expect(parseDiscoveredRecord(`${meta(ID, '')}\n`, jsonl)).toEqual({
      ok: false,
      kind: 'missingKey',
      message: 'payload.cwd: expected a directory path, got ""',
    });
    expect(parseDiscoveredRecord('{"payload":null}\n', jsonl)).toMatchObject({ ok: false, kind: 'missingKey' });
  });
  it('refuses ids that would escape a folder or read as a flag', () => {
    expect(parseDiscoveredRecord(`${meta('../../x', '/w')}\n`, jsonl)).toMatchObject({ ok: false, kind: 'unsafeId' });
    expect(parseDiscoveredRecord(`${meta('--yolo', '/w')}\n`, jsonl)).toMatchObject({ ok: false, kind: 'unsafeId' });
  });
  it('follows key paths through own properties only', () => {
    expect(readKeyPath({ a: { b: [{ c: 1 }] } }, 'a.b.0.c')).toBe(1);
    expect(readKeyPath({ a: {} }, 'a.constructor')).toBeUndefined();
    expect(readKeyPath({ a: 'str' }, 'a.length')).toBeUndefined();
  });
});
