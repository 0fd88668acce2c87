/**
 * What macs knows about the tokens an agent's model calls used (docs/usage.md).
 * Every figure is what the agent itself recorded; `null` is a figure the
 * agent does not report (unknown), never zero.
 *
 * - `inputTokens`: input tokens not read from a cache (Codex and Gemini
 *   count the cached part inside their input figure; macs takes it out);
 * - `outputTokens`: output tokens, reasoning or thoughts included;
 * - `cacheReadTokens`: input tokens read from the provider's prompt cache;
 * - `cacheWriteTokens`: input tokens written to the cache (Anthropic only);
 *   `cacheWrite1hTokens` is the part written for an hour, which costs more.
 */
export interface UsageFigures {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  cacheWrite1hTokens?: number;
}

/** One model call as an agent's record tells it. */
export interface UsageCall extends UsageFigures {
  /** When the agent recorded it (ISO). */
  ts: string;
  /** The model the agent names; null when its record names none. */
  model: string | null;
  /** The agent's id of the call (message id), to count it once. */
  key?: string;
}

/** The agents whose records macs reads usage from. */
export type UsageSourceKind = 'claude' | 'codex' | 'gemini';

export const FIGURE_KEYS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
] as const;
export type FigureKey = (typeof FIGURE_KEYS)[number];

/** Figures summed over calls: a figure is known once any call reported it. */
export interface UsageTotals extends UsageFigures {
  calls: number;
}

export function emptyTotals(): UsageTotals {
  return {
    calls: 0,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
  };
}

/** Add one call (or totals) into totals; unknown + known = known. */
export function addFigures(
  totals: UsageTotals,
  add: UsageFigures,
  calls = 1,
): UsageTotals {
  const next: UsageTotals = { ...totals, calls: totals.calls + calls };
  for (const key of FIGURE_KEYS) {
    const value = add[key];
    if (value !== null) next[key] = (next[key] ?? 0) + value;
  }
  const hour = (totals.cacheWrite1hTokens ?? 0) + (add.cacheWrite1hTokens ?? 0);
  if (hour > 0) next.cacheWrite1hTokens = hour;
  return next;
}

/** Every token of the figures (what a `tokens` budget counts). */
export function tokenCount(figures: UsageFigures): number {
  return FIGURE_KEYS.reduce((sum, key) => sum + (figures[key] ?? 0), 0);
}
