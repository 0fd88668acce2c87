/** Pure: usage figures for people (status view, `macs usage`, MCP text). */
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
