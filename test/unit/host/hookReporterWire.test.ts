// The native reporter is a drop-in for bin/termio-hook: for the same arguments, environment and
// stdin both put the same bytes on the wire (unicode, controls, invalid UTF-8, the size cap
// cutting a surrogate pair, argv payloads), and a real HookServer reads both frames the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HookServer, type HookServerStats } from '../../../src/app/host/status/hookServer';
import { termioPaths } from '../../../src/app/services/paths';
import { HOOK_REPORT_VERSION, MAX_HOOK_PAYLOAD_CHARS, type HookReport } from '../../../src/protocol/hookReport';
import { NATIVE_REPORTER_SOURCE, NODE_REPORTER, reportersUnderTest } from '../../helpers/reporters';
import { skipUnlessRequired } from '../../helpers/required';
import { sendHookBytes } from '../../helpers/hookServer';
import { waitFor } from '../../helpers/waitFor';

const [nodeReporter, nativeReporter] = reportersUnderTest();
const SESSION = '3e1f0a9c-7b2d-4c8e-a6f5-0d9b8c7a6e51';
const SECRET = 'Zk1f2Q9hX0pW7sL3vN8cB5mR4tY6uJ2eD1gH0aK9oIq';

let home: string;
let capture: Server;
let captureSocket: string;
const captured: Buffer[] = [];
let hookServer: HookServer;
const accepted: HookReport[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'termio-wire-'));
  captureSocket = join(home, 'capture.sock');
  // Records each connection's bytes exactly as the reporter wrote them, and answers at the frame's
  // end as the hook server does (the reporter waits for that).
  capture = createServer((c) => {
    const chunks: Buffer[] = [];
    c.on('data', (d: Buffer) => {
      chunks.push(d);
      if (d.includes(0x0a)) c.end('\n');
    });
    c.on('error', () => {});
    c.on('close', () => captured.push(Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => capture.listen(captureSocket, r));
  const s = await HookServer.start({ paths: termioPaths({ TERMIO_HOME: join(home, 'termio') }), secretOf: () => SECRET });
  if (!(s instanceof HookServer)) throw new Error(s.message);
  hookServer = s;
  hookServer.onReport((r) => accepted.push(r));
});

afterAll(async () => {
  await hookServer?.close();
  await new Promise<void>((r) => (capture ? capture.close(() => r()) : r()));
  rmSync(home, { recursive: true, force: true });
});

interface Call {
  args: string[];
  stdin?: Buffer | string;
  /** Bytes for a trailing argv payload that need not be valid UTF-8 (passed through printf). */
  rawArgvPayload?: string;
  session?: string;
}

/** Runs one reporter and returns the bytes it sent (one connection per run). */
async function frameOf(argvOf: (args: string[]) => string[], call: Call): Promise<Buffer> {
  const before = captured.length;
  const argv = argvOf(call.args);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    TERMIO_SESSION: call.session ?? SESSION,
    TERMIO_SESSION_SECRET: SECRET,
    TERMIO_HOOK_SOCKET: captureSocket,
  };
  // printf turns octal escapes into raw bytes, which a JS string argument cannot carry.
  const [cmd, args] =
    call.rawArgvPayload !== undefined ? ['/bin/sh', ['-c', 'exec "$@" "$(printf "$0")"', call.rawArgvPayload, ...argv]] : [argv[0]!, argv.slice(1)];
  const code = await new Promise((resolve) => {
    const child = spawn(cmd as string, args as string[], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.on('error', () => {});
    child.stdin.end(call.stdin ?? '');
    child.on('close', resolve);
  });
  expect(code).toBe(0);
  await waitFor(() => captured.length > before, { what: 'the frame at the capture socket' });
  return captured[before]!;
}

/** What the real hook server makes of a frame: the report it accepted, or which counter moved. */
async function serverReading(frame: Buffer): Promise<HookReport | Partial<HookServerStats>> {
  const statsBefore = { ...hookServer.stats };
  const acceptedBefore = accepted.length;
  await sendHookBytes(hookServer.socketPath, frame);
  const moved = (): Partial<HookServerStats> => {
    const d: Partial<HookServerStats> = {};
    for (const k of Object.keys(statsBefore) as (keyof HookServerStats)[])
      if (hookServer.stats[k] !== statsBefore[k]) d[k] = hookServer.stats[k] - statsBefore[k];
    return d;
  };
  await waitFor(() => Object.keys(moved()).length > 0, { what: 'the hook server to read the frame' });
  return accepted.length > acceptedBefore ? accepted[accepted.length - 1]! : moved();
}

async function compare(call: Call): Promise<{ node: Buffer; native: Buffer }> {
  const node = await frameOf(nodeReporter!.argv!, call);
  const native = await frameOf(nativeReporter!.argv!, call);
  expect(native.toString('latin1')).toBe(node.toString('latin1'));
  expect(await serverReading(native)).toEqual(await serverReading(node));
  return { node, native };
}

const claudePayload = JSON.stringify({
  session_id: '0b6d5e1c-8f7a-4f0e-9a57-2f1b3c4d5e6f',
  transcript_path: '/home/u/.claude/projects/-home-u-app/0b6d5e1c.jsonl',
  cwd: '/home/u/app',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'echo "hi" > /tmp/x\n\tdone' },
});

