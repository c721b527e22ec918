// The transcript readers on transcripts the real CLIs wrote (test/fixtures/history/README.md says
// which release wrote each), and the path globs and price arithmetic beside them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addUsage, compileHistoryGlob, emptyTotals, priceOf, PRICE_TABLE, readTranscriptText, withUserPrices } from '../../src/protocol/history';
import type { HistoryFormat } from '../../src/protocol/manifestSchema';

const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'history', name), 'utf8');
const read = (format: HistoryFormat, name: string, hints = {}) => readTranscriptText(format, fixture(name), hints);

describe('transcript readers on real transcripts', () => {
  it('Claude Code 2.1.337: id, folder, prompt, reply, model and usage', () => {
    const { conversation: c, problems } = read('claude-jsonl', 'claude-2.1.337.jsonl');
    expect(problems).toEqual([]);
    expect(c.id).toBe('c7576f42-5c60-43bf-9cae-98a3dffa60a7');
    expect(c.cwd).toMatch(/\/cap-[^/]+\/proj$/);
    expect(c.title).toBe('Tell me about the flaky upload test');
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Tell me about the flaky upload test'],
      ['assistant', 'First answer mentions ZEBRAFISH.'],
    ]);
    expect(c.model).toBe('claude-opus-5-5');
    expect(c.usage).toEqual([{ at: c.turns[1]!.at, model: 'claude-opus-5-5', input: 12272, output: 8, cacheRead: 0, cacheWrite: 0 }]);
    expect(c.startedAt! <= c.lastActivity!).toBe(true);
  });

  it('Codex 0.171.0: the user prompt without the environment context, the token_count growth as usage', () => {
    const { conversation: c, problems } = read('codex-rollout', 'codex-0.171.0.jsonl');
    expect(problems).toEqual([]);
    expect(c.id).toBe('01a25249-61f2-78a3-a8c4-bfb38cb89309');
    expect(c.cwd).toMatch(/\/proj$/);
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Tell me about the flaky upload test'],
      ['assistant', 'First answer mentions ZEBRAFISH.'],
    ]);
    expect(c.model).toBe('gpt-6.2-sol');
    expect(c.usage.map(({ input, output, cacheRead }) => ({ input, output, cacheRead }))).toEqual([{ input: 15532, output: 8, cacheRead: 0 }]);
  });

  it('Gemini CLI 0.61.0: the header id, the folder from the hint, the context block left out', () => {
    const { conversation: c, problems } = read('gemini-jsonl', 'gemini-0.61.0.jsonl', { cwd: '/p/proj' });
    expect(problems).toEqual([]);
    expect(c.id).toBe('24616263-12a9-41cf-9398-958633db2914');
    expect(c.cwd).toBe('/p/proj');
    expect(c.title).toBe('Tell me about the flaky upload test');
    expect(c.turns.map((t) => t.text)).toEqual(['Tell me about the flaky upload test', 'First answer mentions ZEBRAFISH.']);
    expect(c.usage).toEqual([expect.objectContaining({ model: 'gemini-3.1-pro-preview', input: 9707, output: 8 })]);
  });

  it('Gemini CLI in the matrix: a message rewritten with its tool call and the list rewritten on relaunch count once', () => {
    const { conversation: c } = read('gemini-jsonl', 'gemini-matrix-two-turns.jsonl');
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Create the probe file'],
      ['assistant', "I'll run `touch probe.txt`."],
      ['assistant', 'Created it. zephyr015560'],
      ['user', 'Try again'],
    ]);
    expect(c.usage.map((u) => u.input + u.output)).toEqual([12098, 12216]);
  });

  it('Qwen Code 0.24.4: its own records, usage from usageMetadata', () => {
    const { conversation: c, problems } = read('qwen-jsonl', 'qwen-0.24.4.jsonl');
    expect(problems).toEqual([]);
    expect(c.id).toBe('85cb31aa-371d-4be6-94af-0fd45293a982');
    expect(c.turns.map((t) => t.text)).toEqual(['Tell me about the flaky upload test', 'First answer mentions ZEBRAFISH.']);
    expect(c.usage).toEqual([expect.objectContaining({ model: 'loopback-model', input: 15039, output: 8, cacheRead: 0 })]);
  });

  it('Copilot CLI 1.0.102: session start, prompt, reply and its usage record', () => {
    const { conversation: c, problems } = read('copilot-events', 'copilot-1.0.102.jsonl');
    expect(problems).toEqual([]);
    expect(c.id).toBe('44f148aa-9d59-4f0c-91b3-a8ad2179cf02');
    expect(c.cwd).toMatch(/\/proj$/);
    expect(c.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Tell me about the flaky upload test'],
      ['assistant', 'First answer mentions ZEBRAFISH.'],
    ]);
    expect(c.usage).toEqual([expect.objectContaining({ model: 'loopback-model', input: 11991, output: 8, cacheRead: 0, cacheWrite: 0 })]);
  });

  it('a broken line and a cut-off last line are noted with their numbers, the rest is read', () => {
    const text = fixture('qwen-0.24.4.jsonl').replace('\n', '\n{"oops\n') + '{"uuid":"x","type":"assist';
    const { conversation: c, problems } = readTranscriptText('qwen-jsonl', text);
    expect(problems.map((p) => p.line)).toEqual([2, text.split('\n').length]);
    expect(problems[0]!.message).toMatch(/^not JSON/);
    expect(c.turns).toHaveLength(2);
  });

  it('a Claude reply streamed as two lines with the same message id counts its usage once', () => {
    const line = (uuid: string, text: string) =>
      JSON.stringify({
        type: 'assistant',
        uuid,
        sessionId: 's',
        timestamp: '2026-01-01T00:00:00Z',
        message: {
          id: 'm1',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text }],
          usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
        },
      });
    const { conversation: c } = readTranscriptText('claude-jsonl', [line('a', 'one'), line('b', 'two')].join('\n'));
    expect(c.turns.map((t) => t.text)).toEqual(['one', 'two']);
    expect(c.usage).toHaveLength(1);
  });
});

