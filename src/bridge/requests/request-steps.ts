/**
 * The steps of a request's ledger that several stages of the bridge take:
 * delivered, unconfirmed, ended without an answer, archived. Each changes
 * the record (state/ledger.ts), saves the state and leaves its event, in
 * that order, so a bridge killed between two steps resumes from the last
 * one saved. Every function here runs under the context's `serial`.
 */
import {
  outcomeOf,
  retireRecord,
  type LedgerStep,
  type UnansweredEnd,
} from '../../state/ledger.js';
import { isOpenStage, type RequestRecord } from '../../state/types.js';
import type { AgentContext } from '../agent-context.js';
import {
  archiveRequest,
  removeRequestFiles,
  writeArchivedRecord,
} from './archive.js';
import { checkOrigin } from './check-origin.js';
import { takeStep } from '../../state/take-step.js';

export interface RequestSteps {
  /** Archive a finished request and drop it from the open set. */
  finish: (record: RequestRecord) => Promise<void>;
  /**
   * A finished request's stage changed afterwards (its delivery was
   * confirmed, or not): archive it again and update the recent list.
   */
  refinish: (record: RequestRecord) => Promise<void>;
  /**
   * End an open request without typing anything: `expired` (its agent can
   * no longer take the answer) or `dismissed` (a person ended it). Archived
   * with the reason; a delivery under way is called off.
   */
  closeUnanswered: (
    record: RequestRecord,
    stage: UnansweredEnd,
    reason: string,
    by: string,
  ) => Promise<void>;
  /** Typing may have begun and cannot be checked: never typed again. */
  recordUnconfirmed: (record: RequestRecord, reason: string) => Promise<void>;
  /** Record that the text was typed and submitted (once). */
  markDelivered: (
    record: RequestRecord,
    delivery: { method: string; chars: number; waitedMs: number },
  ) => Promise<void>;
  /**
   * A delivery a restart completed: by pressing the submit key, or, when the
   * composer showed the key pressed already (`submitted-before-restart`),
   * by pressing nothing. Archived.
   */
  recordResumedDelivery: (
    record: RequestRecord,
    method:
      | 'submit-after-restart'
      | 'typed-before-restart'
      | 'submitted-before-restart',
  ) => Promise<void>;
  /**
   * End a request that the agent as it runs now did not ask (checkOrigin):
   * `expired`, archived with the reason, never typed. One whose typing had
   * begun went to the old program: recorded `unconfirmed`, never completed
   * in the new one. Returns whether it was ended.
   */
  endForeign: (record: RequestRecord) => Promise<boolean>;
  /**
   * The pane runs another program than the one that asked (respawn-pane,
   * `macs restart`): the new program never asked, so the open requests of
   * the old one are ended, never typed into it.
   */
  onProgramRestarted: (pid: number) => Promise<void>;
  /**
   * A known agent exited to its shell and a program was started there again
   * (same pane, same pane pid): the new program never asked the open
   * requests of the one that exited.
   */
  onRelaunchedInShell: (command: string) => Promise<void>;
}

export function createRequestSteps(ctx: AgentContext): RequestSteps {
  const { agent, pane, paths } = ctx;

  /** `delivered` (a hook may have confirmed it first: it stays `confirmed`). */
  async function recordDelivered(
    record: RequestRecord,
    data: Record<string, unknown>,
  ): Promise<void> {
    ctx.current().counters.delivered += 1;
    await takeStep(ctx, record, {
      type: 'delivered',
      at: new Date().toISOString(),
    });
    // Typed and submitted, whatever its stage says: the delivery's own event.
    await ctx.emit({ type: 'request.delivered', requestId: record.id, data });
  }

  const steps: RequestSteps = {
    async finish(record) {
      await archiveRequest(paths, record);
      retireRecord(ctx.current(), record);
      await ctx.saveNow();
      await removeRequestFiles(paths, record.id);
      await ctx.emit({
        type: 'request.archived',
        requestId: record.id,
        data: { stage: record.stage },
      });
    },

    async refinish(record) {
      const s = ctx.current();
      s.recent = s.recent.map((r) =>
        r.id === record.id ? { ...r, stage: record.stage } : r,
      );
      // Only the record changed; the next request may be arriving right now.
      await writeArchivedRecord(paths, record);
      ctx.saveLater();
    },

    async closeUnanswered(record, stage, reason, by) {
      const closed: LedgerStep = {
        type: 'closed',
        stage,
        reason,
        by,
        at: new Date().toISOString(),
      };
      const refused = outcomeOf(record, closed).type === 'refused';
      if (!refused) ctx.deliveries.callOff(record.id);
      await takeStep(ctx, record, closed, {
        type: stage === 'expired' ? 'request.expired' : 'request.dismissed',
        data: { reason, by },
      });
      // Typing had begun: a delivery under way goes on; a typed one is done.
      if (!refused || !isOpenStage(record.stage)) await steps.finish(record);
    },

    async recordUnconfirmed(record, reason) {
      await takeStep(
        ctx,
        record,
        { type: 'unconfirmed' },
        { type: 'delivery.unconfirmed', data: { reason } },
      );
    },

    async markDelivered(record, delivery) {
      if (record.deliveredAt !== undefined) return;
      await recordDelivered(record, {
        method: delivery.method,
        chars: delivery.chars,
        waitedMs: delivery.waitedMs,
      });
    },

    async recordResumedDelivery(record, method) {
      await recordDelivered(record, { method });
      await steps.finish(record);
    },

    async endForeign(record) {
      const origin = checkOrigin(record, ctx.incarnation());
      if (
        origin.type === 'asker' ||
        ctx.current().requests[record.id] !== record
      )
        return false;
      const reason = origin.reason;
      if (record.stage === 'delivering' || record.stage === 'pasted') {
        await steps.recordUnconfirmed(
          record,
          `${reason}; typing had begun in the program that asked, so it is not completed in this one`,
        );
        await steps.finish(record);
        return true;
      }
      await steps.closeUnanswered(record, 'expired', reason, 'bridge');
      return true;
    },

    async onProgramRestarted(pid) {
      const before = ctx.panePid;
      if (before === undefined || pid === before) return;
      ctx.panePid = pid;
      await ctx.emit({
        type: 'warning',
        data: {
          message: `the program in pane ${pane} was restarted (pid ${String(before)}, now ${String(pid)}); its open requests are ended`,
          pane,
          pid,
          previousPid: before,
        },
      });
      for (const record of Object.values(ctx.current().requests))
        await steps.endForeign(record);
    },

    async onRelaunchedInShell(command) {
      const reason = `the agent exited to its shell and was started again (${command}); the new program never asked this`;
      await ctx.emit({
        type: 'warning',
        data: {
          message: `${agent} was started again in its shell; its open requests are ended`,
          pane,
        },
      });
      for (const record of Object.values(ctx.current().requests)) {
        if (ctx.current().requests[record.id] !== record) continue;
        if (record.stage === 'delivering' || record.stage === 'pasted') {
          await steps.recordUnconfirmed(record, reason);
          await steps.finish(record);
        } else await steps.closeUnanswered(record, 'expired', reason, 'bridge');
      }
    },
  };
  return steps;
}
