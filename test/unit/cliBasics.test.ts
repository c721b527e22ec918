// The termio executable from a checkout: --version, --help, and bad usage exit codes.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = resolve(__dirname, '..', '..');
const termio = (...args: string[]) => spawnSync(join(repo, 'bin', 'termio'), args, { encoding: 'utf8' });

describe('termio executable', () => {
  it('is the package.json bin, with a shebang', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.bin.termio).toBe('bin/termio');
    expect(readFileSync(join(repo, 'bin', 'termio'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('prints its version', () => {
    const r = termio('--version');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`termio ${JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version}\n`);
  });

  it('prints help with exit codes', () => {
    const r = termio('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: termio <command>/);
    expect(r.stdout).toContain('Exit codes: 0 ok');
  });

  it('rejects an unknown command with exit 2', () => {
    const r = termio('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("termio: unknown command 'frobnicate'");
  });

  it('does not take inherited object keys for commands', () => {
    for (const word of ['constructor', 'toString', '__proto__']) {
      const r = termio(word);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`termio: unknown command '${word}'`);
    }
  });
});