describe('history path globs', () => {
  it('watches the literal folder and matches files at the pattern depth', () => {
    const g = compileHistoryGlob('~/.claude/projects/*/*.jsonl', '/home/u');
    expect([g.root, g.depth]).toEqual(['/home/u/.claude/projects', 1]);
    expect(g.matches('/home/u/.claude/projects/-p/abc.jsonl')).toBe(true);
    expect(g.matches('/home/u/.claude/projects/-p/abc/subagents/x.jsonl')).toBe(false);
    expect(g.matches('/home/u/.claude/projects/abc.jsonl')).toBe(false);
  });

  it('"**" spans any folders, none included', () => {
    const g = compileHistoryGlob('/data/codex/sessions/**/rollout-*.jsonl', '/home/u');
    expect([g.root, g.depth]).toEqual(['/data/codex/sessions', Infinity]);
    expect(g.matches('/data/codex/sessions/2026/12/07/rollout-x.jsonl')).toBe(true);
    expect(g.matches('/data/codex/sessions/rollout-x.jsonl')).toBe(true);
    expect(g.matches('/data/codex/sessions/2026/other.jsonl')).toBe(false);
  });
});

describe('prices', () => {
  it('a dated snapshot has its model price; an unknown model has none, not a neighbour', () => {
    expect(priceOf('claude-sonnet-4-5-20250929', PRICE_TABLE)).toBe(PRICE_TABLE.models['claude-sonnet-4-5']);
    expect(priceOf('claude-sonnet-4-7', PRICE_TABLE)).toBeNull();
    expect(priceOf('gpt-5.1', PRICE_TABLE)).toBeNull();
  });

  it('costs sum per token kind; unpriced tokens are counted and named', () => {
    const table = withUserPrices(PRICE_TABLE, { mine: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 4 } });
    const t = emptyTotals();
    addUsage(t, { model: 'mine', input: 1_000_000, output: 500_000, cacheRead: 2_000_000, cacheWrite: 250_000 }, table);
    addUsage(t, { model: 'mystery', input: 7, output: 3, cacheRead: 0, cacheWrite: 0 }, table);
    expect(t).toEqual({ input: 1_000_007, output: 500_003, cacheRead: 2_000_000, cacheWrite: 250_000, cost: 1 + 1 + 1 + 1, unpriced: ['mystery'] });
  });
});
