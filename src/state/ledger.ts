import type {
  AgentStateFile,
  RecentRequest,
  RequestRecord,
  RequestStage,
} from './types.js';

/**
 * The request ledger's pure steps, shared by every writer of an agent's
 * state (the bridge, `macs dismiss` and `macs start` when no bridge runs,
 * the crash rebuild): what a finished request leaves behind.
 */

/** How many finished requests an agent's state lists in `recent`. */
export const RECENT_MAX = 20;

/** A finished request as `recent` keeps it (for context packets and status). */
export function toRecent(record: RequestRecord): RecentRequest {
  return {
    id: record.id,
    type: record.type,
    stage: record.stage,
    detectedAt: record.detectedAt,
    ...(record.deliveredAt ? { deliveredAt: record.deliveredAt } : {}),
    firstLine: record.body.split('\n', 1)[0]?.slice(0, 120) ?? '',
    ...(record.response
      ? { instructions: record.response.instructions.slice(0, 500) }
      : {}),
    ...(record.decision ? { decision: record.decision } : {}),
  };
}

/** Move a finished request from the open set to the front of `recent`. */
export function retireRecord(
  state: AgentStateFile,
  record: RequestRecord,
): void {
  delete state.requests[record.id];
  state.recent = [
    toRecent(record),
    ...state.recent.filter((r) => r.id !== record.id),
  ].slice(0, RECENT_MAX);
}

/** The stages that end a request without anything being typed. */
export type UnansweredEnd = Extract<RequestStage, 'expired' | 'dismissed'>;

/** End an open request without an answer: the stage and why. */
export function closeRecord(
  record: RequestRecord,
  stage: UnansweredEnd,
  reason: string,
  by: string,
  now = new Date(),
): void {
  record.stage = stage;
  record.closed = { reason, by, at: now.toISOString() };
}
