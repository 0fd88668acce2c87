/**
 * Approvals from screens (docs/backends.md, "Approvals from screens"): a
 * preset's permission dialog seen on a worker's screen becomes one
 * `type=approval` request (origin `screen`) whose body is the dialog's text
 * and whose fingerprint is a hash of it (screen/dialog.ts). The config's
 * approval rules decide first, then it is routed like any request. A
 * decision is applied by pressing the preset's keys for the dialog, never
 * by typing the answer, and only after the live screen was read again and
 * shows the same dialog, with the same fingerprint, in the same pane running
 * the same program; else nothing is pressed and the request is expired
 * (dialog-apply.ts). A dialog that leaves the screen before a decision (a
 * person answered it there) expires its request. What a reading means, and
 * the record a dialog is raised with, are pure (dialog-approval.ts).
 */
import { makeRequestId } from '../../protocol/ids.js';
import { readDialog, type DialogReading } from '../../screen/dialog.js';
import type { RequestRecord } from '../../state/types.js';
import type { AgentStateName } from '../../config/states.js';
import { createDialogApply } from './dialog-apply.js';
import {
  dialogApprovalRecord,
  dialogDetectedData,
  isDefinite,
  isNewDialog,
  staleReason,
  type DialogMemory,
} from './dialog-checks.js';
import { claimRequestId } from '../../state/request-ids.js';
import { isDialogApproval } from '../requests/check-origin.js';
import { raiseRequest } from '../requests/raise.js';
import type { DialogApprovalHost, DialogContext } from './types.js';

export type { DialogApprovalHost, DialogContext };

export interface DialogApprovals {
  /**
   * After a reading of the screen (not under `serial`): raise a request for
   * a new dialog, expire the open ones whose dialog left or changed.
   * `screenState` is the screen's own classification (hooks aside);
   * `capturedAt` (epoch ms) when the capture was asked for: a reading older
   * than the last request raised or keys pressed is passed over (it may show
   * a dialog already answered). Returns a dialog approval a rule answered at
   * once, for its caller to hand to delivery (which calls `apply`).
   */
  observe: (
    screen: string,
    screenState: AgentStateName,
    capturedAt: number,
  ) => Promise<RequestRecord | undefined>;
  /** Apply the decision of an answered dialog approval (not under `serial`). */
  apply: (record: RequestRecord, signal: AbortSignal) => Promise<void>;
}

export function createDialogApprovals(
  ctx: DialogContext,
  host: DialogApprovalHost,
): DialogApprovals {
  const { agent, pane, tmux } = ctx;
  const memory: DialogMemory = { settled: undefined, lastActionAt: 0 };
  const apply = createDialogApply(ctx, host, memory);
  let raising = false;

  function openScreenApprovals(): RequestRecord[] {
    return Object.values(ctx.current().requests).filter(isDialogApproval);
  }

  async function observe(
    screen: string,
    screenState: AgentStateName,
    capturedAt: number,
  ): Promise<RequestRecord | undefined> {
    const dialog = ctx.profile.dialog;
    const reading =
      screenState === 'approval' && dialog
        ? readDialog(screen, dialog)
        : undefined;
    return ctx.serial(async () => {
      if (capturedAt < memory.lastActionAt) return undefined;
      for (const record of openScreenApprovals()) {
        const reason = staleReason(record, reading, screenState);
        if (reason !== undefined)
          await host.steps.closeUnanswered(record, 'expired', reason, 'bridge');
      }
      if (!reading) {
        if (isDefinite(reading, screenState)) memory.settled = undefined;
        return undefined;
      }
      if (!isNewDialog(reading, memory.settled, openScreenApprovals()))
        return undefined;
      if (raising || !host.enabled(reading)) return undefined;
      raising = true;
      memory.lastActionAt = Date.now();
      try {
        return await raise(reading);
      } finally {
        raising = false;
      }
    });
  }

  /**
   * A new dialog: one request, routed, or decided by a rule (returned, to be
   * applied like any answer). Under `serial`.
   */
  async function raise(
    reading: DialogReading,
  ): Promise<RequestRecord | undefined> {
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    const pid = ctx.panePid;
    if (!info || info.dead || pid === undefined || info.pid !== pid)
      return undefined;
    const s = ctx.current();
    const now = new Date();
    const id = await claimRequestId(
      ctx.paths,
      agent,
      makeRequestId({
        agent,
        body: `${reading.fingerprint}\n${reading.text}`,
        now,
      }),
    );
    const record = dialogApprovalRecord({
      id,
      agent,
      pane,
      panePid: pid,
      command: info.currentCommand,
      ...(ctx.session ? { session: ctx.session } : {}),
      reading,
      detectedAt: now.toISOString(),
    });
    const raised = await raiseRequest(
      ctx,
      record,
      dialogDetectedData(record, s.logOffset),
    );
    // A rule answered it: its keys are pressed like any answer's.
    if (raised.type === 'ruled') return record;
    await host.route(record);
    return undefined;
  }

  return { observe, apply };
}
