import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/usage/account.js';
import { priceTable } from '../../src/usage/prices.js';
import { buildUsageReport } from '../../src/usage/report.js';

const entry = (
  agent: string,
  model: string | null,
  ts: string,
  input: number,
  calls: 0 | 1 = 1,
): LedgerEntry & { agent: string } => ({
  agent,
  ts,
  src: '/f',
  off: 1,
  model,
  calls,
  inputTokens: input,
  outputTokens: 1_000_000,
  cacheReadTokens: null,
  cacheWriteTokens: null,
});

const entries = [
  entry('w1', 'gpt-5', '2026-11-26T23:00:00.000Z', 1_000_000),
  entry('w1', 'gpt-5', '2026-11-27T01:00:00.000Z', 0, 0),
  entry('w2', 'gemini-2.5-flash', '2026-11-27T02:00:00.000Z', 2_000_000),
  entry('w3', null, '2026-11-27T03:00:00.000Z', 5),
];
const prices = priceTable();

describe('buildUsageReport', () => {
  it('groups by agent with the cost of each; a row with an unnamed model costs null', () => {
    const report = buildUsageReport(entries, { by: 'agent', prices });
    expect(
      report.rows.map((r) => [r.key, r.calls, r.inputTokens, r.costUsd]),
    ).toEqual([
      ['w1', 1, 1_000_000, 21.25],
      ['w2', 1, 2_000_000, 3.1],
      ['w3', 1, 5, null],
    ]);
    expect(report.total).toMatchObject({
      key: 'total',
      calls: 3,
      costUsd: null,
    });
  });

  it('groups by model and by day, and keeps only what is since', () => {
    expect(
      buildUsageReport(entries, { by: 'model', prices }).rows.map((r) => r.key),
    ).toEqual(['(unknown)', 'gemini-2.5-flash', 'gpt-5']);
    const days = buildUsageReport(entries, {
      by: 'day',
      prices,
      since: new Date('2026-11-27T00:00:00.000Z'),
    });
    expect(days.rows.map((r) => [r.key, r.calls])).toEqual([['2026-11-27', 2]]);
    expect(days.since).toBe('2026-11-27T00:00:00.000Z');
  });
});
