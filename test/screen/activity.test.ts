import { describe, expect, it } from 'vitest';
import { createActivityTracker } from '../../src/screen/activity.js';

describe('createActivityTracker', () => {
  it('is inactive before any output', () => {
    const tracker = createActivityTracker({ quietMs: 500 });
    expect(tracker.isActive(0)).toBe(false);
    expect(tracker.lastOutputAt()).toBeUndefined();
  });

  it('is active for quietMs after output, then quiet', () => {
    const tracker = createActivityTracker({ quietMs: 500 });
    tracker.onOutput(1_000);
    expect(tracker.isActive(1_000)).toBe(true);
    expect(tracker.isActive(1_499)).toBe(true);
    expect(tracker.isActive(1_500)).toBe(false);
  });

  it('restarts the quiet period on new output', () => {
    const tracker = createActivityTracker({ quietMs: 500 });
    tracker.onOutput(1_000);
    tracker.onOutput(1_400);
    expect(tracker.isActive(1_800)).toBe(true);
    expect(tracker.lastOutputAt()).toBe(1_400);
  });

  it('ignores output reported out of order', () => {
    const tracker = createActivityTracker({ quietMs: 500 });
    tracker.onOutput(2_000);
    tracker.onOutput(1_000);
    expect(tracker.lastOutputAt()).toBe(2_000);
  });

  it('rejects a negative quiet period', () => {
    expect(() => createActivityTracker({ quietMs: -1 })).toThrow(RangeError);
  });
});
