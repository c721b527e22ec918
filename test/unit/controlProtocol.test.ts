// The control protocol as data: framing (fed one character at a time, oversized lines) and
// request validation (every error a reply that names what is wrong).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CONTROL_PROTOCOL_VERSION, FrameDecoder, encodeFrame } from '../../src/protocol/controlFrames';
import {
  ControlArgsSchemas,
  ControlReplySchema,
  ControlRequestEnvelopeSchema,
  type ControlError,
  type ControlReply,
  parseRequest,
} from '../../src/protocol/control';

function decodeAll(decoder: FrameDecoder, chunks: string[]) {
  return chunks.flatMap((c) => decoder.push(c));
}

describe('FrameDecoder', () => {
  it('cuts frames at newlines whatever the chunking', () => {
    const stream = `${encodeFrame({ a: 1 })}\n${encodeFrame({ b: 'x\u00e9\u{1F600}' })}{"c":3}\r\n`;
    const whole = decodeAll(new FrameDecoder(), [stream]);
    const oneByOne = decodeAll(new FrameDecoder(), [...stream]);
    expect(whole).toEqual([
      { kind: 'frame', text: '{"a":1}' },
      { kind: 'frame', text: '{"b":"x\u00e9\u{1F600}"}' },
      { kind: 'frame', text: '{"c":3}' },
    ]);
    expect(oneByOne).toEqual(whole);
  });

  it('splits at any boundary the same way (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, '')),
          { maxLength: 8 },
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        (lines, cuts) => {
          const stream = lines.map((l) => `${l}\n`).join('');
          const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
          const chunks: string[] = [];
          let prev = 0;
          for (const p of points) {
            chunks.push(stream.slice(prev, p));
            prev = p;
          }
          chunks.push(stream.slice(prev));
          const frames = decodeAll(new FrameDecoder(), chunks);
          expect(frames).toEqual(lines.filter((l) => l.trim()).map((text) => ({ kind: 'frame', text })));
        },
      ),
    );
  });

  it('reports an oversized line once, as soon as it crosses the limit, holds nothing, and resyncs', () => {
    const d = new FrameDecoder(10);
    expect(d.push('0123456789')).toEqual([]);
    expect(d.pending).toBe(10);
    expect(d.push('A')).toEqual([{ kind: 'oversized', chars: 11 }]);
    expect(d.pending).toBe(0);
    expect(d.push('x'.repeat(1000))).toEqual([]);
    expect(d.pending).toBe(0);
    expect(d.push('tail\n{"ok":1}\n')).toEqual([{ kind: 'frame', text: '{"ok":1}' }]);
  });

  it('refuses a nonsensical limit', () => {
    expect(() => new FrameDecoder(0)).toThrow(/maxFrameChars must be positive, got 0/);
  });
});

