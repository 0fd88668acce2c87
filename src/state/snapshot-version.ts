/**
 * The status snapshot's schema version (docs/status.md), on its own so that
 * the snapshot's reader (snapshot.ts) and its zod schema (snapshot-schema.ts)
 * both take it from here, and neither imports a value from the other.
 */
export const SNAPSHOT_VERSION = 1;
