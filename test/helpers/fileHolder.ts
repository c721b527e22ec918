// A real process standing in for an agent's file handling: it creates files and keeps them open
// for appending, as Codex keeps its rollout record open for the whole conversation, or (close:
// true) writes each whole and renames it into place, as an agent with a standalone metadata
// record does, until it is killed. It runs as a script named like the agent (`node …/<name>.cjs`) in the folder it is
// given, so the host's process scan sees an agent of that name in that folder. Tests that tie
// records to sessions give each "agent" one of these.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

const HOLDER = `
const fs = require('fs');
const path = require('path');
const held = [];
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const { file, text, close } = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (close) {
      // Written whole beside it and renamed into place: the file never appears open or half-written.
      fs.writeFileSync(file + '.part', text);
      fs.renameSync(file + '.part', file);
    } else {
      const fd = fs.openSync(file, 'a');
      fs.writeSync(fd, text);
      held.push(fd);
    }
    process.stdout.write('ok\\n');
  }
});
`;

export interface FileHolderOptions {
  /** The folder it runs in (default: the test's). */
  cwd?: string;
  /** The name its script runs as (default: fakeagent). */
  name?: string;
  /** Write each file and close it instead of holding it open. */
  close?: boolean;
}

export class FileHolder {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly acks: Array<() => void> = [];
  private readonly dir: string;
  private readonly close: boolean;

  constructor(opts: FileHolderOptions = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'termio-holder-'));
    this.close = opts.close ?? false;
    const script = join(this.dir, `${opts.name ?? 'fakeagent'}.cjs`);
    writeFileSync(script, HOLDER);
    this.child = spawn(process.execPath, [script], { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      for (let n = d.split('\n').length - 1; n > 0; n--) this.acks.shift()?.();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Creates (or appends to) the file and keeps it open (or, made with close: true, writes it
   *  whole and closed); resolves once it is written. */
  hold(file: string, text: string): Promise<void> {
    return new Promise((resolve) => {
      this.acks.push(resolve);
      this.child.stdin.write(`${JSON.stringify({ file, text, close: this.close })}\n`);
    });
  }

  kill(): void {
    this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