describe('parseRequest', () => {
  const v = CONTROL_PROTOCOL_VERSION;
  const err = (text: string) => {
    const r = parseRequest(text);
    if (r.ok) throw new Error(`expected an error for ${text}`);
    expect(ControlReplySchema.safeParse(r.reply).success).toBe(true);
    return r.reply as ControlReply & { ok: false; error: ControlError };
  };

  it('accepts each verb with valid arguments', () => {
    const ok = [
      { v, verb: 'ping' },
      { v, seq: 1, verb: 'version', args: {} },
      { v, verb: 'sessions.list' },
      { v, verb: 'sessions.watch' },
      { v, verb: 'sessions.read', args: { id: 'ab12', lines: 5 } },
      { v, verb: 'sessions.send', args: { id: 'ab12', text: 'echo hello', enter: true } },
      { v, verb: 'sessions.spawn', args: { agent: 'claude', cwd: '/tmp', bypass: true, title: 'x' } },
      { v, verb: 'sessions.spawn', args: {} },
      { v, verb: 'sessions.comment', args: { id: 'ab12', file: 'src/a.ts', line: 3, to: 5, text: 'why?' } },
      { v, verb: 'sessions.comments.remove', args: { id: 'ab12', index: 1 } },
      { v, verb: 'sessions.spawn', args: { agent: 'claude', prompt: 'fix it', parent: 'ab12', wait: { timeoutMs: 60_000 } } },
      { v, verb: 'sessions.send', args: { id: 'ab12', text: 'go', enter: true, wait: { timeoutMs: 0 } } },
      { v, verb: 'sessions.run', args: { argv: ['sh', '-c', 'exit 7'], cwd: '/tmp', wait: { timeoutMs: 1000 } } },
      { v, verb: 'sessions.wait', args: { id: 'ab12', until: 'attention', timeoutMs: 1000 } },
      { v, verb: 'app.notify', args: { session: 'ab12', title: 'Build', text: 'done' } },
      { v, verb: 'sessions.focus', args: { id: 'a' } },
      { v, verb: 'sessions.close', args: { id: 'a' } },
      { v, seq: 'abc', verb: 'app.open', args: { dir: '/home/me/project' } },
    ];
    for (const req of ok) {
      const r = parseRequest(JSON.stringify(req));
      expect(r, JSON.stringify(req)).toMatchObject({ ok: true, request: { verb: req.verb } });
    }
  });

  it('echoes seq and keeps parsed args', () => {
    expect(parseRequest(JSON.stringify({ v, seq: 7, verb: 'sessions.read', args: { id: 'x', lines: 3 } }))).toEqual({
      ok: true,
      request: { v, seq: 7, verb: 'sessions.read', args: { id: 'x', lines: 3 } },
    });
  });

  it('turns every kind of bad input into an error reply naming the problem', () => {
    expect(err('not json')).toMatchInlineSnapshot(`
      {
        "error": {
          "code": "badFrame",
          "message": "the frame is not JSON",
        },
        "ok": false,
        "v": 1,
      }
    `);
    expect(err('[1,2]').error).toEqual({ code: 'badFrame', message: 'a request must be a JSON object' });
    expect(err('null').error.code).toBe('badFrame');
    expect(err(JSON.stringify({ v, seq: 3, verb: 'rm -rf' }))).toMatchInlineSnapshot(`
      {
        "error": {
          "code": "unknownVerb",
          "message": "unknown verb 'rm -rf' (known: ping, version, sessions.list, sessions.watch, sessions.read, sessions.send, sessions.spawn, sessions.run, sessions.wait, app.notify, sessions.focus, sessions.next, sessions.handled, sessions.close, sessions.why, sessions.question, sessions.answer, app.open, app.activate, worktrees.diff, worktrees.act, worktrees.remove, worktrees.list, worktrees.prune, sessions.comment, sessions.comments, sessions.comments.send, sessions.comments.remove, sessions.fanout, sessions.fanout.list, sessions.fanout.show, sessions.fanout.test, sessions.fanout.merge, history.search, history.resume, history.status, usage, settings.get, settings.set, hooks.apply, agents.loginPath)",
        },
        "ok": false,
        "seq": 3,
        "v": 1,
      }
    `);
    expect(err(JSON.stringify({ v, verb: '__proto__' })).error.code).toBe('unknownVerb');
    expect(err(JSON.stringify({ v, verb: 'constructor' })).error.code).toBe('unknownVerb');
    expect(err(JSON.stringify({ v: 99, verb: 'ping' })).error).toEqual({
      code: 'unsupportedVersion',
      message: 'protocol version 99 is not supported (this app speaks 1)',
    });
    expect(err(JSON.stringify({ verb: 'ping' })).error.code).toBe('badRequest');
    expect(err(JSON.stringify({ v, verb: 'ping', extra: 1 })).error.code).toBe('badRequest');
    expect(err(JSON.stringify({ v, verb: 'sessions.read', args: { id: 5 } })).error).toMatchInlineSnapshot(`
      {
        "code": "badRequest",
        "message": "sessions.read: id: Invalid input: expected string, received number",
      }
    `);
    expect(err(JSON.stringify({ v, verb: 'sessions.read', args: { id: 'a', lines: 0 } })).error.message).toMatch(/lines/);
    expect(err(JSON.stringify({ v, verb: 'sessions.send', args: { id: 'a' } })).error.message).toMatch(/text/);
    expect(err(JSON.stringify({ v, verb: 'sessions.send', args: { id: 'a', text: 'x', enter: 'yes' } })).error.message).toMatch(/enter/);
    expect(err(JSON.stringify({ v, verb: 'sessions.spawn', args: { cwd: 'relative/dir' } })).error.message).toMatch(/cwd: must be an absolute path/);
    expect(err(JSON.stringify({ v, verb: 'sessions.spawn', args: { colour: 'red' } })).error.code).toBe('badRequest');
    expect(err(JSON.stringify({ v, verb: 'app.open', args: [] })).error.code).toBe('badRequest');
    expect(err(JSON.stringify({ v, verb: 'sessions.run', args: { argv: [] } })).error.message).toMatch(/argv/);
    expect(err(JSON.stringify({ v, verb: 'sessions.run', args: { argv: ['echo', 'a\u0000b'] } })).error.message).toMatch(/argv\.1: must not contain NUL/);
    expect(err(JSON.stringify({ v, verb: 'sessions.wait', args: { id: 'a' } })).error.message).toMatch(/timeoutMs/);
    expect(err(JSON.stringify({ v, verb: 'sessions.wait', args: { id: 'a', timeoutMs: 86_400_001 } })).error.message).toMatch(/timeoutMs/);
    expect(err(JSON.stringify({ v, verb: 'sessions.wait', args: { id: 'a', until: 'soon', timeoutMs: 1 } })).error.message).toMatch(/until/);
    // A union's own message would be zod's bare "Invalid input": it says what since takes.
    expect(err(JSON.stringify({ v, verb: 'sessions.wait', args: { id: 'a', timeoutMs: 1, since: 'begin' } })).error.message).toBe(
      "sessions.wait: since: 'start', or a mark sessions.send answered (a whole number, -1 or more)",
    );
    expect(err(JSON.stringify({ v, verb: 'sessions.wait', args: { id: 'a', timeoutMs: 1, since: -2 } })).error.message).toMatch(/since: .*-1/);
    expect(err(JSON.stringify({ v, verb: 'sessions.spawn', args: { prompt: '' } })).error.message).toMatch(/prompt/);
    expect(err(JSON.stringify({ v, verb: 'app.notify', args: { text: '' } })).error.message).toMatch(/text/);
    expect(err(JSON.stringify({ v, verb: 'app.open', args: { dir: '/tmp\u0000x' } })).error.code).toBe('badRequest');
    expect(err(JSON.stringify({ v, seq: { nested: 1 }, verb: 'ping' }))).not.toHaveProperty('seq');
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((j) => JSON.stringify({ v, verb: 'sessions.send', args: j })),
        ),
        (text) => {
          const r = parseRequest(text);
          if (!r.ok) {
            expect(ControlReplySchema.safeParse(r.reply).success).toBe(true);
          } else {
            // Accepted: the request handed on is one the schemas themselves accept.
            expect(ControlRequestEnvelopeSchema.safeParse(r.request).success).toBe(true);
            expect(ControlArgsSchemas[r.request.verb].safeParse(r.request.args).success).toBe(true);
          }
        },
      ),
    );
  });
});
