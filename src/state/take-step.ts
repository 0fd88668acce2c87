/**
 * The one door to the request ledger: every writer of an agent's state (the
 * bridge's rooms, the hooks' approvals, the screen's dialogs, `macs dismiss`
 * and `macs start` when no bridge runs) takes a step of a request's way
 * here, in one call: the step applied by the ledger's table
 * (ledger.ts, whose `recordStep` is private to state/), the state saved,
 * the step's event left, and a refused step reported as
 * `request.step-refused` (its own event is then not left). Only the crash
 * rebuild (rebuild.ts) applies steps to records that nobody saves.
 */
import type { EventInput } from '../events/types.js';
import {
  outcomeOf,
  recordStep,
  type LedgerStep,
  type StepOutcome,
} from './ledger.js';
import type { RequestRecord } from './types.js';

/** What taking a step needs of its writer: a save and an event sink. */
export interface StepHost {
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
}

/** The step's own event (its request id is the record's). */
export type StepEvent = Omit<EventInput, 'agent' | 'requestId'>;

export interface StepOptions {
  /**
   * Leave the event before the step is applied and saved: for a claim a
   * state rebuilt from the event log must know of even when the save is
   * lost (`request.delivering`: keys may have been pressed).
   */
  eventFirst?: boolean;
  /**
   * Other changes of the state that go into the same save (a counter, the
   * recent list, the archive), made after the step unless it is refused.
   */
  alongside?: () => void | Promise<void>;
}

/**
 * Take a step of a request's way: applied to the record the state holds
 * (a refused step moves no stage, but records its own fields, as
 * ledger.ts says), saved, its event left; a refused step is reported.
 * Runs under the writer's lock or `serial`.
 */
export async function takeStep(
  host: StepHost,
  record: RequestRecord,
  step: LedgerStep,
  /** The step's own event, left unless the step is refused. */
  event?: StepEvent,
  options: StepOptions = {},
): Promise<StepOutcome> {
  const { eventFirst = false, alongside } = options;
  const refused = outcomeOf(record, step).type === 'refused';
  if (event !== undefined && eventFirst && !refused)
    await host.emit({ ...event, requestId: record.id });
  const outcome = recordStep(record, step);
  if (outcome.type === 'refused')
    await host.emit(refusedStepEvent(record, step, outcome));
  else await alongside?.();
  await host.saveNow();
  if (event !== undefined && !eventFirst && outcome.type !== 'refused')
    await host.emit({ ...event, requestId: record.id });
  return outcome;
}

/**
 * The event a refused step leaves (`request.step-refused`): which step,
 * from which stage, to which; the stage stays.
 */
function refusedStepEvent(
  record: Pick<RequestRecord, 'id'>,
  step: LedgerStep,
  outcome: Extract<StepOutcome, { type: 'refused' }>,
): Omit<EventInput, 'agent'> {
  return {
    type: 'request.step-refused',
    requestId: record.id,
    data: { step: step.type, from: outcome.from, to: outcome.to },
  };
}
