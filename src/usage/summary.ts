/**
 * Pure: an agent's usage as status, `macs usage` and the MCP tools show it,
 * and where it stands against a budget (docs/usage.md).
 */
import type { Budget, ModelPrice } from '../config/schema.js';
import type { UsageFile } from './usage-ledger.js';
import { costOf, findPrice } from './prices.js';
import {
  addFigures,
  emptyTotals,
  tokenCount,
  type UsageFigures,
  type UsageTotals,
} from './types.js';

/** `agents[].usage` of `macs status --json` (null figures: not reported). */
export interface AgentUsage {
  /** The model of the latest call; null when the agent names none. */
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** Dollars at the price table; null when a model used has no price. */
  costUsd: number | null;
}

/** Cost of totals per model: null when any model's cost is unknown. */
export function costOfModels(
  models: readonly (UsageFigures & { model: string | null })[],
  prices: Readonly<Record<string, ModelPrice>>,
): number | null {
  let cost = 0;
  for (const m of models) {
    if (tokenCount(m) === 0) continue;
    const part = costOf(m, findPrice(prices, m.model));
    if (part === null) return null;
    cost += part;
  }
  return cost;
}

/** Round dollars to a hundredth of a cent, for showing. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}

export function summarizeUsage(
  file: UsageFile,
  prices: Readonly<Record<string, ModelPrice>>,
): AgentUsage {
  let totals: UsageTotals = emptyTotals();
  for (const m of file.models) totals = addFigures(totals, m, m.calls);
  const cost = costOfModels(file.models, prices);
  return {
    model: file.lastModel,
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    cacheReadTokens: totals.cacheReadTokens,
    cacheWriteTokens: totals.cacheWriteTokens,
    costUsd: cost === null ? null : roundUsd(cost),
  };
}

/** Where spending stands against a budget. */
export interface BudgetReading {
  /** The larger share of the budget used (dollars or tokens), 0…; null: unknown. */
  fraction: number | null;
  /** A dollar budget that cannot be checked: a model used has no price. */
  unpriced: boolean;
}

export function readBudget(
  budget: Budget,
  spent: { tokens: number; costUsd: number | null },
): BudgetReading {
  const shares: number[] = [];
  let unpriced = false;
  if (budget.tokens !== undefined) shares.push(spent.tokens / budget.tokens);
  if (budget.usd !== undefined) {
    if (spent.costUsd === null) unpriced = true;
    else shares.push(spent.costUsd / budget.usd);
  }
  return {
    fraction: shares.length ? Math.max(...shares) : null,
    unpriced,
  };
}

/** The thresholds a person hears of, in percent, once each. */
export const BUDGET_LEVELS = [80, 100] as const;
export type BudgetLevel = (typeof BUDGET_LEVELS)[number];

/** The highest level a reading has reached; undefined below the first. */
export function budgetLevel(reading: BudgetReading): BudgetLevel | undefined {
  if (reading.fraction === null) return undefined;
  let level: BudgetLevel | undefined;
  for (const l of BUDGET_LEVELS) if (reading.fraction * 100 >= l) level = l;
  return level;
}
