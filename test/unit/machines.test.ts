// The pure parts of machines: reading machines.json leniently, the ssh command line (the user's
// options first, since ssh keeps the first value it reads), what ssh's exit says, the backoff,
// the host id a hub tells hosts apart by, and how a machine's state reads.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMachines, reconnectDelayMs, type MachineInfo } from '../../src/protocol/machines';
import { HOST_ID_FILE, loadHostId } from '../../src/app/services/hostId';
import { machineStateLine } from '../../src/app/present/machineText';
import { classifyExit, DEFAULT_REMOTE_COMMAND, sshArgs } from '../../src/app/services/sshCommand';

describe('machines.json', () => {
  it('keeps the good entries and names each bad one', () => {
    const text = `{
      // my machines
      "machines": {
        "gpu": { "target": "me@gpu.example", "port": 2222, "sshOptions": ["ProxyJump=bastion"] },
        "bad port": { "target": "x" },
        "typo": { "target": "y", "prot": 22 },
        "opt": { "target": "z", "sshOptions": ["NoEquals"] },
        "dash": { "target": "-oProxyCommand=evil" },
      },
    }`;
    const r = parseMachines(text, 'machines.json');
    expect(r.machines).toEqual([{ name: 'gpu', target: 'me@gpu.example', port: 2222, sshOptions: ['ProxyJump=bastion'] }]);
    expect(r.errors).toEqual([
      expect.stringMatching(/^machines\.json: "bad port": the name must be 1-32 letters.*skipped$/),
      expect.stringMatching(/^machines\.json: typo: .*prot.*skipped$/),
      expect.stringMatching(/^machines\.json: opt: sshOptions\.0: must be KEY=VALUE.*skipped$/),
      expect.stringMatching(/^machines\.json: dash: target: must be \[user@\]host.*skipped$/),
    ]);
  });

  it('reads an empty or missing file as no machines, and says where JSON breaks', () => {
    expect(parseMachines('')).toEqual({ machines: [], errors: [] });
    const broken = parseMachines('{\n "machines": {\n  "a": { "target": "h" }\n  "b": {}\n }\n}');
    expect(broken.errors[0]).toMatch(/^machines\.json: line 4: /);
    expect(broken.machines.map((m) => m.name)).toContain('a');
    expect(parseMachines('[]').errors).toEqual([expect.stringMatching(/expected an object with "machines", got an array/)]);
  });
});

describe('the ssh command', () => {
  it("puts the machine's options first, then port and identity, then the defaults, and the target after --", () => {
    const args = sshArgs({ name: 'a', target: 'me@h', port: 2200, identity: '/k', sshOptions: ['ConnectTimeout=3'] }, { batch: true });
    expect(args.slice(0, 3)).toEqual(['-T', '-o', 'ConnectTimeout=3']);
    expect(args.indexOf('ConnectTimeout=3')).toBeLessThan(args.indexOf('ConnectTimeout=10'));
    expect(args).toContain('BatchMode=yes');
    expect(args.slice(args.indexOf('-p'), args.indexOf('-p') + 2)).toEqual(['-p', '2200']);
    expect(args.slice(-3)).toEqual(['--', 'me@h', DEFAULT_REMOTE_COMMAND]);
    expect(sshArgs({ name: 'a', target: 'h', remoteCommand: 'my-termio --stdio' }, { batch: false }).at(-1)).toBe('my-termio --stdio');
    expect(sshArgs({ name: 'a', target: 'h' }, { batch: false })).not.toContain('BatchMode=yes');
  });

  it("says what ssh's exit means, and what to do", () => {
    expect(classifyExit('box', 127, null, 'bash: line 1: termio: command not found\n')).toEqual({
      state: 'noTermio',
      why: expect.stringMatching(/^Termio is not installed on box .*termio machines install box/),
    });
    expect(classifyExit('box', 255, null, 'me@h: Permission denied (publickey).\n')).toEqual({
      state: 'unreachable',
      why: expect.stringMatching(/^box refused the login: me@h: Permission denied \(publickey\)\./),
    });
    expect(classifyExit('box', 255, null, 'ssh: Could not resolve hostname nope: Name or service not known\n').why).toBe(
      'ssh to box failed: ssh: Could not resolve hostname nope: Name or service not known',
    );
    expect(classifyExit('box', 255, null, '').why).toBe('ssh to box exited with code 255 without saying why');
  });
});

describe('reconnecting', () => {
  it('retries within a second first, then doubles up to 30 s', () => {
    expect(reconnectDelayMs(0)).toBeLessThan(1000);
    expect(reconnectDelayMs(1)).toBe(2 * reconnectDelayMs(0));
    expect(reconnectDelayMs(20)).toBe(30_000);
  });
});

describe('the host id', () => {
  it('is minted once and kept in TERMIO_HOME; a file that holds no id is replaced', () => {
    const home = mkdtempSync(join(tmpdir(), 'termio-hostid-'));
    try {
      const id = loadHostId(home);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(loadHostId(home)).toBe(id);
      expect(readFileSync(join(home, HOST_ID_FILE), 'utf8')).toBe(`${id}\n`);
      writeFileSync(join(home, HOST_ID_FILE), 'not an id!\n');
      const next = loadHostId(home);
      expect(next).not.toBe(id);
      expect(loadHostId(home)).toBe(next);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("a machine's state line", () => {
  const base: MachineInfo = {
    name: 'alias',
    target: 'me@box',
    state: 'connected',
    why: null,
    remoteVersion: '0.1.0',
    remoteProtocol: 2,
    hostId: 'h-12345678',
    sameAs: null,
    sessions: 2,
    retryAt: null,
    since: 0,
  };
  it('says a duplicate is the same machine as the one that holds its host, or this machine itself', () => {
    expect(machineStateLine(base, 0)).toBe('connected (Termio 0.1.0), 2 sessions');
    expect(machineStateLine({ ...base, state: 'sameMachine', sameAs: 'box', why: 'same machine as box (same host id)', sessions: 0, retryAt: 30_000 }, 0)).toBe(
      'same machine as box',
    );
    expect(machineStateLine({ ...base, state: 'sameMachine', sameAs: null, why: 'x', sessions: 0, retryAt: 30_000 }, 0)).toBe('this machine itself');
  });
});
