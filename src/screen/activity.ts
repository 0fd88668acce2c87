/**
 * Pure: a debounce-style activity tracker, the fallback state signal when no
 * screen rule matches (SPEC §6, source `activity`). Output seen within the
 * last `quietMs` means the program is busy. Time is passed in, never read,
 * so it can be tested without timers.
 */

export interface ActivityTrackerOptions {
  /** How long after the last output the program still counts as active. */
  quietMs: number;
}

export interface ActivityTracker {
  /** Record output at time `now` (ms). */
  onOutput(now: number): void;
  /** Whether output was seen less than `quietMs` before `now`. */
  isActive(now: number): boolean;
  /** When output was last seen, or undefined if never. */
  lastOutputAt(): number | undefined;
}

export function createActivityTracker(
  options: ActivityTrackerOptions,
): ActivityTracker {
  if (!(options.quietMs >= 0)) {
    throw new RangeError(`quietMs must be >= 0, got ${options.quietMs}`);
  }
  let last: number | undefined;
  return {
    onOutput(now) {
      if (last === undefined || now > last) last = now;
    },
    isActive(now) {
      return last !== undefined && now - last < options.quietMs;
    },
    lastOutputAt() {
      return last;
    },
  };
}
