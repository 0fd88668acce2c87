import { describe, expect, it } from 'vitest';
import {
  accountRecord,
  growth,
  newCursor,
  replayEntry,
  type LedgerEntry,
  type SourceCursor,
} from '../../src/usage/account.js';
import type { UsageRecord } from '../../src/usage/records.js';

const figures = (i: number, o: number, r: number | null = null) => ({
  inputTokens: i,
  outputTokens: o,
  cacheReadTokens: r,
  cacheWriteTokens: null,
});
const call = (key: string, i: number, o: number): UsageRecord => ({
  type: 'call',
  key,
  ts: '2026-11-27T10:00:00.000Z',
  model: 'm',
  figures: figures(i, o),
});
const NOW = '2026-11-27T10:00:00.000Z';

function run(records: UsageRecord[], cursor = newCursor()): LedgerEntry[] {
  return records.flatMap((r, n) => {
    const e = accountRecord(cursor, 'f', r, (n + 1) * 10, NOW);
    return e ? [e] : [];
  });
}

describe('growth', () => {
  it('is what grew, never negative; unknown stays unknown', () => {
    expect(growth(figures(10, 5), figures(4, 5))).toEqual(figures(6, 0));
    expect(growth(figures(4, 5), figures(10, 5))).toBeUndefined();
    expect(growth(figures(1, 0, 3))).toEqual(figures(1, 0, 3));
  });
});

describe('accountRecord', () => {
  it('counts an answer written again under its key once, adding only what grew', () => {
    // Claude Code writes a line per content block of one answer, the last
    // with the final output figure.
    const entries = run([
      call('a', 10, 1),
      call('a', 10, 30),
      call('a', 10, 30),
    ]);
    expect(
      entries.map((e) => [e.calls, e.inputTokens, e.outputTokens]),
    ).toEqual([
      [1, 10, 1],
      [0, 0, 29],
    ]);
    const sum = entries.reduce((s, e) => s + (e.outputTokens ?? 0), 0);
    expect(sum).toBe(30);
  });

  it('turns a running total (Codex before 0.169) into calls, a repeated total into nothing', () => {
    const total = (i: number, o: number): UsageRecord => ({
      type: 'total',
      ts: '',
      figures: figures(i, o, 0),
    });
    const cursor = newCursor();
    const entries = run(
      [
        { type: 'model', model: 'gpt-5-codex' },
        total(100, 10),
        total(100, 10),
        total(250, 30),
      ],
      cursor,
    );
    expect(
      entries.map((e) => [e.inputTokens, e.outputTokens, e.model, e.ts]),
    ).toEqual([
      [100, 10, 'gpt-5-codex', NOW],
      [150, 20, 'gpt-5-codex', NOW],
    ]);
  });

  it('ignores running totals once a file has per-answer records (Codex 0.169)', () => {
    const entries = run([
      call('resp_1', 100, 10),
      { type: 'total', ts: '', figures: figures(100, 10) },
    ]);
    expect(entries).toHaveLength(1);
  });

  it('a cursor rebuilt from the ledger counts nothing twice when the file is read again', () => {
    const records = [call('a', 10, 1), call('a', 10, 30), call('b', 5, 5)];
    const entries = run(records);
    const cursors = new Map<string, SourceCursor>();
    for (const e of entries) replayEntry(cursors, e);
    const cursor = cursors.get('f');
    expect(cursor?.offset).toBe(30);
    // The file read again from its start (rewritten, or its inode changed).
    expect(run(records, cursor)).toEqual([]);
    // What grew after is still counted.
    expect(run([call('b', 5, 9)], cursor)).toMatchObject([
      { calls: 0, outputTokens: 4 },
    ]);
  });
});
