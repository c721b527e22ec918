// How the Usage window reads: short token counts, a cost only where the price table has the model,
// and the last 30 days as bars (dollars, or tokens when a model there has no price).
import { describe, expect, it } from 'vitest';
import type { UsageTokens } from '../../../src/protocol/controlHistory';
import { compactTokens, conversationCostText, costText, dayTitle, dollars, usageChart, usageRowCells } from '../../../src/app/present/usageText';

const t = (over: Partial<UsageTokens> = {}): UsageTokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unpriced: [], ...over });

describe('usage text', () => {
  it('shortens token counts to a table cell', () => {
    expect([0, 980, 1000, 12_345, 123_456, 4_500_000, 2_000_000_000].map(compactTokens)).toEqual(['0', '980', '1k', '12.3k', '123k', '4.5M', '2B']);
  });

  it('shows a cost only where the price table has the model, never a guess', () => {
    expect(dayTitle('2026-12-07')).toBe('Mon, Dec 7');
    expect(dollars(1234.5)).toBe('$1,234.50');
    expect(dollars(0.001)).toBe('<$0.01');
    expect(costText(t({ cost: 0.25 }))).toBe('$0.25');
    expect(costText(t({ cost: 0, unpriced: ['claude-opus-5-5'] }))).toBe('price unknown');
    expect(costText(t({ cost: 1.2, unpriced: ['x'] }))).toBe('$1.20 + price unknown');
    expect(usageRowCells('claude', t({ input: 12_272, output: 8, cost: 0.06 }))).toEqual(['claude', '12,272', '8', '0', '0', '$0.06']);
  });

  it('charts the last 30 days in dollars when every model is priced', () => {
    const c = usageChart(
      [
        { key: '2026-12-07', ...t({ cost: 2, input: 10 }) },
        { key: '2026-12-01', ...t({ cost: 1, input: 5 }) },
        { key: '2026-10-01', ...t({ cost: 9 }) },
      ],
      '2026-12-07',
    );
    expect(c.unit).toBe('cost');
    expect(c.bars).toHaveLength(30);
    expect(c.bars[0]!.day).toBe('2026-11-08');
    expect(c.bars.at(-1)).toMatchObject({ day: '2026-12-07', value: 2, text: 'Dec 7: $2.00', label: 'Dec 7' });
    expect(c.bars.find((b) => b.day === '2026-12-01')!.value).toBe(1);
    // The day outside the 30 counts for nothing.
    expect(c.max).toBe(2);
    expect(c.totalText).toBe('$3.00 in 30 days');
    expect(c.bars.filter((b) => b.label).map((b) => b.label)).toEqual(['Nov 9', 'Nov 16', 'Nov 23', 'Nov 30', 'Dec 7']);
  });

  it('charts tokens when a model in those days has no price', () => {
    const c = usageChart(
      [
        { key: '2026-12-07', ...t({ cost: 2, input: 1000, output: 500 }) },
        { key: '2026-12-06', ...t({ input: 3000, unpriced: ['m'] }) },
      ],
      '2026-12-07',
    );
    expect(c.unit).toBe('tokens');
    expect(c.title).toBe('Tokens per day, last 30 days');
    expect(c.bars.slice(-2).map((b) => b.value)).toEqual([3000, 1500]);
    expect(c.totalText).toBe('4.5k tokens in 30 days');
  });

  it("notes the session's conversation cost in the why strip, tokens when a model has no price", () => {
    expect(conversationCostText(t())).toBe('');
    expect(conversationCostText(t({ input: 1000, cost: 0.42 }))).toBe('$0.42 so far (est.)');
    expect(conversationCostText(t({ input: 12_272, output: 8, unpriced: ['claude-opus-5-5'] }))).toBe('12.3k tokens so far, price unknown');
  });
});
