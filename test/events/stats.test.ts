import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import {
  computeEventStats,
  formatDuration,
  formatEventStats,
  percentile,
} from '../../src/events/stats.js';
import type { MacsEvent } from '../../src/events/types.js';
import { resolveHomePaths } from '../../src/home/paths.js';

const at = (s: number) =>
  new Date(Date.UTC(2026, 10, 21, 10, 0, 0) + s * 1000).toISOString();
const ev = (
  s: number,
  type: string,
  requestId?: string,
  agent = 'w1',
): MacsEvent => ({
  ts: at(s),
  agent,
  type: type as MacsEvent['type'],
  ...(requestId ? { requestId } : {}),
});

describe('percentile (nearest rank)', () => {
  it.each([
    [[], 50, 0],
    [[7], 95, 7],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 95, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50, 50],
  ])('%j p%d = %d', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });
});

describe('computeEventStats', () => {
  it('counts by type and measures each stage from the first event of that stage', () => {
    const events = [
      ev(0, 'request.detected', 'a'),
      ev(1, 'request.routed', 'a'),
      ev(11, 'request.answered', 'a'),
      ev(12, 'request.delivered', 'a'),
      ev(13, 'request.confirmed', 'a'),
      ev(0, 'request.detected', 'b'),
      ev(2, 'request.routed', 'b'),
      ev(3, 'request.routed', 'b'), // a re-route does not move the stage
      ev(32, 'request.answered', 'b'),
      ev(34, 'request.delivered', 'b'),
      ev(5, 'request.detected', 'c'),
      ev(6, 'hook.Stop'),
      ev(7, 'state.changed'),
      ev(8, 'state.changed'),
      // Same request id for another agent is another request.
      ev(0, 'request.detected', 'a', 'w2'),
      ev(4, 'request.routed', 'a', 'w2'),
    ];
    const stats = computeEventStats(events);
    expect(stats.total).toBe(16);
    expect(stats.requests).toBe(4);
    expect(stats.byType.slice(0, 3)).toEqual([
      { type: 'request.detected', count: 4 },
      { type: 'request.routed', count: 4 },
      { type: 'request.answered', count: 2 },
    ]);
    const by = Object.fromEntries(stats.latency.map((l) => [l.span, l]));
    expect(by['detected→routed']).toEqual({
      span: 'detected→routed',
      count: 3,
      p50Ms: 2000,
      p95Ms: 4000,
      maxMs: 4000,
    });
    expect(by['routed→answered']).toMatchObject({
      count: 2,
      p50Ms: 10_000,
      p95Ms: 30_000,
    });
    expect(by['answered→delivered']).toMatchObject({
      count: 2,
      p50Ms: 1000,
      p95Ms: 2000,
    });
    expect(by['delivered→confirmed']).toMatchObject({ count: 1, p50Ms: 1000 });
    expect(by['detected→delivered']).toMatchObject({
      count: 2,
      p50Ms: 12_000,
      p95Ms: 34_000,
    });
    expect(stats.latency.map((l) => l.span)).toEqual([
      'detected→routed',
      'routed→answered',
      'answered→delivered',
      'delivered→confirmed',
      'detected→delivered',
    ]);
    const text = formatEventStats(stats).join('\n');
    expect(text).toContain('16 events');
    expect(text).toMatch(/detected→routed\s+3\s+2\.0s\s+4\.0s/);
  });

  it('says so when there is nothing', () => {
    expect(formatEventStats(computeEventStats([]))).toEqual(['no events']);
  });

  it('reads a log whose last line is torn by a killed writer', async () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'macs-stats-'));
    try {
      const paths = resolveHomePaths(home);
      mkdirSync(paths.events, { recursive: true });
      const file = path.join(paths.events, 'w1.jsonl');
      appendFileSync(
        file,
        `${JSON.stringify(ev(0, 'request.detected', 'a'))}\n`,
      );
      appendFileSync(file, `${JSON.stringify(ev(3, 'request.routed', 'a'))}\n`);
      appendFileSync(file, '{"ts":"2026-11-21T10:00:09.000Z","agent":"w1","ty');
      const stats = computeEventStats(await readEvents(paths));
      expect(stats.total).toBe(2);
      expect(stats.latency[0]).toMatchObject({
        span: 'detected→routed',
        p50Ms: 3000,
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850ms'],
    [1200, '1.2s'],
    [184_000, '3m04s'],
    [3_720_000, '1h02m'],
  ])('%d → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
