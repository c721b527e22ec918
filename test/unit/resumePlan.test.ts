// Resume planning rules (src/protocol/resumePlan.ts): every branch of both families, id
// substitution per argv token, odd ids.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildTemplateArgs,
  checkConversationId,
  describeResume,
  planResume,
  resumeFamilyOf,
  type ResumeManifestInput,
  type ResumeSessionInput,
} from '../../src/protocol/resumePlan';

const pinned: ResumeManifestInput = {
  id: 'grok',
  command: 'grok',
  permissionBypassFlag: '--yolo',
  resume: { create: '--session-id {id}', resume: '--resume {id}', storeRoot: '~/.grok/sessions', storeMatch: 'dir:{id}' },
};
const discovered: ResumeManifestInput = {
  id: 'codex',
  command: 'codex',
  permissionBypassFlag: '--dangerously-bypass-approvals-and-sandbox',
  resume: { resume: 'resume {id}', discover: { root: '~/.codex/sessions', format: 'jsonl', id: 'payload.id', cwd: 'payload.cwd' } },
};
const plain: ResumeManifestInput = { id: 'aider', command: 'aider', permissionBypassFlag: '--yes-always' };

const session = (over: Partial<ResumeSessionInput> = {}): ResumeSessionInput => ({
  agentId: 'grok',
  conversationId: null,
  family: null,
  bypass: false,
  ...over,
});
const ID = '0b7f7c55-4c1e-4b55-9a55-7d0f3d1b2a10';
const NEW = 'f3a0c2de-0000-4000-8000-000000000001';

describe('planResume: pinned family', () => {
  it('creates under the minted id when nothing is bound', () => {
    expect(planResume(pinned, session(), { newId: NEW })).toEqual({
      family: 'pinned',
      conversationId: NEW,
      mode: 'create',
      argv: ['grok', '--session-id', NEW],
      why: 'New conversation under a Termio-minted id.',
    });
  });
  it('resumes a bound id whose record exists', () => {
    const plan = planResume(pinned, session({ conversationId: ID, family: 'pinned' }), { pinnedRecordExists: true, newId: NEW });
    expect(plan).toMatchObject({ mode: 'resume', conversationId: ID, argv: ['grok', '--resume', ID] });
  });
  it('creates with the same id when the agent never wrote the record', () => {
    const plan = planResume(pinned, session({ conversationId: ID, family: 'pinned' }), { pinnedRecordExists: false, newId: NEW });
    expect(plan).toMatchObject({ mode: 'create', conversationId: ID, argv: ['grok', '--session-id', ID] });
    expect(plan.why).toMatch(/never wrote/);
  });
  it('treats a bound id of unknown origin (older state) as Termio-minted', () => {
    const plan = planResume(pinned, session({ conversationId: ID, family: null }), { pinnedRecordExists: false });
    expect(plan).toMatchObject({ mode: 'create', conversationId: ID });
  });
  it('resumes a discovered id whose record exists but never creates under it', () => {
    const s = session({ conversationId: 'ses_abc', family: 'discovered' });
    expect(planResume(pinned, s, { pinnedRecordExists: true })).toMatchObject({ mode: 'resume', conversationId: 'ses_abc' });
    expect(planResume(pinned, s, { pinnedRecordExists: false, newId: NEW })).toMatchObject({
      mode: 'create',
      conversationId: NEW,
      argv: ['grok', '--session-id', NEW],
    });
  });
  it('appends the bypass flag after the resume arguments', () => {
    expect(planResume(pinned, session({ bypass: true }), { newId: NEW }).argv).toEqual(['grok', '--session-id', NEW, '--yolo']);
    const multi = { ...pinned, permissionBypassFlag: '--permission-mode auto' };
    expect(planResume(multi, session({ bypass: true, conversationId: ID }), { pinnedRecordExists: true }).argv).toEqual([
      'grok',
      '--resume',
      ID,
      '--permission-mode',
      'auto',
    ]);
  });
  it('says when bypass is asked for but the manifest has no flag', () => {
    const plan = planResume({ ...pinned, permissionBypassFlag: undefined }, session({ bypass: true }), { newId: NEW });
    expect(plan.argv).toEqual(['grok', '--session-id', NEW]);
    expect(plan.why).toMatch(/declares no permissionBypassFlag/);
  });
  it('launches fresh when a template lacks {id}', () => {
    const bad = { ...pinned, resume: { ...pinned.resume!, create: '--new' } };
    expect(planResume(bad, session(), { newId: NEW })).toMatchObject({
      mode: 'fresh',
      argv: ['grok'],
      conversationId: null,
      why: expect.stringMatching(/create has no \{id\}/),
    });
    const bad2 = { ...pinned, resume: { ...pinned.resume!, resume: '--continue' } };
    expect(planResume(bad2, session(), { newId: NEW }).why).toMatch(/resume has no \{id\}/);
  });
  it('throws (a host bug) when facts it needs are missing', () => {
    expect(() => planResume(pinned, session())).toThrow(/newId/);
    expect(() => planResume(pinned, session({ conversationId: ID }))).toThrow(/pinnedRecordExists/);
    expect(() => planResume(pinned, session(), { newId: '../x' })).toThrow(/unusable/);
    expect(() => planResume(discovered, session())).toThrow(/agent "grok" planned with manifest "codex"/);
  });
});

