import type { KnownEventType } from '../events/types.js';
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

/**
 * The event that puts a request in each stage: the crash rebuild
 * (rebuild.ts) reads a request's stage from the event log with it, and the
 * web page draws a request's path (web/request-path.ts).
 */
export const STAGE_OF_EVENT: Readonly<Partial<Record<string, RequestStage>>> = {
  'request.detected': 'detected',
  'request.routed': 'routed',
  'request.answered': 'answered',
  'request.answered-empty': 'answered-empty',
  'request.delivering': 'delivering',
  'request.delivered': 'delivered',
  'request.confirmed': 'confirmed',
  'request.unconfirmed': 'unconfirmed',
  'delivery.unconfirmed': 'unconfirmed',
  'request.expired': 'expired',
  'request.dismissed': 'dismissed',
} satisfies Partial<Record<KnownEventType, RequestStage>>;

/** The stages in which nothing has been typed yet: a request may still end unanswered. */
const UNTYPED: readonly RequestStage[] = ['detected', 'routed', 'answered'];
/** The typing of an answer, in order. */
const TYPING: readonly RequestStage[] = ['delivering', 'pasted', 'delivered'];
/** The ends of a request whose answer was (or may have been) typed, or was empty. */
const TYPED_ENDS: readonly RequestStage[] = [
  'answered-empty',
  'confirmed',
  'unconfirmed',
];
/** The ends of a request never answered. */
const UNANSWERED_ENDS: readonly RequestStage[] = ['expired', 'dismissed'];
const MOVES_FROM_ROUTED: readonly RequestStage[] = [
  'answered',
  ...TYPING,
  ...TYPED_ENDS,
  ...UNANSWERED_ENDS,
];

/**
 * The one table of a request's moves: the stages each stage may move to.
 * Every move goes forward along the path (STAGE_RANK); the ends never move
 * to another end; and a request ends unanswered (`expired`, `dismissed`)
 * only while nothing has been typed, so a late hook, dialog or person
 * cannot turn a delivered answer into one never given.
 */
export const STAGE_MOVES: Readonly<
  Record<RequestStage, readonly RequestStage[]>
> = {
  detected: ['routed', ...MOVES_FROM_ROUTED],
  routed: MOVES_FROM_ROUTED,
  answered: [...TYPING, ...TYPED_ENDS, ...UNANSWERED_ENDS],
  delivering: [...TYPING.slice(1), ...TYPED_ENDS],
  pasted: [...TYPING.slice(2), ...TYPED_ENDS],
  delivered: TYPED_ENDS,
  'answered-empty': [],
  confirmed: [],
  unconfirmed: [],
  expired: [],
  dismissed: [],
};

/** May a request in stage `from` move to `to`? */
export function canMove(from: RequestStage, to: RequestStage): boolean {
  return STAGE_MOVES[from].includes(to);
}

/** Stages in which a request can still be ended: nothing typed yet. */
export function isUntyped(record: Pick<RequestRecord, 'stage'>): boolean {
  return UNTYPED.includes(record.stage);
}

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
  | { type: 'reached'; stage: RequestStage; at?: string; backend?: string }
  /**
   * The crash rebuild only: an `answered` request whose answer's text is
   * lost (no claim says typing began) is asked again from `routed` (or
   * `detected` when it was never routed). The one move back, and only from
   * `answered`.
   */
  | { type: 'reopened'; stage: 'routed' | 'detected' };

/**
 * What a step did to a record's stage: `moved` it, left it as it was
 * (`kept`: the step moves no stage, or the record is in that stage), or
 * `refused` a move the table does not allow (a move back, or from one end
 * to another); a refused step changes no stage.
 */
export type StepOutcome =
  | { type: 'moved'; from: RequestStage; to: RequestStage }
  | { type: 'kept'; stage: RequestStage }
  | { type: 'refused'; from: RequestStage; to: RequestStage };

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

