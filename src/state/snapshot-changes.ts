/**
 * Comparing snapshots, for the views that follow a home live (the status
 * view's feed, `status --watch`): whether anything a person sees changed,
 * and which requests newly need a person. One `status --json` never needs
 * these, so they are not in its path.
 */
import type { RequestSnapshot, Snapshot } from './snapshot-schema.js';

/**
 * What changed for people, ignoring the clock (and `updatedAt`, which moves
 * whenever a bridge saves its log offset): two snapshots with the same
 * signature render the same, apart from ages.
 */
export function snapshotSignature(snapshot: Snapshot): string {
  return JSON.stringify(snapshot, (key, value: unknown) =>
    key === 'generatedAt' ||
    key === 'ageMs' ||
    key === 'stateAgeMs' ||
    key === 'updatedAt'
      ? undefined
      : value,
  );
}

/** Requests that wait for a person and are not in `seen` (the attention rule). */
export function selectNewAttention(
  snapshot: Snapshot,
  seen: ReadonlySet<string>,
): RequestSnapshot[] {
  return snapshot.requests.filter((r) => r.waitingForPerson && !seen.has(r.id));
}
