/**
 * Requests refused for their size: a block past `maxBlockLines` or
 * `maxBlockBytes` (`request.malformed` with `refused`, from the bridge's
 * intake) is never raised, so its worker gets no answer. `macs inbox` (text
 * and `--json`) and the status snapshot (the live view) list those of the
 * running session, or of the last day when none runs.
 */
import type { MacsEvent } from '../events/types.js';
import { escapeInvisible } from '../protocol/sanitize.js';
import type { RefusedSnapshot } from './snapshot-schema.js';

/** Without a running session, refusals this recent are listed. */
export const REFUSED_WITHOUT_SESSION_MS = 24 * 3600 * 1000;

/** A refusal event (`request.malformed` with `refused: true`). */
export function isRefusal(event: MacsEvent): boolean {
  return event.type === 'request.malformed' && event.data?.refused === true;
}

/** From when refusals are listed: the session's start, else a day ago. */
export function refusedSince(
  sessionStart: string | null | undefined,
  now: number,
): string {
  return (
    sessionStart ?? new Date(now - REFUSED_WITHOUT_SESSION_MS).toISOString()
  );
}

/** A refusal as the snapshot and `macs inbox --json` show it. */
export function toRefusedSnapshot(event: MacsEvent): RefusedSnapshot {
  const data = event.data ?? {};
  const count = (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
  return {
    agent: event.agent,
    reason: data.reason === 'max-bytes' ? 'max-bytes' : 'max-lines',
    at: event.ts,
    firstLine: escapeInvisible(
      typeof data.firstLine === 'string' ? data.firstLine : '',
    ),
    lines: count(data.lines),
    bytes: count(data.bytes),
    message: typeof data.message === 'string' ? data.message : null,
  };
}

/** The refusals of `events` since `since`, of one agent when given. */
export function selectRefused(
  events: readonly MacsEvent[],
  since: string,
  agent?: string,
): RefusedSnapshot[] {
  return events
    .filter(
      (e) =>
        isRefusal(e) &&
        e.ts >= since &&
        (agent === undefined || e.agent === agent),
    )
    .map(toRefusedSnapshot);
}