/** The stage a step moves a record to, if it moves one. */
function targetOf(step: LedgerStep): RequestStage | undefined {
  switch (step.type) {
    case 'routed':
    case 'delivering':
    case 'pasted':
    case 'delivered':
    case 'confirmed':
    case 'unconfirmed':
    case 'answered-empty':
      return step.type;
    case 'answered':
      return step.response.instructions.trim() ? 'answered' : 'answered-empty';
    case 'submitting':
      return undefined;
    case 'closed':
    case 'reached':
    case 'reopened':
      return step.stage;
    default: {
      const never: never = step;
      throw new Error(`unexpected ledger step ${JSON.stringify(never)}`);
    }
  }
}

/** What a step does to a record's stage (the transition table's verdict). */
export function outcomeOf(
  record: RequestRecord,
  step: LedgerStep,
): StepOutcome {
  const to = targetOf(step);
  const from = record.stage;
  if (to === undefined || to === from) return { type: 'kept', stage: from };
  if (step.type === 'reopened')
    return from === 'answered'
      ? { type: 'moved', from, to }
      : { type: 'refused', from, to };
  return canMove(from, to)
    ? { type: 'moved', from, to }
    : { type: 'refused', from, to };
}

/**
 * Pure: the record after a step. The stage moves only as STAGE_MOVES allows
 * (a step that would move it back leaves the stage as it is, e.g.
 * `delivered` after a hook confirmed the request); the step's own fields are
 * recorded anyway, except a close's reason on a record past closing, the
 * time of a confirmation the ledger refuses, and anything of a rebuilt step
 * the record is past already.
 */
export function applyStep(
  record: RequestRecord,
  step: LedgerStep,
): RequestRecord {
  return stepRecord(record, step).record;
}

function stepRecord(
  record: RequestRecord,
  step: LedgerStep,
): { record: RequestRecord; outcome: StepOutcome } {
  const outcome = outcomeOf(record, step);
  const next: RequestRecord = { ...record };
  // The only assignment of a request's stage in macs.
  if (outcome.type === 'moved') next.stage = outcome.to;
  switch (step.type) {
    case 'routed':
      next.routedAt = step.at;
      next.backend = step.backend;
      break;
    case 'answered':
      next.response = step.response;
      next.answeredAt = step.at;
      if (step.decision) next.decision = step.decision;
      break;
    case 'answered-empty':
    case 'unconfirmed':
    case 'reopened':
      break;
    case 'delivering':
      next.deliveringAt = step.at;
      break;
    case 'pasted':
      next.pastedAt = step.at;
      break;
    case 'submitting':
      next.submittingAt = step.at;
      break;
    case 'delivered':
      next.deliveredAt = step.at;
      break;
    case 'confirmed':
      // A confirmation of a request that ended otherwise records nothing.
      if (outcome.type === 'refused') return { record, outcome };
      next.confirmedAt = step.at;
      break;
    case 'closed':
      if (outcome.type === 'refused') return { record, outcome };
      next.closed = { reason: step.reason, by: step.by, at: step.at };
      break;
    case 'reached': {
      // Nothing is recorded of a step the record is past already.
      if (outcome.type !== 'moved') return { record, outcome };
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
  return { record: next, outcome };
}

/**
 * Apply a step to the record an agent's state holds, and say what it did to
 * the stage. The open requests are held as one object each (a stage that
 * finds another object, or none, knows the request was ended meanwhile), so
 * the new record's fields are written onto that object. Private to state/:
 * every writer of a request's stage takes its steps through take-step.ts
 * (applied, saved, its event left, a refusal reported), and only the crash
 * rebuild (rebuild.ts) applies them here directly
 * (test/lint/ledger-door.test.ts).
 */
export function recordStep(
  record: RequestRecord,
  step: LedgerStep,
): StepOutcome {
  const { record: next, outcome } = stepRecord(record, step);
  Object.assign(record, next);
  return outcome;
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