describe('planResume: discovered family', () => {
  const s = (over: Partial<ResumeSessionInput> = {}) => session({ agentId: 'codex', ...over });
  it('launches fresh when nothing is bound (the watcher binds later)', () => {
    expect(planResume(discovered, s())).toEqual({
      family: 'discovered',
      conversationId: null,
      mode: 'fresh',
      argv: ['codex'],
      why: 'No conversation bound yet; launching fresh and watching for its record.',
    });
  });
  it('resumes a bound id with the bypass flag appended', () => {
    expect(planResume(discovered, s({ conversationId: ID, family: 'discovered', bypass: true }))).toMatchObject({
      mode: 'resume',
      conversationId: ID,
      argv: ['codex', 'resume', ID, '--dangerously-bypass-approvals-and-sandbox'],
    });
  });
  it('never resumes an id Termio minted for a pinned launch', () => {
    expect(planResume(discovered, s({ conversationId: ID, family: 'pinned' }))).toMatchObject({
      mode: 'fresh',
      argv: ['codex'],
      why: expect.stringMatching(/cannot be confirmed/),
    });
  });
  it('launches fresh when the resume template lacks {id}', () => {
    const bad = { ...discovered, resume: { ...discovered.resume!, resume: 'resume --last' } };
    expect(planResume(bad, s({ conversationId: ID, family: 'discovered' }))).toMatchObject({ mode: 'fresh', argv: ['codex'] });
  });
});

describe('planResume: no resume block', () => {
  it('launches fresh, with bypass', () => {
    expect(planResume(plain, session({ agentId: 'aider', conversationId: ID, bypass: true }))).toMatchObject({
      family: 'none',
      mode: 'fresh',
      argv: ['aider', '--yes-always'],
      conversationId: null,
    });
    expect(resumeFamilyOf({})).toBe('none');
  });
  it('launches the login shell (empty argv) for a manifest without a command', () => {
    const terminal: ResumeManifestInput = { id: 'terminal' };
    expect(planResume(terminal, session({ agentId: 'terminal', bypass: true }))).toMatchObject({ family: 'none', mode: 'fresh', argv: [] });
  });
  it('treats a resume template alone as discovered (bound by a hook only)', () => {
    const hookOnly: ResumeManifestInput = { id: 'droid', command: 'droid', resume: { resume: '--resume {id}' } };
    expect(resumeFamilyOf(hookOnly.resume)).toBe('discovered');
    expect(planResume(hookOnly, session({ agentId: 'droid', conversationId: ID, family: 'discovered' }))).toMatchObject({
      mode: 'resume',
      argv: ['droid', '--resume', ID],
    });
    expect(planResume(hookOnly, session({ agentId: 'droid' }))).toMatchObject({ mode: 'fresh', argv: ['droid'] });
  });
});

describe('odd ids', () => {
  const odd = ['a b', '"quoted"', "it's", '$(rm -rf ~)', '`id`', ';ls', '{id}', 'ünï-côdé-🙂', 'a.b', 'C:x'];
  it.each(odd)('%s stays one argv element, verbatim', (id) => {
    const plan = planResume(pinned, session({ conversationId: id, family: 'pinned' }), { pinnedRecordExists: true });
    expect(plan.argv).toEqual(['grok', '--resume', id]);
  });
  const unsafe: Array<[string, RegExp]> = [
    ['', /empty/],
    ['../../etc', /separator/],
    ['..', /'\.\.'/],
    ['a/b', /separator/],
    ['a\\b', /separator/],
    ['x\u0000y', /control/],
    ['line\nbreak', /control/],
    ['--dangerously-skip-permissions', /flag/],
    ['x'.repeat(201), /at most 200/],
  ];
  it.each(unsafe)('%j is refused and the session launches fresh', (id, why) => {
    expect(checkConversationId(id)).toMatch(why);
    const plan = planResume(pinned, session({ conversationId: id, family: 'pinned' }), { pinnedRecordExists: true, newId: NEW });
    expect(plan).toMatchObject({ mode: 'fresh', conversationId: null, argv: ['grok'] });
    expect(plan.why).toMatch(/unusable/);
  });
  it('substitutes inside a token and every occurrence', () => {
    expect(buildTemplateArgs('--session-id={id}  --tag x{id}y{id} ', 'a b')).toEqual(['--session-id=a b', '--tag', 'xa bya b']);
  });
  it('property: a safe id always lands in exactly the templated tokens, whatever its characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 60, unit: 'binary' }), (id) => {
        if (checkConversationId(id) !== null) return;
        const plan = planResume(pinned, session({ conversationId: id, family: 'pinned' }), { pinnedRecordExists: true });
        expect(plan.argv).toEqual(['grok', '--resume', id]);
      }),
      { numRuns: 2000 },
    );
  });
  it('rejects non-strings', () => {
    expect(checkConversationId(null)).toMatch(/got null/);
    expect(checkConversationId(42)).toMatch(/got number/);
  });
});

describe('describeResume', () => {
  it('shows family, bound id and the exact argv', () => {
    const d = describeResume(session({ conversationId: ID, family: 'pinned', bypass: true }), pinned, { pinnedRecordExists: true });
    expect(d).toEqual({
      agentId: 'grok',
      family: 'pinned',
      boundId: ID,
      boundFamily: 'pinned',
      plan: { mode: 'resume', argv: ['grok', '--resume', ID, '--yolo'], why: expect.any(String), conversationId: ID },
      why: expect.stringMatching(/resuming it\. Permission bypass is on\./),
    });
  });
  it('shows a placeholder instead of minting an id for a new pinned session', () => {
    expect(describeResume(session(), pinned).plan?.argv).toEqual(['grok', '--session-id', '{id}']);
  });
  it('reports a missing manifest', () => {
    expect(describeResume(session({ agentId: 'gone' }), null)).toMatchObject({ family: 'unknown', plan: null, why: 'No manifest is loaded for agent "gone".' });
  });
});
