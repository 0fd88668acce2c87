/**
 * Applying a dialog approval's decision (docs/backends.md, "Approvals from
 * screens"): the preset's keys for the dialog, never the answer's text, and
 * only after the live pane and screen were read again and show the same
 * dialog, with the same fingerprint, in the same pane running the same
 * program: once before the request is marked `delivering`, once more right
 * before the keys. Else nothing is pressed and the request is expired. Keys
 * are pressed once; the dialog leaving the screen confirms them.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage } from '../../errors.js';
import { dialogKeys, readDialog } from '../../screen/dialog.js';
import type { RequestRecord } from '../../state/types.js';
import type { PresetDialog } from '../../config/presets/types.js';
import { rulingEventData, rulingOf, verdictOf } from './approval-decision.js';
import {
  fingerprintOf,
  paneBlocker,
  recordBlocker,
  screenBlocker,
  type DialogMemory,
} from './dialog-checks.js';
import type { DialogApprovalHost, DialogContext } from './types.js';
import { takeStep } from '../../state/take-step.js';

/** After the keys, the dialog must leave the screen within this long. */
const DIALOG_CONFIRM_MS = 5_000;
/** How often the screen is read while waiting for the dialog to leave. */
const DIALOG_CONFIRM_POLL_MS = 100;
/** How often a paused delivery looks whether it may go on. */
const PAUSE_POLL_MS = 250;

/** Apply the decision of an answered dialog approval (not under `serial`). */
export type ApplyDialog = (
  record: RequestRecord,
  signal: AbortSignal,
) => Promise<void>;

/** `memory`: shared with the readings that raise dialog approvals. */
export function createDialogApply(
  ctx: Omit<DialogContext, 'paths' | 'config' | 'panePid'>,
  host: Pick<DialogApprovalHost, 'steps' | 'isPaused' | 'confirmMs'>,
  memory: DialogMemory,
): ApplyDialog {
  const { agent, pane, tmux } = ctx;
  const confirmMs = host.confirmMs ?? DIALOG_CONFIRM_MS;
  const { steps } = host;

  /**
   * Why the decision must not be applied now, read from the live pane and
   * screen; undefined when the same dialog is there, in the same pane,
   * running the same program.
   */
  async function whyNot(record: RequestRecord): Promise<string | undefined> {
    const blocked = recordBlocker(record);
    if (blocked !== undefined) return blocked;
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    // The program is checked against the one that showed the dialog
    // (its record's pid), from the pane's facts read just now.
    const elsewhere = paneBlocker(
      record,
      { agent, pane, ...(ctx.session ? { session: ctx.session } : {}) },
      info,
    );
    if (elsewhere !== undefined) return elsewhere;
    const dialog = ctx.profile.dialog;
    if (!dialog)
      return `the agent's preset no longer describes a dialog (the pane runs another program)`;
    const screen = await tmux.capturePane(pane).catch(() => undefined);
    if (screen === undefined) return `pane ${pane} could not be read`;
    const reading =
      ctx.profile.classify(screen) === 'approval'
        ? readDialog(screen, dialog)
        : undefined;
    return screenBlocker(record, reading);
  }

  async function refuse(record: RequestRecord, reason: string): Promise<void> {
    await ctx.serial(async () => {
      if (ctx.current().requests[record.id] !== record) return;
      const fingerprint = fingerprintOf(record);
      if (fingerprint) memory.settled = fingerprint;
      await steps.closeUnanswered(
        record,
        'expired',
        `${reason}; nothing was pressed`,
        'bridge',
      );
    });
  }

  /** Has the dialog left (or changed)? Reads the screen until the deadline. */
  async function waitForDialogToLeave(
    dialog: PresetDialog,
    fingerprint: string,
    signal: AbortSignal,
  ): Promise<boolean> {
    const deadline = Date.now() + confirmMs;
    for (;;) {
      const screen = await tmux.capturePane(pane).catch(() => undefined);
      if (
        screen !== undefined &&
        readDialog(screen, dialog)?.fingerprint !== fingerprint
      )
        return true;
      if (Date.now() >= deadline || signal.aborted) return false;
      await delay(DIALOG_CONFIRM_POLL_MS, undefined, { signal }).catch(
        () => undefined,
      );
    }
  }

  /** Mark the request `delivering`, unless it ended or changed meanwhile. */
  function begin(record: RequestRecord, signal: AbortSignal): Promise<boolean> {
    return ctx.serial(async () => {
      if (
        ctx.current().requests[record.id] !== record ||
        record.stage !== 'answered' ||
        signal.aborted
      )
        return false;
      // The event first: a state rebuilt from the log must know that keys
      // may have been pressed (they are never pressed again).
      await takeStep(
        ctx,
        record,
        { type: 'delivering', at: new Date().toISOString() },
        { type: 'request.delivering', data: { method: 'dialog-keys' } },
        { eventFirst: true },
      );
      return true;
    });
  }

  return async function apply(record, signal) {
    if (record.stage !== 'answered') return;
    // Paused by a person: keys wait too (then the dialog is looked at anew).
    while (host.isPaused(record)) {
      if (signal.aborted) return;
      await delay(PAUSE_POLL_MS, undefined, { signal }).catch(() => undefined);
    }
    if (signal.aborted) return;
    const ruling = rulingOf(record.response);
    const before = await whyNot(record);
    if (before !== undefined) {
      await refuse(record, before);
      return;
    }
    if (!(await begin(record, signal))) return;
    // The last look, right before the keys.
    const last = await whyNot(record);
    if (last !== undefined) {
      await refuse(record, last);
      return;
    }
    const dialog = ctx.profile.dialog;
    if (!dialog) {
      await refuse(record, `the agent's preset no longer describes a dialog`);
      return;
    }
    const keys = dialogKeys(dialog, ruling.decision);
    const fingerprint = fingerprintOf(record) ?? '';
    // Readings from before the keys may still show this dialog.
    memory.lastActionAt = Date.now();
    memory.settled = fingerprint;
    let pressed = 0;
    let failure: string | undefined;
    for (const key of keys) {
      try {
        await tmux.sendKey(pane, key);
        pressed += 1;
      } catch (error) {
        failure = errorMessage(error);
        break;
      }
    }
    const left =
      failure === undefined &&
      (await waitForDialogToLeave(dialog, fingerprint, signal));
    await ctx.serial(async () => {
      // Ended meanwhile (the program restarted: recorded unconfirmed there).
      if (ctx.current().requests[record.id] !== record) return;
      const at = new Date().toISOString();
      record.decision = verdictOf(ruling, at);
      ctx.current().counters.delivered += 1;
      await takeStep(
        ctx,
        record,
        { type: 'delivered', at },
        {
          type: 'request.delivered',
          data: {
            method: 'dialog-keys',
            keys: keys.slice(0, pressed),
            ...rulingEventData(ruling),
          },
        },
      );
      if (left) {
        await takeStep(
          ctx,
          record,
          { type: 'confirmed', at: new Date().toISOString() },
          {
            type: 'request.confirmed',
            data: { via: 'screen', dialog: dialog.name },
          },
        );
      } else {
        await takeStep(
          ctx,
          record,
          { type: 'unconfirmed' },
          {
            type: 'delivery.unconfirmed',
            data: {
              reason:
                failure !== undefined
                  ? `pressing ${keys.join(' ')} failed: ${failure}`
                  : `the dialog still shows ${String(confirmMs)} ms after ${keys.join(' ')}; not pressed again`,
            },
          },
        );
      }
      await steps.finish(record);
    });
  };
}
