// The Termio skill in an agent's skills folder, through `termio hooks install|uninstall` (the
// same functions the app's live-status switch calls): written with live status, removed with it,
// and a user's own files there — a SKILL.md of the same name included — kept byte for byte.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/app/cli/hooks';
import { bundledSkillFile, SKILL_MARKER } from '../../../src/app/services/skillInstaller';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'termio-skill-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function cli(args: string[]) {
  let out = '';
  let err = '';
  const env = { HOME: home, TERMIO_HOME: join(home, '.termio'), PATH: process.env.PATH };
  return run(args, { out: (t) => (out += t), err: (t) => (err += t), env, cwd: home }).then((code) => ({ code, out, err }));
}

function write(rel: string, text: string | Buffer): string {
  const file = join(home, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const ours = join('.claude', 'skills', 'termio', 'SKILL.md');

describe('the Termio skill', () => {
  it('is a skill file with the front matter agents read, naming itself termio', () => {
    const text = readFileSync(bundledSkillFile(), 'utf8');
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(front).not.toBeNull();
    expect(front![1]).toMatch(/^name: termio$/m);
    expect(front![1]).toMatch(/^description: .{40,}$/m);
    expect(text).toContain(SKILL_MARKER);
    for (const verb of ['sessions spawn', 'sessions run', 'sessions wait', 'sessions send', 'termio notify']) expect(text).toContain(verb);
  });

  it("goes in with live status and out with it, leaving the user's other skills byte for byte", async () => {
    // Bytes that a text round trip would change: CRLF, no final newline, a BOM, invalid UTF-8.
    const mine = Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('---\r\nname: mine\r\n---\r\nmy skill'), 0xff]);
    const mineFile = write('.claude/skills/mine/SKILL.md', mine);
    const i = await cli(['install', '--agent', 'claude']);
    expect(i).toMatchObject({ code: 0, err: '' });
    expect(i.out).toMatch(/claude\s+skill installed\s+~\/\.claude\/skills\/termio\/SKILL\.md\s+\(wrote\)/);
    expect(readFileSync(join(home, ours), 'utf8')).toBe(readFileSync(bundledSkillFile(), 'utf8'));
    // Again: nothing to write.
    expect((await cli(['install', '--agent', 'claude'])).out).toMatch(/skill installed\s+\S+$/m);

    const st = JSON.parse((await cli(['status', '--agent', 'claude', '--json'])).out);
    expect(st).toMatchObject({ schemaVersion: 1, ok: true, skills: [{ agentId: 'claude', state: 'installed' }] });

    expect((await cli(['uninstall', '--agent', 'claude'])).code).toBe(0);
    expect(existsSync(join(home, '.claude', 'skills', 'termio'))).toBe(false);
    expect(readFileSync(mineFile).equals(mine)).toBe(true);
    expect(readdirSync(join(home, '.claude', 'skills'))).toEqual(['mine']);
  });

  it("never overwrites or removes a user's own SKILL.md of the same name, nor files beside ours", async () => {
    const theirs = '---\nname: termio\ndescription: my own notes about termio\n---\nmine, no marker\n';
    const file = write(ours, theirs);
    const i = await cli(['install', '--agent', 'claude']);
    expect(i.code).toBe(0);
    expect(i.out).toMatch(/skill yours, left as it is/);
    expect(readFileSync(file, 'utf8')).toBe(theirs);
    await cli(['uninstall', '--agent', 'claude']);
    expect(readFileSync(file, 'utf8')).toBe(theirs);

    // Ours, with a file of the user's put beside it: uninstall takes ours and keeps the folder.
    rmSync(file);
    await cli(['install', '--agent', 'claude']);
    const note = write('.claude/skills/termio/notes.md', 'keep me\n');
    await cli(['uninstall', '--agent', 'claude']);
    expect(existsSync(join(home, ours))).toBe(false);
    expect(readFileSync(note, 'utf8')).toBe('keep me\n');
  });
});
