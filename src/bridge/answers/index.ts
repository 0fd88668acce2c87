/**
 * The answers room: an answer taken once (`answers.ts`) and handed on: a
 * worker's typed into its pane (`delivery.ts`, through the typist's
 * phases, each recorded in the ledger), a hook's approval to its decision
 * file, a dialog's to its keys; `hook-deliveries.ts` holds the Stop hook's
 * hand-overs and confirmations.
 */
import type { AgentContext } from '../agent-context.js';
import type { DeliveryHookNeeds } from '../hook-link-host.js';
import { createAnswers, type Answers } from './answers.js';
import { createDelivery, type Delivery } from './delivery.js';
import {
  createHookDeliveries,
  type HookDeliveries,
} from './hook-deliveries.js';

export type { Answers } from './answers.js';
export type { Delivery, DeliveryHooks } from './delivery.js';
export type { HookDeliveries } from './hook-deliveries.js';

/**
 * Answers taken and delivered, the delivery re-checking who asked and
 * claiming each answer against the Stop hook (`hookDeliveries`, which the
 * supervisor also hands what the hook link saw).
 */
export function createAnswersRoom(
  ctx: AgentContext,
  deps: Omit<Parameters<typeof createDelivery>[1], 'stillAsked' | 'hooks'> & {
    hooks: DeliveryHookNeeds;
  },
): { answers: Answers; delivery: Delivery; hookDeliveries: HookDeliveries } {
  const hookDeliveries = createHookDeliveries({
    paths: ctx.paths,
    serial: ctx.serial,
    current: ctx.current,
    emit: ctx.emit,
    saveNow: ctx.saveNow,
    finish: deps.steps.finish,
  });
  const answers = createAnswers(ctx, {
    steps: deps.steps,
    decideByHook: deps.hooks.decideApproval,
    deliver: (record) => delivery.schedule(record),
  });
  const delivery = createDelivery(ctx, {
    ...deps,
    hooks: {
      ...deps.hooks,
      signalFor: hookDeliveries.signalFor,
      deliveredByHook: hookDeliveries.deliveredByHook,
      claimForTyping: hookDeliveries.claimForTyping,
      markDeliveredByHook: hookDeliveries.markDeliveredByHook,
    },
    stillAsked: answers.stillAsked,
  });
  return { answers, delivery, hookDeliveries };
}
