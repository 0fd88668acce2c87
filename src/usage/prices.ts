/**
 * Pure: what a model's tokens cost (docs/usage.md). Prices are US dollars
 * per million tokens. The defaults cover the models of the pinned agents;
 * `prices` in macs.config.json adds models or replaces an entry. A model
 * with no entry has no cost (null), never a guess: a name matches an entry
 * exactly, or as that entry plus a release date (`claude-sonnet-4-5` prices
 * `claude-sonnet-4-5-20250929`), nothing looser.
 */
import type { ModelPrice } from '../config/schema.js';
import type { UsageFigures } from './types.js';

/**
 * The default table: the vendors' list prices for the standard tier
 * (prompts within the base context size). docs/usage.md lists them with
 * where and when each was checked (the OpenAI and Gemini rows on
 * 2026-11-27, against pages quoting the vendors). Override what differs.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic (Claude Code 2.1.197 asks for claude-opus-4-8): cache writes
  // 1.25× input for 5 minutes, 2× for an hour; cache reads 0.1× (Opus 5.5: 0.05×).
  'claude-opus-5-5': {
    input: 4,
    output: 20,
    cacheRead: 0.2,
    cacheWrite: 5,
    cacheWrite1h: 8,
  },
  'claude-opus-5': {
    input: 5,
    output: 25,
    cacheRead: 0.5,
    cacheWrite: 6.25,
    cacheWrite1h: 10,
  },
  'claude-opus-4-8': {
    input: 5,
    output: 25,
    cacheRead: 0.5,
    cacheWrite: 6.25,
    cacheWrite1h: 10,
  },
  'claude-opus-4-5': {
    input: 5,
    output: 25,
    cacheRead: 0.5,
    cacheWrite: 6.25,
    cacheWrite1h: 10,
  },
  'claude-sonnet-4-5': {
    input: 3,
    output: 15,
    cacheRead: 0.3,
    cacheWrite: 3.75,
    cacheWrite1h: 6,
  },
  'claude-haiku-4-5': {
    input: 1,
    output: 5,
    cacheRead: 0.1,
    cacheWrite: 1.25,
    cacheWrite1h: 2,
  },
  // OpenAI (Codex): cached input 0.1× input; cache writes cost nothing.
  'gpt-5-codex': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5.2': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.2-codex': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.3-codex': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.4': { input: 2.5, output: 15, cacheRead: 0.25 },
  // Google (Gemini CLI): prompts up to 200k tokens; thoughts are output.
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.03 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.01 },
};

/** The price table in use: the defaults, then the config's entries. */
export function priceTable(
  overrides: Readonly<Record<string, ModelPrice>> = {},
): Record<string, ModelPrice> {
  return { ...DEFAULT_PRICES, ...overrides };
}

/** A release date after a model's name: `-20250929`, `-2025-09-29`, `@20250929`. */
const DATED = /^[-@](\d{8}|\d{4}-\d{2}-\d{2})$/;

/** The entry of a model: exact, else the entry the name is a dated release of. */
export function findPrice(
  table: Readonly<Record<string, ModelPrice>>,
  model: string | null,
): ModelPrice | undefined {
  if (!model) return undefined;
  if (Object.hasOwn(table, model)) return table[model];
  for (const [name, price] of Object.entries(table))
    if (model.startsWith(name) && DATED.test(model.slice(name.length)))
      return price;
  return undefined;
}

/**
 * The cost of some figures at a price, in dollars; null when a figure that
 * is more than zero has no price (a cache read of a table entry without
 * `cacheRead`, a one-hour cache write without `cacheWrite1h`).
 */
export function costOf(
  figures: UsageFigures,
  price: ModelPrice | undefined,
): number | null {
  if (!price) return null;
  const hour = figures.cacheWrite1hTokens ?? 0;
  const parts: [number, number | undefined][] = [
    [figures.inputTokens ?? 0, price.input],
    [figures.outputTokens ?? 0, price.output],
    [figures.cacheReadTokens ?? 0, price.cacheRead],
    [(figures.cacheWriteTokens ?? 0) - hour, price.cacheWrite],
    [hour, price.cacheWrite1h],
  ];
  let cost = 0;
  for (const [tokens, perMillion] of parts) {
    if (tokens <= 0) continue;
    if (perMillion === undefined) return null;
    cost += (tokens * perMillion) / 1_000_000;
  }
  return cost;
}
