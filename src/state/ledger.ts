import type {
  AgentStateFile,
  ApprovalVerdict,
  RecentRequest,
  RequestRecord,
  RequestStage,
  StoredResponse,
} from './types.js';

/**
 * The request ledger's pure steps, shared by every writer of an agent's
 * state (the bridge's stages, the hooks' approvals, the screen's dialogs,
 * `macs dismiss` and `macs start` when no bridge runs, the crash rebuild):
 * a new request's record, each step of its way as a value applied to a
 * record, and what a finished request leaves behind.
 */

/** How far each stage is along; a request's stage only moves forward. */
export const STAGE_RANK: Readonly<Record<RequestStage, number>> = {
  detected: 0,
  routed: 1,
  answered: 2,
  delivering: 3,
  pasted: 4,
  delivered: 5,
  'answered-empty': 6,
  confirmed: 6,
  unconfirmed: 6,
  expired: 6,
  dismissed: 6,
};

/** What its detector knows of a new request (the record's first stage). */
export type NewRequest = Omit<
  RequestRecord,
  | 'stage'
  | 'backend'
  | 'routedAt'
  | 'answeredAt'
  | 'deliveringAt'
  | 'pastedAt'
  | 'submittingAt'
  | 'deliveredAt'
  | 'confirmedAt'
  | 'response'
  | 'closed'
  | 'decision'
>;

/** A new request's record, in stage `detected`. */
export function detectedRecord(request: NewRequest): RequestRecord {
  return { ...request, stage: 'detected' };
}

/** Put a new record among the agent's open requests, and count it. */
export function addDetected(
  state: AgentStateFile,
  record: RequestRecord,
): void {
  state.requests[record.id] = record;
  state.counters.detected += 1;
}

/**
 * One step of a request's way, as every writer records it. `at` is when it
 * happened (ISO time).
 */
export type LedgerStep =
  | { type: 'routed'; at: string; backend: string }
  /** An answer; `answered-empty` when nothing is left to type. */
  | {
      type: 'answered';
      at: string;
      response: StoredResponse;
      decision?: ApprovalVerdict;
    }
  | { type: 'answered-empty' }
  | { type: 'delivering'; at: string }
  | { type: 'pasted'; at: string }
  /** Right before the submit key is first pressed. */
  | { type: 'submitting'; at: string }
  | { type: 'delivered'; at: string }
  | { type: 'confirmed'; at: string }
  | { type: 'unconfirmed' }
  | {
      type: 'closed';
      stage: UnansweredEnd;
      reason: string;
      by: string;
      at: string;
    }
  /**
   * A stage known only from the event log (the crash rebuild): reached at
   * `at` (stamped in that stage's time field) or at an unknown time, routed
   * to `backend` when the event says.
   */
  | { type: 'reached'; stage: RequestStage; at?: string; backend?: string };

/** The time field each stage stamps on a record. */
const STAGE_TIME: Partial<
  Record<
    RequestStage,
    'routedAt' | 'answeredAt' | 'deliveringAt' | 'deliveredAt' | 'confirmedAt'
  >
> = {
  routed: 'routedAt',
  answered: 'answeredAt',
  'answered-empty': 'answeredAt',
  delivering: 'deliveringAt',
  delivered: 'deliveredAt',
  confirmed: 'confirmedAt',
};

/**
 * Pure: the record after a step. The stage only moves forward (a step that
 * would move it back leaves the stage as it is, e.g. `delivered` after a
 * hook confirmed the request); the step's own fields are recorded anyway.
 */
function applyStep(record: RequestRecord, step: LedgerStep): RequestRecord {
  const next: RequestRecord = { ...record };
  const moveTo = (stage: RequestStage): void => {
    if (STAGE_RANK[stage] > STAGE_RANK[next.stage]) next.stage = stage;
  };
  switch (step.type) {
    case 'routed':
      moveTo('routed');
      next.routedAt = step.at;
      next.backend = step.backend;
      break;
    case 'answered':
      moveTo(step.response.instructions.trim() ? 'answered' : 'answered-empty');
      next.response = step.response;
      next.answeredAt = step.at;
      if (step.decision) next.decision = step.decision;
      break;
    case 'answered-empty':
      moveTo('answered-empty');
      break;
    case 'delivering':
      moveTo('delivering');
      next.deliveringAt = step.at;
      break;
    case 'pasted':
      moveTo('pasted');
      next.pastedAt = step.at;
      break;
    case 'submitting':
      next.submittingAt = step.at;
      break;
    case 'delivered':
      moveTo('delivered');
      next.deliveredAt = step.at;
      break;
    case 'confirmed':
      moveTo('confirmed');
      next.confirmedAt = step.at;
      break;
    case 'unconfirmed':
      moveTo('unconfirmed');
      break;
    case 'closed':
      moveTo(step.stage);
      next.closed = { reason: step.reason, by: step.by, at: step.at };
      break;
    case 'reached': {
      // Nothing is recorded of a step the record is past already.
      if (STAGE_RANK[step.stage] <= STAGE_RANK[next.stage]) return record;
      next.stage = step.stage;
      const field = STAGE_TIME[step.stage];
      if (field && step.at !== undefined) next[field] = step.at;
      if (step.stage === 'routed' && step.backend !== undefined)
        next.backend = step.backend;
      break;
    }
    default: {
      const never: never = step;
      throw new Error(`unexpected ledger step ${JSON.stringify(never)}`);
    }
  }
  return next;
}

/**
 * Apply a step to the record an agent's state holds. The open requests are
 * held as one object each (a stage that finds another object, or none, knows
 * the request was ended meanwhile), so the new record's fields are written
 * onto that object.
 */
export function recordStep(record: RequestRecord, step: LedgerStep): void {
  Object.assign(record, applyStep(record, step));
}

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
  recordStep(record, {
    type: 'closed',
    stage,
    reason,
    by,
    at: now.toISOString(),
  });
}
