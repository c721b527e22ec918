// What the Usage window says: token counts short enough for a table ("12.3k"), the estimated cost
// (never a guess: a model the price table lacks reads "price unknown"), and the bars of the last
// 30 days, in dollars when every day's models have a price, in tokens otherwise. Pure.
import type { UsageTokens } from '../../protocol/controlHistory';

/** How many days the chart shows, today included. */
export const CHART_DAYS = 30;

/** Every token a row counts: input, output and both kinds of cache. */
export function tokenSum(t: UsageTokens): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite;
}

/** "980", "12.3k", "4.5M": one decimal below a hundred of a unit, none above. */
export function compactTokens(n: number): string {
  const units: [number, string][] = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [size, suffix] of units) {
    if (n < size) continue;
    const v = n / size;
    return `${v < 100 ? (Math.round(v * 10) / 10).toString() : Math.round(v).toString()}${suffix}`;
  }
  return String(n);
}

/** Dollars with cents ("$0.25"; "<$0.01" for a little above nothing). */
export function dollars(cost: number): string {
  if (cost > 0 && cost < 0.005) return '<$0.01';
  return `$${cost.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** The cost cell: "$1.20", "$1.20 + price unknown" when some models have no price, or "price unknown". */
export function costText(t: UsageTokens): string {
  if (t.unpriced.length === 0) return dollars(t.cost);
  return t.cost > 0 ? `${dollars(t.cost)} + price unknown` : 'price unknown';
}

/** The tooltip of an unknown price: which models the table lacks. */
export function unpricedText(t: UsageTokens): string {
  return t.unpriced.length ? `No price for ${t.unpriced.join(', ')}: their tokens count, their cost is not estimated.` : '';
}

export interface ChartBar {
  /** YYYY-MM-DD (UTC, as the index keys days). */
  day: string;
  /** Dollars or tokens, as the chart's unit says. */
  value: number;
  /** The day and its figure, for the bar's tooltip. */
  text: string;
  /** A short day label under the bar, or '' where the axis skips one. */
  label: string;
}

export interface UsageChart {
  unit: 'cost' | 'tokens';
  /** Oldest first, one per day, CHART_DAYS of them (days without use are 0). */
  bars: ChartBar[];
  /** The tallest bar's value (the scale), at least 1 token or a cent. */
  max: number;
  /** The chart's heading: "Cost per day, last 30 days". */
  title: string;
  /** The sum over the days shown, in the unit. */
  totalText: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function dayLabel(day: string): string {
  const [, m, d] = day.split('-');
  return `${MONTHS[Number(m) - 1] ?? m} ${Number(d)}`;
}

/** The last CHART_DAYS days up to `today` (YYYY-MM-DD) from the `usage` verb's rows by day. Dollars
 *  when every model used in them has a price; tokens when one has none (a bar of a part would mislead). */
export function usageChart(rows: (UsageTokens & { key: string })[], today: string): UsageChart {
  const end = Date.parse(`${today}T00:00:00Z`);
  const days = Array.from({ length: CHART_DAYS }, (_, i) => new Date(end - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const byDay = new Map(rows.map((r) => [r.key, r]));
  const shown = days.map((d) => byDay.get(d)).filter((r): r is UsageTokens & { key: string } => r !== undefined);
  const unit = shown.some((r) => r.unpriced.length > 0) || !shown.some((r) => r.cost > 0) ? 'tokens' : 'cost';
  const valueOf = (r: UsageTokens | undefined) => (r ? (unit === 'cost' ? r.cost : tokenSum(r)) : 0);
  const figure = (v: number) => (unit === 'cost' ? dollars(v) : `${compactTokens(v)} tokens`);
  const bars = days.map((day, i) => {
    const value = valueOf(byDay.get(day));
    // A label every week, counted back from today, so today always has one.
    return { day, value, text: `${dayLabel(day)}: ${figure(value)}`, label: (CHART_DAYS - 1 - i) % 7 === 0 ? dayLabel(day) : '' };
  });
  const total = bars.reduce((s, b) => s + b.value, 0);
  return {
    unit,
    bars,
    max: Math.max(unit === 'cost' ? 0.01 : 1, ...bars.map((b) => b.value)),
    title: `${unit === 'cost' ? 'Cost' : 'Tokens'} per day, last ${CHART_DAYS} days`,
    totalText: `${figure(total)} in ${CHART_DAYS} days`,
  };
}

/** "1,234,567": a count in full, as the tables show it. */
export function fullTokens(n: number): string {
  return n.toLocaleString('en-US');
}

/** One row of the per-agent (or per-day) table: name, in, out, cache read, cache write, cost. */
export function usageRowCells(name: string, t: UsageTokens): string[] {
  return [name, fullTokens(t.input), fullTokens(t.output), fullTokens(t.cacheRead), fullTokens(t.cacheWrite), costText(t)];
}

/** A day key of the per-day table as it reads: "Mon, Dec 7" (UTC, as the index keys days). */
export function dayTitle(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  return `${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]}, ${dayLabel(day)}`;
}

export const USAGE_COLUMNS = ['', 'In', 'Out', 'Cache read', 'Cache write', 'Cost (est.)'];

/** The line under the title: what the prices are and where they come from. */
export function pricesText(prices: { date: string; overridden: string[] }): string {
  const yours = prices.overridden.length ? `, with your prices for ${prices.overridden.join(', ')}` : '';
  return `Estimated from list prices of ${prices.date}${yours}. Models without a price show their tokens only.`;
}

/** The why strip's note of what the session's conversation used so far: "$0.42 so far", or its
 *  tokens when a model has no price; '' before it has any token counts. */
export function conversationCostText(t: UsageTokens): string {
  if (tokenSum(t) === 0) return '';
  if (t.unpriced.length === 0) return `${dollars(t.cost)} so far (est.)`;
  return `${compactTokens(tokenSum(t))} tokens so far, price unknown`;
}
