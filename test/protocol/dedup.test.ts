import { describe, expect, it } from 'vitest';
import {
  DEDUP_MAX_IDS,
  checkDuplicate,
  emptyDedupState,
  pruneDedup,
  recordSeen,
} from '../../src/protocol/dedup.js';

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);
const NONE: ReadonlySet<string> = new Set();

describe('checkDuplicate', () => {
  it('is not a duplicate on an empty state', () => {
    expect(
      checkDuplicate(emptyDedupState(), {
        bodyHash: 'h1',
        now: T0,
        windowSec: 3600,
        pendingHashes: NONE,
      }),
    ).toEqual({ duplicate: false });
  });

  it('treats a seen worker id as a duplicate forever', () => {
    const state = recordSeen(emptyDedupState(), {
      workerId: 'q-1',
      bodyHash: 'h1',
      now: T0,
    });
    const verdict = checkDuplicate(state, {
      workerId: 'q-1',
      bodyHash: 'other',
      now: at(10 * 365 * 86400),
      windowSec: 60,
      pendingHashes: NONE,
    });
    expect(verdict).toEqual({ duplicate: true, reason: 'id' });
  });

  it('does not treat a new worker id with a known body as a duplicate', () => {
    const state = recordSeen(emptyDedupState(), {
      workerId: 'q-1',
      bodyHash: 'h1',
      now: T0,
    });
    expect(
      checkDuplicate(state, {
        workerId: 'q-2',
        bodyHash: 'h1',
        now: T0,
        windowSec: 3600,
        pendingHashes: new Set(['h1']),
      }),
    ).toEqual({ duplicate: false });
  });

  it.each([
    ['inside the window', 3599, 3600, true],
    ['at the edge of the window', 3600, 3600, true],
    ['after the window', 3601, 3600, false],
    ['with window 0 (forever)', 10 * 365 * 86400, 0, true],
  ])('body seen %s', (_name, laterSec, windowSec, duplicate) => {
    const state = recordSeen(emptyDedupState(), { bodyHash: 'h1', now: T0 });
    const verdict = checkDuplicate(state, {
      bodyHash: 'h1',
      now: at(laterSec),
      windowSec,
      pendingHashes: NONE,
    });
    expect(verdict).toEqual(
      duplicate ? { duplicate: true, reason: 'body' } : { duplicate: false },
    );
  });

  it('treats an identical pending request as a duplicate', () => {
    expect(
      checkDuplicate(emptyDedupState(), {
        bodyHash: 'h1',
        now: T0,
        windowSec: 3600,
        pendingHashes: new Set(['h1']),
      }),
    ).toEqual({ duplicate: true, reason: 'pending' });
  });

  it('ignores an unreadable time unless the window is forever', () => {
    const state = { ids: {}, bodies: { h1: 'garbage' } };
    const input = { bodyHash: 'h1', now: T0, pendingHashes: NONE };
    expect(checkDuplicate(state, { ...input, windowSec: 60 })).toEqual({
      duplicate: false,
    });
    expect(checkDuplicate(state, { ...input, windowSec: 0 })).toEqual({
      duplicate: true,
      reason: 'body',
    });
  });

  it('treats prototype names as ordinary keys', () => {
    const state = emptyDedupState();
    for (const workerId of ['constructor', 'toString', '__proto__']) {
      expect(
        checkDuplicate(state, {
          workerId,
          bodyHash: 'constructor',
          now: T0,
          windowSec: 0,
          pendingHashes: NONE,
        }),
      ).toEqual({ duplicate: false });
    }
    const seen = recordSeen(state, {
      workerId: '__proto__',
      bodyHash: 'h',
      now: T0,
    });
    expect(Object.getPrototypeOf(seen.ids)).toBe(Object.prototype);
    expect(Object.keys(seen.ids)).toEqual(['__proto__']);
    expect(
      checkDuplicate(seen, {
        workerId: '__proto__',
        bodyHash: 'x',
        now: T0,
        windowSec: 0,
        pendingHashes: NONE,
      }),
    ).toEqual({ duplicate: true, reason: 'id' });
  });
});

describe('recordSeen', () => {
  it('returns a new state and leaves the input alone', () => {
    const before = emptyDedupState();
    const after = recordSeen(before, {
      workerId: 'q-1',
      bodyHash: 'h1',
      now: T0,
    });
    expect(before).toEqual({ ids: {}, bodies: {} });
    expect(after).toEqual({
      ids: { 'q-1': T0.toISOString() },
      bodies: { h1: T0.toISOString() },
    });
  });

  it('updates the last-seen time', () => {
    const once = recordSeen(emptyDedupState(), { bodyHash: 'h1', now: T0 });
    const twice = recordSeen(once, { bodyHash: 'h1', now: at(5) });
    expect(twice.bodies.h1).toBe(at(5).toISOString());
  });

  it('survives a JSON round trip', () => {
    const state = recordSeen(emptyDedupState(), {
      workerId: 'a',
      bodyHash: 'h',
      now: T0,
    });
    const restored = JSON.parse(JSON.stringify(state)) as typeof state;
    expect(
      checkDuplicate(restored, {
        workerId: 'a',
        bodyHash: 'z',
        now: T0,
        windowSec: 1,
        pendingHashes: NONE,
      }),
    ).toEqual({ duplicate: true, reason: 'id' });
  });
});

describe('pruneDedup', () => {
  const state = {
    ids: { old: at(-86400).toISOString(), fresh: T0.toISOString() },
    bodies: {
      old: at(-7200).toISOString(),
      edge: at(-3600).toISOString(),
      fresh: at(-1).toISOString(),
      broken: 'not a date',
    },
  };

  it('drops bodies older than the window and keeps every id', () => {
    const pruned = pruneDedup(state, T0, 3600);
    expect(Object.keys(pruned.bodies).sort()).toEqual(['edge', 'fresh']);
    expect(pruned.ids).toEqual(state.ids);
    expect(pruned).not.toBe(state);
  });

  it('keeps every body with window 0', () => {
    expect(pruneDedup(state, T0, 0).bodies).toEqual(state.bodies);
  });

  it('caps ids at the most recent DEDUP_MAX_IDS', () => {
    const ids: Record<string, string> = {};
    for (let i = 0; i < DEDUP_MAX_IDS + 5; i += 1) {
      ids[`id-${i}`] = at(i).toISOString();
    }
    ids.broken = 'garbage';
    const pruned = pruneDedup({ ids, bodies: {} }, at(1e6), 0);
    const kept = Object.keys(pruned.ids);
    expect(kept).toHaveLength(DEDUP_MAX_IDS);
    expect(kept).not.toContain('broken');
    for (let i = 0; i < 5; i += 1) expect(kept).not.toContain(`id-${i}`);
    expect(kept).toContain('id-5');
    expect(kept).toContain(`id-${DEDUP_MAX_IDS + 4}`);
  });
});