// No C compiler: skipped, except under CI, where it fails (every test must run there).
describe.skipIf(skipUnlessRequired(nativeReporter!.argv ? null : `no native reporter: ${nativeReporter!.unavailable}`) !== null)(
  'native reporter wire compatibility with bin/termio-hook',
  () => {
    it('repeats the wire constants and deadlines of both the protocol and the Node reporter', () => {
      const c = readFileSync(NATIVE_REPORTER_SOURCE, 'utf8');
      const js = readFileSync(NODE_REPORTER, 'utf8');
      const define = (name: string) => Function(`return ${new RegExp(`#define ${name} ([^\\n]+)`).exec(c)![1]}`)() as number;
      const constant = (name: string) => Function(`return ${new RegExp(`const ${name} = ([^;]+);`).exec(js)![1]}`)() as number;
      expect(define('HOOK_REPORT_VERSION')).toBe(HOOK_REPORT_VERSION);
      expect(define('MAX_HOOK_PAYLOAD_CHARS')).toBe(MAX_HOOK_PAYLOAD_CHARS);
      expect(define('GIVE_UP_MS')).toBe(constant('GIVE_UP_MS'));
      expect(define('STDIN_WAIT_MS')).toBe(constant('STDIN_WAIT_MS'));
    });

    it('a real Claude payload on stdin: same bytes, same report', async () => {
      const { native } = await compare({ args: ['claude', 'working', 'PreToolUse'], stdin: claudePayload });
      expect(JSON.parse(native.toString('utf8'))).toEqual({
        v: 2,
        session: SESSION,
        secret: SECRET,
        agent: 'claude',
        state: 'working',
        event: 'PreToolUse',
        payload: claudePayload,
        truncated: false,
        parents: expect.any(Array),
      });
      // Both name the same ancestors, parent first: this test process ran them.
      expect(JSON.parse(native.toString('utf8')).parents[0]).toEqual([process.pid, expect.any(String)]);
      expect(native.at(-1)).toBe(0x0a);
    });

    it.each([
      ['unicode, U+2028/2029 and emoji', 'héllo 世界 😀 \u2028\u2029 ✳'],
      ['every control character, quotes and backslashes', `${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')}\u007f"\\/'`],
      ['an empty stdin', ''],
    ])('stdin with %s', async (_what, text) => {
      await compare({ args: ['claude', 'done', 'Stop'], stdin: text });
    });

    it.each([
      [
        'invalid and overlong sequences, lone surrogates',
        [0xff, 0x41, 0xc0, 0xaf, 0xe0, 0x80, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80, 0x42],
      ],
      ['a character cut by the end of stdin', [0x7b, 0x7d, 0xf0, 0x9f, 0x98]],
      ['an invalid run at the end of stdin', [0x61, 0xe0, 0x80]],
    ])('stdin that is not valid UTF-8: %s', async (_what, bytes) => {
      await compare({ args: ['claude', 'done', 'Stop'], stdin: Buffer.from(bytes) });
    });

    it('the size cap: exactly at it, one past it, cutting an emoji in half, 3-byte characters, 1 MB', async () => {
      const cap = MAX_HOOK_PAYLOAD_CHARS;
      const atCap = await compare({ args: ['claude', 'working', 'PostToolUse'], stdin: 'a'.repeat(cap) });
      expect(JSON.parse(atCap.native.toString()).truncated).toBe(false);
      const past = await compare({ args: ['claude', 'working', 'PostToolUse'], stdin: 'a'.repeat(cap + 1) });
      expect(JSON.parse(past.native.toString())).toMatchObject({ truncated: true, payload: 'a'.repeat(cap) });
      // String.prototype.slice cuts the pair: the frame ends in a lone high surrogate, escaped.
      const split = await compare({ args: ['claude', 'working', 'PostToolUse'], stdin: `${'a'.repeat(cap - 1)}😀` });
      expect(split.native.toString()).toContain('a\\ud83d","truncated":true,"parents":');
      await compare({ args: ['claude', 'working', 'PostToolUse'], stdin: '€'.repeat(70_000) });
      await compare({ args: ['claude', 'working', 'PostToolUse'], stdin: `{"session_id":"big","x":"${'y'.repeat(1_000_000)}"}` });
    });

    it('argv: a trailing payload (also invalid UTF-8 and past the cap), odd names, missing arguments', async () => {
      await compare({ args: ['codex', 'done', 'agent-turn-complete', '{"type":"agent-turn-complete","thread-id":"t1","input-messages":["é\\n"]}'] });
      await compare({ args: ['codex', 'done', 'agent-turn-complete'], rawArgvPayload: 'a\\377b\\355\\240\\200c\\342\\202' });
      await compare({ args: ['codex', 'done', 'agent-turn-complete', 'x'.repeat(MAX_HOOK_PAYLOAD_CHARS + 10)] });
      await compare({ args: ['my "agent"\\', 'idle', 'Sess\tion'], stdin: '{}', session: 'sess "ü" \\ ✳' });
      const none = await compare({ args: [], stdin: '{}' });
      expect(JSON.parse(none.native.toString())).toMatchObject({ agent: '', state: '', event: '' });
    });

    it('random bytes on stdin: same frame from both', async () => {
      const interesting = [
        0x00, 0x0a, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90,
      ];
      const byte = fc.oneof(fc.constantFrom(...interesting), fc.integer({ min: 0, max: 255 }));
      await fc.assert(
        fc.asyncProperty(fc.array(byte, { maxLength: 32 }), async (bytes) => {
          const node = await frameOf(nodeReporter!.argv!, { args: ['claude', 'done', 'Stop'], stdin: Buffer.from(bytes) });
          const native = await frameOf(nativeReporter!.argv!, { args: ['claude', 'done', 'Stop'], stdin: Buffer.from(bytes) });
          expect(native.toString('latin1')).toBe(node.toString('latin1'));
        }),
        { numRuns: 60 },
      );
    }, 60_000);
  },
);
