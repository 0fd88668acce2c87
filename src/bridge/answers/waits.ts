/**
 * What delivery tells while an answer waits to be typed: why it waits
 * (the typist's `waiting`: kept on the request's record for `macs status`,
 * the live view and the web page, and told as `delivery.waiting`), and the
 * end of a request whose asker has ended (never typed into whatever the
 * pane runs since: a shell would take the answer for a command).
 */
import type { RequestRecord } from '../../state/types.js';
import type { WaitReason } from '../../typist/typist.js';
import { formatWaitReason } from '../../typist/wait-typeable.js';
import type { AgentContext } from '../agent-context.js';
import type { RequestSteps } from '../requests/request-steps.js';

/** An answer that waits this long to be typed says why (`delivery.waiting`). */
export const DELIVERY_WAIT_REPORT_MS = 3_000;

export interface DeliveryWaits {
  /** Record why the answer waits, and tell it. */
  noteWaiting(record: RequestRecord, reason: WaitReason): Promise<void>;
  /** The program that asked (`asker`) has ended: the request expires. */
  askerGone(record: RequestRecord, asker: string): Promise<void>;
}

export function createDeliveryWaits(
  ctx: AgentContext,
  steps: Pick<RequestSteps, 'closeUnanswered'>,
): DeliveryWaits {
  const open = (record: RequestRecord) =>
    ctx.current().requests[record.id] === record;
  return {
    noteWaiting(record, reason) {
      const text = formatWaitReason(reason);
      return ctx.serial(async () => {
        if (!open(record)) return;
        record.waits = {
          reason: text,
          since: record.waits?.since ?? new Date().toISOString(),
        };
        // Saved before it is told: a reader of the event finds it in status.
        await ctx.saveNow();
        await ctx.emit({
          type: 'delivery.waiting',
          requestId: record.id,
          data: { reason: text, why: reason },
        });
      });
    },
    askerGone(record, asker) {
      return ctx.serial(async () => {
        if (!open(record)) return;
        await steps.closeUnanswered(
          record,
          'expired',
          `the program that asked (${asker}) has ended; its answer was not typed into what the pane runs now`,
          'bridge',
        );
      });
    },
  };
}
