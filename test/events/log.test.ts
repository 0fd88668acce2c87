import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createEventLog,
  eventFilePath,
  matchesEvent,
  parseSince,
  readEvents,
} from '../../src/events/log.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';

describe('event log', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-events-')),
    );
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('appends one JSON line per event in a private file and reads them back filtered', async () => {
    const log = createEventLog(paths);
    await log.emit({
      agent: 'w1',
      type: 'request.detected',
      requestId: 'w1-a',
    });
    await log.emit({
      agent: 'w1',
      type: 'request.delivered',
      requestId: 'w1-a',
      data: { chars: 3 },
    });
    await log.emit({ agent: 'w2', type: 'bridge.started' });
    expect(statSync(eventFilePath(paths, 'w1')).mode & 0o777).toBe(0o600);
    expect(statSync(paths.events).mode & 0o777).toBe(0o700);
    expect((await readEvents(paths)).map((e) => e.type)).toEqual([
      'request.detected',
      'request.delivered',
      'bridge.started',
    ]);
    expect(
      (await readEvents(paths, { agent: 'w2' })).map((e) => e.type),
    ).toEqual(['bridge.started']);
    expect((await readEvents(paths, { type: 'request' })).length).toBe(2);
    expect(
      (
        await readEvents(paths, {
          requestId: 'w1-a',
          type: 'request.delivered',
        })
      )[0]?.data,
    ).toEqual({ chars: 3 });
  });

  it('skips a torn last line and junk lines instead of failing', async () => {
    const log = createEventLog(paths);
    await log.emit({ agent: 'w1', type: 'bridge.started' });
    appendFileSync(
      eventFilePath(paths, 'w1'),
      'not json\n{"ts":"2026-01-01T00:00:00Z","agent":"w1","ty',
    );
    expect((await readEvents(paths)).map((e) => e.type)).toEqual([
      'bridge.started',
    ]);
  });

  it('parses --since durations and dates', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    expect(parseSince('10m', now)?.toISOString()).toBe(
      '2026-01-01T11:50:00.000Z',
    );
    expect(parseSince('2h', now)?.toISOString()).toBe(
      '2026-01-01T10:00:00.000Z',
    );
    expect(parseSince('2026-01-01T00:00:00Z', now)?.toISOString()).toBe(
      '2026-01-01T00:00:00.000Z',
    );
    expect(parseSince('yesterday-ish', now)).toBeUndefined();
  });

  it('matches a type exactly or by prefix, never by accident', () => {
    const e = {
      ts: '2026-01-01T00:00:00Z',
      agent: 'a',
      type: 'request.detected' as const,
    };
    expect(matchesEvent(e, { type: 'request' })).toBe(true);
    expect(matchesEvent(e, { type: 'request.detected' })).toBe(true);
    expect(matchesEvent(e, { type: 'req' })).toBe(false);
  });
});
