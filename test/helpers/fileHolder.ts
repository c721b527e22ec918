// A real process standing in for an agent's file handling: it creates files and keeps them open
// for appending, as Codex keeps its rollout record open for the whole conversation, until it is
// killed. Tests that tie records to sessions through open files give each "agent" one of these.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
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
    const { file, text } = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'a');
    fs.writeSync(fd, text);
    held.push(fd);
    process.stdout.write('ok\\n');
  }
});
`;

export class FileHolder {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly acks: Array<() => void> = [];

  constructor() {
    this.child = spawn(process.execPath, ['-e', HOLDER], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      for (let n = d.split('\n').length - 1; n > 0; n--) this.acks.shift()?.();
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Creates (or appends to) the file and keeps it open; resolves once it is written. */
  hold(file: string, text: string): Promise<void> {
    return new Promise((resolve) => {
      this.acks.push(resolve);
      this.child.stdin.write(`${JSON.stringify({ file, text })}\n`);
    });
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
