/**
 * The answers room: an answer taken once (`answers.ts`) and handed on: a
 * worker's typed into its pane (`delivery.ts`, through the typist's
 * phases, each recorded in the ledger), a hook's approval to its decision
 * file, a dialog's to its keys; `hook-deliveries.ts` holds the Stop hook's
 * hand-overs and confirmations.
 */
import type { AgentContext } from '../agent-context.js';
import { createAnswers, type Answers } from './answers.js';
import { createDelivery, type Delivery } from './delivery.js';

export type { Answers } from './answers.js';
export type { Delivery, DeliveryHooks } from './delivery.js';

/** Answers taken and delivered, the delivery re-checking who asked. */
export function createAnswersRoom(
  ctx: AgentContext,
  deps: Omit<Parameters<typeof createDelivery>[1], 'stillAsked'>,
): { answers: Answers; delivery: Delivery } {
  const answers = createAnswers(ctx, {
    steps: deps.steps,
    decideByHook: deps.hooks.decideApproval,
    deliver: (record) => delivery.schedule(record),
  });
  const delivery = createDelivery(ctx, {
    ...deps,
    stillAsked: answers.stillAsked,
  });
  return { answers, delivery };
}
