// Manifests as they are written in the wild load: every bundled manifest and every sample in
// test/fixtures/manifests/compat/ (our own samples of the shapes other hosts write) parse with no
// errors, and each shape this version cannot act on loads with a warning and that feature off.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestResumeFamily, parseManifest, type ManifestParseResult } from '../../src/protocol/manifestParse';
import { NOT_MANIFESTS } from '../../src/app/services/catalog';

const REPO = join(__dirname, '..', '..');
const COMPAT = join(REPO, 'test', 'fixtures', 'manifests', 'compat');
const jsonFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json') && !NOT_MANIFESTS.includes(f));
const load = (dir: string, f: string): ManifestParseResult => parseManifest(readFileSync(join(dir, f), 'utf8'), f);
const sample = (f: string) => load(COMPAT, f);

describe('manifests as the world writes them', () => {
  it.each([...jsonFiles(join(REPO, 'agents')).map((f) => ['agents', f]), ...jsonFiles(COMPAT).map((f) => ['compat', f])])(
    '%s/%s loads with no errors',
    (dir, f) => {
      const r = load(dir === 'agents' ? join(REPO, 'agents') : COMPAT, f);
      expect(r.errors).toEqual([]);
      expect(r.manifest).toBeDefined();
    },
  );

  it('bundled manifests load whole: no warnings, nothing turned off', () => {
    for (const f of jsonFiles(join(REPO, 'agents'))) expect(load(join(REPO, 'agents'), f)).toMatchObject({ warnings: [], disabled: [] });
  });

  it('accepts an id that is a safe file name but not a slug', () => {
    expect(sample('camel-case-id.json')).toMatchObject({ manifest: { id: 'deskPilot' }, warnings: [], disabled: [] });
  });

  it('an icon kind this version does not draw: the generic mark, a warning, never a refusal', () => {
    const r = sample('icon-asset.json');
    expect(r.disabled).toEqual([{ feature: 'icon', reason: expect.stringContaining('the generic mark is shown') }]);
    expect(r.warnings).toContain('icon-asset.json: icon.asset: unknown field, ignored by this version of Termio');
  });

  it('reads hooks of type "scripts" with a dir (one script per event)', () => {
    const r = sample('hooks-scripts.json');
    expect(r.disabled).toEqual([]);
    expect(r.manifest?.hooks).toMatchObject({ type: 'scripts', dir: '~/.script-runner/hooks', dialect: 'cline' });
  });

  it('"resume": "none" is an explicit no-resume; another string is a form this version turns off', () => {
    expect(sample('resume-none.json')).toMatchObject({ warnings: [], disabled: [] });
    expect(manifestResumeFamily(sample('resume-none.json').manifest!)).toBe('none');
    const preset = sample('resume-preset.json');
    expect(preset.disabled).toEqual([
      { feature: 'resume', reason: 'expected an object or "none", got "preset-resume": a resume form this version does not know' },
    ]);
    expect(preset.manifest?.resume).toBeUndefined();
  });

  it('storeMatch may name a file below a subfolder', () => {
    const r = sample('store-subfolder.json');
    expect(r.manifest?.resume?.storeMatch).toBe('file:chats/{id}.jsonl');
    expect(manifestResumeFamily(r.manifest!)).toBe('pinned');
  });

  it('unknown fields stay warnings, at any depth', () => {
    const r = sample('unknown-fields.json');
    expect([...r.warnings].sort()).toEqual([
      'unknown-fields.json: hooks.events[0].async: unknown field, ignored by this version of Termio',
      'unknown-fields.json: hooks.timeoutSeconds: unknown field, ignored by this version of Termio',
      'unknown-fields.json: resume.discover.compression: unknown field, ignored by this version of Termio',
      'unknown-fields.json: telemetry: unknown field, ignored by this version of Termio',
    ]);
    expect(r.disabled).toEqual([]);
    // installURL is the reference implementation's name for install: read, not warned about.
    expect(r.manifest?.install).toBe('https://example.com/future-agent');
  });

  it('skills is the folder; the object form { "dir": … } is read as its dir', () => {
    expect(sample('skills-string.json')).toMatchObject({ manifest: { skills: '~/.skill-folder/skills' }, warnings: [] });
    const r = sample('skills-object.json');
    expect(r.manifest?.skills).toBe('~/.skillful/skills');
    expect(r.warnings).toEqual(['skills-object.json: skills: read as its "dir"; write the folder itself, e.g. "skills": "~/.agent/skills"']);
  });

  it('an unknown hook type or dialect: the manifest loads without hooks (and without a resume that needed them)', () => {
    const type = sample('hooks-unknown-type.json');
    expect(type.manifest?.hooks).toBeUndefined();
    expect(type.disabled).toEqual([{ feature: 'hooks', reason: 'unknown hook type "wasm" (known: "json", "toml", "plugin" or "scripts")' }]);
    const dialect = sample('hooks-unknown-dialect.json');
    expect(dialect.manifest?.hooks).toBeUndefined();
    expect(dialect.manifest?.resume).toBeUndefined();
    expect(dialect.disabled.map((d) => d.feature)).toEqual(['hooks', 'resume']);
    expect(dialect.disabled[0]?.reason).toBe('no "plugin" hook dialect "ext-agent" in this version (known: "opencode" or "opencode2")');
  });

  it('keeps promptTitle, tool, capturesTranscript, progressStatus, wire and order', () => {
    const r = sample('hook-details.json');
    expect(r).toMatchObject({ warnings: [], disabled: [] });
    expect(r.manifest).toMatchObject({
      wire: 'detail',
      order: 42,
      progressStatus: true,
      hooks: { tool: 'tool_name', promptTitle: 'prompt', capturesTranscript: true },
    });
  });

  it('seed "session-file" and transcriptName load; an unknown seed is turned off', () => {
    expect(sample('seed-session-file.json')).toMatchObject({ manifest: { resume: { seed: 'session-file' } }, warnings: [], disabled: [] });
    expect(sample('transcript-in-folder.json')).toMatchObject({ manifest: { resume: { transcriptName: 'history.jsonl' } }, warnings: [] });
    const r = sample('seed-unknown.json');
    expect(r.disabled).toEqual([{ feature: 'seed', reason: 'unknown seed "database-row" (known: "session-file")' }]);
    expect(r.manifest?.resume?.seed).toBeUndefined();
    expect(manifestResumeFamily(r.manifest!)).toBe('pinned');
  });
});
