/**
 * Pure: `macs usage` rows, the ledger's entries grouped by agent, model or
 * day (UTC), each with its figures and cost (docs/usage.md).
 */
import type { ModelPrice } from '../config/schema.js';
import type { LedgerEntry } from './account.js';
import { costOf, findPrice } from './prices.js';
import { roundUsd } from './summary.js';
import { addFigures, emptyTotals, type UsageTotals } from './types.js';

export type UsageGrouping = 'agent' | 'model' | 'day';

export interface UsageRow {
  /** The agent's name, the model (`(unknown)` when unnamed) or the day. */
  key: string;
  calls: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** Null when a model of the row has no price. */
  costUsd: number | null;
}

export interface UsageReport {
  by: UsageGrouping;
  since: string | null;
  rows: UsageRow[];
  total: UsageRow;
}

/** A model's name in a row; calls whose record names no model. */
export const UNKNOWN_MODEL = '(unknown)';

export function buildUsageReport(
  entries: readonly (LedgerEntry & { agent: string })[],
  options: {
    by: UsageGrouping;
    since?: Date;
    prices: Readonly<Record<string, ModelPrice>>;
  },
): UsageReport {
  const since = options.since?.toISOString();
  const groups = new Map<
    string,
    { totals: UsageTotals; cost: number | null }
  >();
  const add = (key: string, entry: LedgerEntry) => {
    const group = groups.get(key) ?? { totals: emptyTotals(), cost: 0 };
    group.totals = addFigures(group.totals, entry, entry.calls);
    const cost = costOf(entry, findPrice(options.prices, entry.model));
    const zero =
      (entry.inputTokens ?? 0) +
        (entry.outputTokens ?? 0) +
        (entry.cacheReadTokens ?? 0) +
        (entry.cacheWriteTokens ?? 0) ===
      0;
    group.cost =
      group.cost === null || (cost === null && !zero)
        ? null
        : group.cost + (cost ?? 0);
    groups.set(key, group);
  };
  for (const entry of entries) {
    if (since && entry.ts < since) continue;
    const key =
      options.by === 'agent'
        ? entry.agent
        : options.by === 'model'
          ? (entry.model ?? UNKNOWN_MODEL)
          : entry.ts.slice(0, 10);
    add(key, entry);
    add('\u0000total', entry);
  }
  const row = (key: string): UsageRow => {
    const group = groups.get(key) ?? { totals: emptyTotals(), cost: 0 };
    const { totals } = group;
    return {
      key,
      calls: totals.calls,
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cacheReadTokens: totals.cacheReadTokens,
      cacheWriteTokens: totals.cacheWriteTokens,
      costUsd: group.cost === null ? null : roundUsd(group.cost),
    };
  };
  const keys = [...groups.keys()].filter((k) => k !== '\u0000total').sort();
  return {
    by: options.by,
    since: since ?? null,
    rows: keys.map(row),
    total: { ...row('\u0000total'), key: 'total' },
  };
}
