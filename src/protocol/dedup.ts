/**
 * Request deduplication (SPEC §2 "Deduplication"). Pure: the caller keeps one
 * DedupState per agent and persists it as JSON so it survives restarts.
 *
 * Keys are stored with computed property names and read with Object.hasOwn,
 * so worker ids such as `constructor` or `__proto__` (both valid attribute
 * values) are ordinary keys.
 */

/** Per-agent memory of what was seen: key -> ISO time it was last seen. */
export interface DedupState {
  /** Worker-supplied `id` attributes. */
  ids: Record<string, string>;
  /** sha1 of request bodies. */
  bodies: Record<string, string>;
}

export type DedupVerdict =
  { duplicate: false } | { duplicate: true; reason: 'id' | 'body' | 'pending' };

/** How many worker ids pruneDedup keeps (the most recently seen). */
export const DEDUP_MAX_IDS = 10_000;

export function emptyDedupState(): DedupState {
  return { ids: {}, bodies: {} };
}

/**
 * Decides whether a request is a duplicate:
 * - with a worker id: when that id was seen before for this agent (forever);
 * - without one: when a request with the same body hash is still pending, or
 *   the body hash was seen within `windowSec` (0 means forever).
 *
 * A request with a fresh worker id is never a duplicate because of its body:
 * the worker said it is a new request. SPEC ties the "identical request still
 * pending" rule to requests without an id, and an id already pending is caught
 * by the id rule.
 */
export function checkDuplicate(
  state: DedupState,
  input: {
    workerId?: string;
    bodyHash: string;
    now: Date;
    windowSec: number;
    pendingHashes: ReadonlySet<string>;
  },
): DedupVerdict {
  const { workerId, bodyHash, now, windowSec, pendingHashes } = input;
  if (workerId !== undefined) {
    return Object.hasOwn(state.ids, workerId)
      ? { duplicate: true, reason: 'id' }
      : { duplicate: false };
  }
  if (pendingHashes.has(bodyHash))
    return { duplicate: true, reason: 'pending' };
  if (!Object.hasOwn(state.bodies, bodyHash)) return { duplicate: false };
  if (windowSec <= 0) return { duplicate: true, reason: 'body' };
  const seenMs = Date.parse(state.bodies[bodyHash] ?? '');
  // An unreadable time is treated as outside the window.
  if (Number.isNaN(seenMs)) return { duplicate: false };
  return now.getTime() - seenMs <= windowSec * 1000
    ? { duplicate: true, reason: 'body' }
    : { duplicate: false };
}

/**
 * Records that a request was seen now. Returns a new state; the input is not
 * changed. The body hash is recorded for requests with a worker id too, so a
 * later id-less copy of the same body counts as a duplicate.
 */
export function recordSeen(
  state: DedupState,
  input: { workerId?: string; bodyHash: string; now: Date },
): DedupState {
  const seen = input.now.toISOString();
  return {
    ids:
      input.workerId === undefined
        ? { ...state.ids }
        : { ...state.ids, [input.workerId]: seen },
    bodies: { ...state.bodies, [input.bodyHash]: seen },
  };
}

/**
 * Forgets body hashes last seen more than `windowSec` ago (all are kept when
 * `windowSec` is 0, i.e. forever). Worker ids are kept forever, except that
 * only the DEDUP_MAX_IDS most recently seen survive. Returns a new state.
 */
export function pruneDedup(
  state: DedupState,
  now: Date,
  windowSec: number,
): DedupState {
  const nowMs = now.getTime();
  const bodies =
    windowSec <= 0
      ? { ...state.bodies }
      : Object.fromEntries(
          Object.entries(state.bodies).filter(([, seen]) => {
            const seenMs = Date.parse(seen);
            return !Number.isNaN(seenMs) && nowMs - seenMs <= windowSec * 1000;
          }),
        );

  let idEntries = Object.entries(state.ids);
  if (idEntries.length > DEDUP_MAX_IDS) {
    const time = (iso: string): number => {
      const ms = Date.parse(iso);
      return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
    };
    idEntries = idEntries
      .map((entry, index) => ({ entry, index, ms: time(entry[1]) }))
      // Newest first; ties keep their original order, so the result is stable.
      .sort((a, b) => b.ms - a.ms || a.index - b.index)
      .slice(0, DEDUP_MAX_IDS)
      .sort((a, b) => a.index - b.index)
      .map(({ entry }) => entry);
  }
  return { ids: Object.fromEntries(idEntries), bodies };
}
