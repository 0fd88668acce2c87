/**
 * The requests room: where a request is recorded. `block-request.ts` makes
 * a block a request and `raise.ts` is the one way in (added, saved,
 * `request.detected`, the approval rules, routed); `request-steps.ts`
 * takes the ledger's later steps and archives; `resume-open.ts` carries the
 * open requests of a restarted bridge on; `check-origin.ts` checks who
 * asked.
 */
import type { AgentContext } from '../agent-context.js';
import { createRequestSteps, type RequestSteps } from './request-steps.js';
import { createRequests, type Requests } from './block-request.js';

export type { RequestSteps } from './request-steps.js';
export type { LastAsked } from './last-asked.js';
export type {
  BlockTaken,
  DetectedBlock,
  Requests,
  Routed,
} from './block-request.js';
export { corruptStateWarning, resumeRequests } from './resume-open.js';

/** The ledger's steps for one agent, and its requests raised and routed. */
export function createRequestsRoom(
  ctx: AgentContext,
  deps: Omit<Parameters<typeof createRequests>[1], 'steps'>,
): { steps: RequestSteps; requests: Requests } {
  const steps = createRequestSteps(ctx);
  const requests = createRequests(ctx, { ...deps, steps });
  return { steps, requests };
}
