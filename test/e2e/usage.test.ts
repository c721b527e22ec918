// The Usage window in the real app under Xvfb: a Claude Code transcript (the recorded fixture's
// lines with our own token counts, on three days, one of them 40 days back with a model the price
// table lacks) is written in a temporary HOME before the host starts; the host indexes it, the
// window opens with its shortcut, and the figures it shows equal the sums of the transcript's
// records: per agent, per day, in total and in the 30-day chart (which leaves the old day out and
// so shows dollars). Screenshots in both themes (test-output/screenshots/usage-*.png).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor';
import { AppUnderTest, Display, e2eSkipReason, readPixels, useDesktop } from './harness';

const usageKey = process.platform === 'darwin' ? 'super+shift+u' : 'ctrl+alt+u';
const fixture = join(__dirname, '..', 'fixtures', 'history', 'claude-2.1.337.jsonl');
/** claude-sonnet-4-5's list prices, $ per million tokens: input, output, cache read, cache write. */
const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

interface Reply {
  daysAgo: number;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const replies: Reply[] = [
  { daysAgo: 0, model: 'claude-sonnet-4-5', input: 200_000, output: 20_000, cacheRead: 1_000_000, cacheWrite: 40_000 },
  { daysAgo: 2, model: 'claude-sonnet-4-5', input: 100_000, output: 10_000, cacheRead: 0, cacheWrite: 0 },
  // No price for this one: its tokens count, its cost is unknown.
  { daysAgo: 40, model: 'claude-opus-5-5', input: 12_272, output: 8, cacheRead: 0, cacheWrite: 0 },
];

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
const n = (x: number) => x.toLocaleString('en-US');
const sum = (rs: Reply[], k: 'input' | 'output' | 'cacheRead' | 'cacheWrite') => rs.reduce((s, r) => s + r[k], 0);
const cost = (rs: Reply[]) =>
  rs
    .filter((r) => r.model === 'claude-sonnet-4-5')
    .reduce((s, r) => s + (['input', 'output', 'cacheRead', 'cacheWrite'] as const).reduce((c, k) => c + (r[k] * SONNET[k]) / 1e6, 0), 0);

/** The fixture's prompt and reply, once per entry of `replies`, each reply with its own id, day, model and usage. */
function writeTranscript(home: string): void {
  const [user, assistant] = readFileSync(fixture, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"user"') || l.includes('"type":"assistant"'))
    .map((l) => JSON.parse(l) as Record<string, unknown> & { message: Record<string, unknown> });
  const lines = replies.flatMap((r, i) => {
    const at = new Date(Date.now() - r.daysAgo * 86_400_000).toISOString();
    const usage = { input_tokens: r.input, output_tokens: r.output, cache_read_input_tokens: r.cacheRead, cache_creation_input_tokens: r.cacheWrite };
    return [
      { ...user, uuid: `u${i}`, timestamp: at },
      { ...assistant, uuid: `a${i}`, timestamp: at, message: { ...assistant!.message, id: `msg_${i}`, model: r.model, usage } },
    ];
  });
  const dir = join(home, '.claude', 'projects', '-tmp-proj');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${String(user!.sessionId)}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

function writeSettings(home: string, theme: 'dark' | 'light'): void {
  mkdirSync(join(home, '.termio', 'config'), { recursive: true });
  writeFileSync(join(home, '.termio', 'config', 'settings.json'), `${JSON.stringify({ welcomeShown: true, terminal: { theme } }, null, 2)}\n`);
}

type Shown = { total: string[]; agents: string[][]; days: string[][]; chart: { unit: string; total: string; bars: string[] } };

describe.skipIf(e2eSkipReason)('usage window', () => {
  let display: Display;
  let app: AppUnderTest | undefined;
  useDesktop({ size: '1400x900x24', started: (d) => (display = d), current: () => app, done: () => (app = undefined) });

  it("shows the sums of a transcript's token records per agent and per day, with its cost", async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'termio-e2e-')));
    writeTranscript(home);
    writeSettings(home, 'dark');
    app = await AppUnderTest.launch(display, { home });
    const win = await app.waitForWindow();
    /** The n-th time the window showed its figures (it logs the cells it drew). */
    const shown = async (nth: number): Promise<Shown> => {
      const line = await waitFor(() => [...app!.log().matchAll(/usage shown (\{.*\})/g)][nth - 1], { what: `the usage window's figures (${nth})` });
      return JSON.parse(line[1]!) as Shown;
    };
    // The host has read the transcript (what `termio history status` says) before the window asks.
    await waitFor(
      async () => {
        const r = await app!.cli(['history', 'status', '--json']);
        const p = r.code === 0 ? (JSON.parse(r.stdout) as { scanned: boolean; indexing: boolean; conversations: number }) : null;
        return p?.scanned && !p.indexing && p.conversations === 1;
      },
      { what: 'the history index to hold the transcript' },
    );
    display.xdotool('windowfocus', '--sync', win);
    display.xdotool('key', usageKey);
    await app.waitForWindow('Usage');
    let times = 1;
    const first = await shown(times);
    const priced = replies.filter((r) => r.daysAgo < 30);
    const figures = (rs: Reply[], money: string) => [n(sum(rs, 'input')), n(sum(rs, 'output')), n(sum(rs, 'cacheRead')), n(sum(rs, 'cacheWrite')), money];
    expect(first.total).toEqual(['total', ...figures(replies, `$${cost(replies).toFixed(2)} + price unknown`)]);
    expect(first.agents).toEqual([['Claude Code', ...figures(replies, `$${cost(replies).toFixed(2)} + price unknown`)]]);
    expect(first.days).toEqual(
      replies.map((r) => [day(r.daysAgo), ...figures([r], r.model === 'claude-sonnet-4-5' ? `$${cost([r]).toFixed(2)}` : 'price unknown')]),
    );
    // The chart's 30 days hold only priced models: dollars, the two days with use, the old one left out.
    expect(first.chart.unit).toBe('cost');
    expect(first.chart.total).toBe(`$${cost(priced).toFixed(2)} in 30 days`);
    expect(first.chart.bars).toHaveLength(2);
    app.screenshot('usage-dark');

    writeSettings(home, 'light');
    await app.waitForLog(/appearance \{"appearance":"light","why":"settings changed"\}/);
    // Restyled, it draws the same figures again.
    expect(await shown(++times)).toEqual(first);
    // The restyled window on screen (its corner light), not the frame before Qt painted it.
    await waitFor(
      () => {
        const [corner] = readPixels(app!.screenshot('usage-light'), 5, 5, 1, 1);
        return corner!.r > 200 && corner!.g > 200 && corner!.b > 200;
      },
      { what: 'the usage window painted light' },
    );
  });
});
