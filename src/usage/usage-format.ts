/** Pure: usage figures for people (status view, `macs usage`, MCP text). */
import type { UsageGrouping, UsageReport, UsageRow } from './report.js';
import { tokenCount, type UsageFigures } from './types.js';

/** A token count shortly: 950, 12.3k, 4.56M; `?` for unknown. */
export function formatTokens(n: number | null): string {
  if (n === null) return '?';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** Dollars: $0.0042, $1.23; `$?` when unknown (a model without a price). */
export function formatUsd(usd: number | null): string {
  if (usd === null) return '$?';
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** One cell: every token and the cost, e.g. `12.3k $0.42`; `-` when none recorded. */
export function formatUsageCell(
  usage: (UsageFigures & { costUsd: number | null }) | null,
): string {
  if (!usage) return '-';
  return `${formatTokens(tokenCount(usage))} ${formatUsd(usage.costUsd)}`;
}

/** A row of figures (and its compactions, by agent). */
function formatRow(row: UsageRow, width: number, compacted?: number): string {
  return [
    row.key.padEnd(width),
    String(row.calls).padStart(6),
    formatTokens(row.inputTokens).padStart(9),
    formatTokens(row.outputTokens).padStart(9),
    formatTokens(row.cacheReadTokens).padStart(9),
    formatTokens(row.cacheWriteTokens).padStart(9),
    formatUsd(row.costUsd).padStart(10),
    ...(compacted === undefined ? [] : [String(compacted).padStart(9)]),
  ].join('  ');
}

/** The header line: the grouping, the figures, and `compacted` per agent. */
function formatHeader(by: UsageGrouping, width: number): string {
  return [
    by.padEnd(width),
    'calls'.padStart(6),
    'input'.padStart(9),
    'output'.padStart(9),
    'cache rd'.padStart(9),
    'cache wr'.padStart(9),
    'cost'.padStart(10),
    ...(by === 'agent' ? ['compacted'.padStart(9)] : []),
  ].join('  ');
}

/**
 * `macs usage`'s table: a header, a row per group, the total, and a note
 * when a model has no price; by agent, how often each agent's context was
 * compacted (`compactions`) too.
 */
export function formatUsageTable(
  usage: UsageReport,
  compactions: Readonly<Record<string, number>>,
): string[] {
  const { by } = usage;
  const width = Math.max(5, ...usage.rows.map((r) => r.key.length));
  const total = Object.values(compactions).reduce((a, b) => a + b, 0);
  return [
    formatHeader(by, width),
    ...usage.rows.map((row) =>
      formatRow(
        row,
        width,
        by === 'agent' ? (compactions[row.key] ?? 0) : undefined,
      ),
    ),
    formatRow(usage.total, width, by === 'agent' ? total : undefined),
    ...(usage.total.costUsd === null
      ? ['$?: a model without a price (see prices in docs/usage.md)']
      : []),
  ];
}
