/**
 * A step of a request's ledger as the bridge takes it: the record changed
 * by the ledger's one writer (state/ledger.ts `recordStep`, whose table
 * refuses a move back), the state saved, then the step's event. A refused
 * step says so in a `request.step-refused` event and leaves no event of its
 * own. Runs under the context's `serial`.
 */
import type { EventInput } from '../../events/types.js';
import {
  recordStep,
  type LedgerStep,
  type StepOutcome,
} from '../../state/ledger.js';
import type { RequestRecord } from '../../state/types.js';

/** What taking a step needs of the agent's context. */
export interface StepHost {
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
}

/** The step's own event (its request id is the record's). */
export type StepEvent = Omit<EventInput, 'agent' | 'requestId'>;

/** Record the step, save, leave `event` unless the step was refused. */
export async function takeStep(
  host: StepHost,
  record: RequestRecord,
  step: LedgerStep,
  event?: StepEvent,
): Promise<StepOutcome> {
  const outcome = recordStep(record, step);
  if (outcome.type === 'refused')
    await host.emit(refusedStepEvent(record, step, outcome));
  await host.saveNow();
  if (event !== undefined && outcome.type !== 'refused')
    await host.emit({ ...event, requestId: record.id });
  return outcome;
}

/**
 * The event a refused step leaves (`request.step-refused`): which step,
 * from which stage, to which; the stage stays.
 */
export function refusedStepEvent(
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
