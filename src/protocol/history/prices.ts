// The price table `termio usage` estimates cost from: model → US dollars per million tokens for
// input, output, cache reads and cache writes, as the vendors published them on the table's date.
// A model the table does not name exactly (or with a release date after it, "-20250929") has no
// price: its tokens are shown with "price unknown", never a neighbour's price. The user's
// settings may add models or replace prices (settings.json "prices"). Pure data and arithmetic.
import type { TurnUsage } from './conversation';

export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface PriceTable {
  /** The day the prices were read off the vendors' pages (YYYY-MM-DD). */
  date: string;
  models: Record<string, ModelPrice>;
}

const anthropic = (input: number, output: number): ModelPrice => ({ input, output, cacheRead: input / 10, cacheWrite: input * 1.25 });
const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({ input, output, cacheRead, cacheWrite: input });
const google = (input: number, output: number, cacheRead: number): ModelPrice => ({ input, output, cacheRead, cacheWrite: input });

/** List prices for the standard tier (prompts up to 200k tokens where a model has tiers); cache writes at the 5-minute rate. */
export const PRICE_TABLE: PriceTable = {
  date: '2025-11-01',
  models: {
    'claude-opus-4-5': anthropic(5, 25),
    'claude-opus-4-1': anthropic(15, 75),
    'claude-opus-4': anthropic(15, 75),
    'claude-sonnet-4-5': anthropic(3, 15),
    'claude-sonnet-4': anthropic(3, 15),
    'claude-3-7-sonnet': anthropic(3, 15),
    'claude-haiku-4-5': anthropic(1, 5),
    'claude-3-5-haiku': anthropic(0.8, 4),
    'gpt-5': openai(1.25, 10, 0.125),
    'gpt-5-codex': openai(1.25, 10, 0.125),
    'gpt-5-mini': openai(0.25, 2, 0.025),
    'gpt-5-nano': openai(0.05, 0.4, 0.005),
    'gpt-4.1': openai(2, 8, 0.5),
    'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
    'gemini-2.5-pro': google(1.25, 10, 0.125),
    'gemini-2.5-flash': google(0.3, 2.5, 0.03),
    'gemini-2.5-flash-lite': google(0.1, 0.4, 0.01),
  },
};

/** A vendor's dated snapshot of a model ("claude-sonnet-4-5-20250929", "gpt-4.1-2025-04-14"). */
const DATED_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The table's price of a model: its exact name, or the name without a release-date suffix; null when unknown. */
export function priceOf(model: string | null, table: PriceTable): ModelPrice | null {
  if (!model) return null;
  const own = (name: string) => (Object.hasOwn(table.models, name) ? table.models[name]! : null);
  return own(model) ?? own(model.replace(DATED_SUFFIX, ''));
}

/** The table with the user's prices laid over it (theirs win, model by model). */
export function withUserPrices(table: PriceTable, user: Record<string, ModelPrice> | undefined): PriceTable {
  return user ? { date: table.date, models: { ...table.models, ...user } } : table;
}

export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars for the tokens whose model has a price. */
  cost: number;
  /** Models seen without a price: their tokens are counted, their cost is not. */
  unpriced: string[];
}

export function emptyTotals(): UsageTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unpriced: [] };
}

/** Adds one turn's usage into totals (mutates and returns them). */
export function addUsage(totals: UsageTotals, u: Pick<TurnUsage, 'model' | 'input' | 'output' | 'cacheRead' | 'cacheWrite'>, table: PriceTable): UsageTotals {
  totals.input += u.input;
  totals.output += u.output;
  totals.cacheRead += u.cacheRead;
  totals.cacheWrite += u.cacheWrite;
  const p = priceOf(u.model, table);
  if (p) totals.cost += (u.input * p.input + u.output * p.output + u.cacheRead * p.cacheRead + u.cacheWrite * p.cacheWrite) / 1e6;
  else {
    const name = u.model ?? 'unknown model';
    if (!totals.unpriced.includes(name)) totals.unpriced.push(name);
  }
  return totals;
}
