/**
 * Pure: a host's times on the hub's clock. A host says its own time
 * (`now`) in each list it answers; the call's round trip brackets it, so
 * the host's clock is taken to read `now` at the round trip's middle, and
 * every time the host gives (a request's `detectedAt`, an agent's
 * `stateSince`) is moved by that offset. Ages are then the hub's own
 * clock minus a time on it, the same at every door (docs/remote.md,
 * "Times and ages").
 */

/** Hub time minus host time, in ms; 0 when the host said no time. */
export function clockOffsetMs(
  sentAtMs: number,
  receivedAtMs: number,
  hostNow: string | undefined,
): number {
  if (!hostNow) return 0;
  const host = Date.parse(hostNow);
  if (!Number.isFinite(host)) return 0;
  return Math.round((sentAtMs + receivedAtMs) / 2 - host);
}

/**
 * A host's time on the hub's clock; without one, `ageSec` before `nowMs`
 * (a host that gave only an age), else null.
 */
export function hubTime(
  hostTime: string | null | undefined,
  offsetMs: number,
  fallback?: { ageSec: number | null | undefined; nowMs: number },
): string | null {
  const at = hostTime ? Date.parse(hostTime) : NaN;
  if (Number.isFinite(at)) return new Date(at + offsetMs).toISOString();
  if (fallback && typeof fallback.ageSec === 'number')
    return new Date(fallback.nowMs - fallback.ageSec * 1000).toISOString();
  return null;
}

/** Seconds from a hub time to `nowMs`, never below 0. */
export function ageSecSince(at: string | null, nowMs: number): number | null {
  if (!at) return null;
  return Math.max(0, Math.round((nowMs - Date.parse(at)) / 1000));
}
