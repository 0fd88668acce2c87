/**
 * Pure: `macs events --stats`. Counts events by type, and measures how long
 * requests spend between stages from the time of the first event of each
 * stage: detected → routed → answered → delivered → confirmed.
 */
import type { MacsEvent } from './types.js';

/** The stages measured, in order, and the event that marks each. */
export const STAT_STAGES = [
  ['detected', 'request.detected'],
  ['routed', 'request.routed'],
  ['answered', 'request.answered'],
  ['delivered', 'request.delivered'],
  ['confirmed', 'request.confirmed'],
] as const;

export interface LatencyStats {
  /** `detected→routed`, …, and `detected→delivered` end to end. */
  span: string;
  count: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface EventStats {
  total: number;
  from?: string;
  to?: string;
  byType: { type: string; count: number }[];
  /** Requests that reached at least `request.detected`. */
  requests: number;
  latency: LatencyStats[];
}

/** Nearest-rank percentile of sorted values (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

function summarize(span: string, values: number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    span,
    count: sorted.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    maxMs: sorted[sorted.length - 1] ?? 0,
  };
}

export function computeEventStats(events: readonly MacsEvent[]): EventStats {
  const counts = new Map<string, number>();
  const stageAt = new Map<string, Map<string, number>>();
  let from: string | undefined;
  let to: string | undefined;
  for (const event of events) {
    counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    if (from === undefined || event.ts < from) from = event.ts;
    if (to === undefined || event.ts > to) to = event.ts;
    if (!event.requestId) continue;
    const stage = STAT_STAGES.find(([, type]) => type === event.type)?.[0];
    const at = Date.parse(event.ts);
    if (!stage || Number.isNaN(at)) continue;
    const key = `${event.agent}\u0000${event.requestId}`;
    const stages = stageAt.get(key) ?? new Map<string, number>();
    const seen = stages.get(stage);
    if (seen === undefined || at < seen) stages.set(stage, at);
    stageAt.set(key, stages);
  }
  const spans = new Map<string, number[]>();
  const add = (span: string, ms: number) => {
    const list = spans.get(span) ?? [];
    list.push(ms);
    spans.set(span, list);
  };
  let requests = 0;
  for (const stages of stageAt.values()) {
    if (stages.has('detected')) requests += 1;
    for (let i = 1; i < STAT_STAGES.length; i += 1) {
      const prev = STAT_STAGES[i - 1]?.[0] ?? '';
      const next = STAT_STAGES[i]?.[0] ?? '';
      const a = stages.get(prev);
      const b = stages.get(next);
      if (a !== undefined && b !== undefined && b >= a)
        add(`${prev}→${next}`, b - a);
    }
    const start = stages.get('detected');
    const end = stages.get('delivered');
    if (start !== undefined && end !== undefined && end >= start)
      add('detected→delivered', end - start);
  }
  const order = [
    ...STAT_STAGES.slice(1).map(
      (stage, i) => `${STAT_STAGES[i]?.[0] ?? ''}→${stage[0]}`,
    ),
    'detected→delivered',
  ];
  return {
    total: events.length,
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    byType: [...counts]
      .map(([type, count]) => ({ type, count }))
      .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type)),
    requests,
    latency: order
      .filter((span) => spans.has(span))
      .map((span) => summarize(span, spans.get(span) ?? [])),
  };
}

/** `1.2s`, `850ms`, `3m04s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600)
    return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

/** The stats as lines for people. */
export function formatEventStats(stats: EventStats): string[] {
  if (stats.total === 0) return ['no events'];
  const lines = [
    `${stats.total} events${stats.from && stats.to ? ` from ${stats.from} to ${stats.to}` : ''}`,
    '',
    'by type:',
  ];
  const width = Math.max(...stats.byType.map((t) => t.type.length));
  for (const { type, count } of stats.byType)
    lines.push(`  ${type.padEnd(width)}  ${String(count).padStart(6)}`);
  lines.push('', `request latency (${stats.requests} requests):`);
  if (stats.latency.length === 0) lines.push('  no request reached two stages');
  else {
    const spanWidth = Math.max(...stats.latency.map((l) => l.span.length));
    lines.push(
      `  ${'stage'.padEnd(spanWidth)}  ${'n'.padStart(5)}  ${'p50'.padStart(7)}  ${'p95'.padStart(7)}  ${'max'.padStart(7)}`,
    );
    for (const l of stats.latency)
      lines.push(
        `  ${l.span.padEnd(spanWidth)}  ${String(l.count).padStart(5)}  ${formatDuration(l.p50Ms).padStart(7)}  ${formatDuration(l.p95Ms).padStart(7)}  ${formatDuration(l.maxMs).padStart(7)}`,
      );
  }
  return lines;
}
