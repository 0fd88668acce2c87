/**
 * Delivery of one request's answer, as the ledger sees it: claim it (so a
 * Stop hook and the bridge never both hand it over), type it through the
 * typist's phases (typist/typist.ts: wait for a typeable state, type,
 * submit, confirm), and record each phase's result before the next one
 * begins: `delivering` before the first key, `pasted`, `submitting`,
 * `delivered` once the submit key is pressed, then `confirmed` or
 * `unconfirmed`. Approvals never reach the deliverer: a dialog's decision is
 * keys on a re-checked screen (dialog-apply.ts), a hook's is a decision file
 * (hook-approvals.ts).
 */
import { errorMessage } from '../../errors.js';
import { takeStep } from '../../state/take-step.js';
import type { RequestRecord } from '../../state/types.js';
import type { AgentStateName } from '../../config/states.js';
import type { AgentContext } from '../agent-context.js';
import type { ConfirmResult, Deliverer, Typing } from '../../typist/typist.js';
import { createDeliveryWaits, DELIVERY_WAIT_REPORT_MS } from './waits.js';
import type { RequestSteps } from '../requests/request-steps.js';
import { isDialogApproval } from '../requests/check-origin.js';
import type { DeliveryHookNeeds } from '../hook-link-host.js';
import type { HookDeliveries } from './hook-deliveries.js';

/** With working hooks, a confirmation waits this long for UserPromptSubmit. */
const HOOK_CONFIRM_WAIT_MS = 3_000;

/**
 * What delivery needs of the hooks: the Stop hook's claims
 * (hook-deliveries.ts, this room's), and what the supervisor gives.
 */
export type DeliveryHooks = Pick<
  HookDeliveries,
  'deliveredByHook' | 'markDeliveredByHook' | 'claimForTyping' | 'signalFor'
> &
  DeliveryHookNeeds;

export interface Delivery {
  /** Start delivering a request's answer (once per request at a time). */
  schedule: (record: RequestRecord) => void;
  /** Wait for every delivery under way to end (stopping). */
  settle: () => Promise<void>;
}

export function createDelivery(
  ctx: AgentContext,
  deps: {
    steps: RequestSteps;
    deliverer: Deliverer;
    hooks: DeliveryHooks;
    /** Apply a dialog's decision (dialog-apply.ts), if the preset has one. */
    applyDialog?: (record: RequestRecord, signal: AbortSignal) => Promise<void>;
    deliveryState(): Promise<AgentStateName>;
    stillAsked(record: RequestRecord): Promise<boolean>;
    isPaused(requestId: string): boolean;
    notePaneGone(): Promise<void>;
  },
): Delivery {
  const { pane, profile, config, serial, log } = ctx;
  const { steps, hooks } = deps;
  const waits = createDeliveryWaits(ctx, steps);
  const deliveries = new Set<Promise<void>>();

  /**
   * The pane died or went away during a delivery. Nothing typed yet: the
   * answer stays `answered` and goes when the pane runs again (respawned),
   * or through a bridge started on the agent's new pane. Typing had begun:
   * the text went to a program that is gone; it is recorded `unconfirmed`
   * and archived, never typed again (at most once). Runs under `serial`.
   */
  async function onPaneGone(record: RequestRecord): Promise<void> {
    if (ctx.current().requests[record.id] !== record) return;
    const typing = record.stage === 'delivering' || record.stage === 'pasted';
    await ctx.emit({
      type: 'error',
      requestId: record.id,
      data: {
        where: 'deliver',
        paneGone: true,
        stage: typing ? 'unconfirmed' : record.stage,
        message: typing
          ? `pane ${pane} died while this answer was being typed; recorded unconfirmed, not typed again`
          : `pane ${pane} is dead or gone; the answer is kept and delivered when the pane runs again or a bridge supervises the agent's new pane`,
      },
    });
    if (!typing) return;
    await steps.recordUnconfirmed(
      record,
      `pane ${pane} died while this answer was being typed; not re-sent (delivery is at most once)`,
    );
    await steps.finish(record);
  }

  /** The last look before the first keystroke, then `delivering` saved. */
  async function beforeType(
    record: RequestRecord,
    claimed: { byHook: boolean },
  ): Promise<boolean> {
    // The pane still runs the program that asked (not respawned, not
    // retagged), and the request is still open (not dismissed meanwhile).
    if (!(await deps.stillAsked(record))) return false;
    // Exclusive claim against the Stop hook: whoever is first delivers.
    if (!(await hooks.claimForTyping(record))) {
      claimed.byHook = true;
      return false;
    }
    return serial(async () => {
      // Dismissed or ended while the claim was made: type nothing.
      if (
        ctx.current().requests[record.id] !== record ||
        record.stage !== 'answered'
      )
        return false;
      // The event goes first here: a state rebuilt from the event log
      // (state/rebuild.ts) must know that typing may have begun.
      delete record.waits;
      await takeStep(
        ctx,
        record,
        { type: 'delivering', at: new Date().toISOString() },
        { type: 'request.delivering' },
        { eventFirst: true },
      );
      return true;
    });
  }

  /** Save one step of typing (under `serial`). */
  function saveStep(
    record: RequestRecord,
    type: 'pasted' | 'submitting',
  ): Promise<void> {
    return serial(async () => {
      await takeStep(ctx, record, { type, at: new Date().toISOString() });
    });
  }

  async function paneGone(record: RequestRecord): Promise<void> {
    await serial(() => onPaneGone(record));
    void deps.notePaneGone().catch(() => undefined);
  }

  /** Nothing left to type once sanitized: archived as answered-empty. */
  async function recordEmpty(record: RequestRecord): Promise<void> {
    await takeStep(
      ctx,
      record,
      { type: 'answered-empty' },
      {
        type: 'request.answered-empty',
        data: { reason: 'nothing left after sanitizing' },
      },
    );
    await steps.finish(record);
  }

  /**
   * The end of a submission: confirmed (unless a hook confirmed it first),
   * or unconfirmed, which counts as delivered and is never typed again.
   * `confirmed` undefined: the pane's program ended before the submit key,
   * so nothing was watched. Runs under `serial`.
   */
  async function recordConfirmation(
    record: RequestRecord,
    confirmed: ConfirmResult | undefined,
    submits: number,
  ): Promise<void> {
    if (record.stage !== 'confirmed') {
      if (confirmed?.phase === 'confirmed') {
        await takeStep(
          ctx,
          record,
          { type: 'confirmed', at: new Date().toISOString() },
          {
            type: 'request.confirmed',
            data: { via: confirmed.confirmation, submits: confirmed.submits },
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
              submits: confirmed?.submits ?? submits,
              reason:
                confirmed === undefined
                  ? `the program in pane ${pane} ended before the submit key; not typed again`
                  : `no sign that the agent took the text after ${String(confirmed.submits)} press(es) of ${profile.rules.submitKey}; not typed again`,
            },
          },
        );
      }
    }
    if (ctx.current().requests[record.id]) await steps.finish(record);
    else await steps.refinish(record);
  }

  /** Type a worker's answer in the pane's turn, and end the turn. */
  async function typeAnswer(
    record: RequestRecord,
    calledOff: AbortSignal,
  ): Promise<void> {
    const typing = await deps.deliverer.begin({
      pane,
      text: record.response?.instructions ?? '',
      rules: profile.rules,
      ...(record.asker ? { asker: record.asker } : {}),
      waitReportMs: DELIVERY_WAIT_REPORT_MS,
      readState: () => deps.deliveryState(),
      classify: profile.classify,
      // SPEC §6 step 6; a UserPromptSubmit hook confirms too
      // (hook-deliveries.ts).
      confirm: {
        retries: config.submitRetries,
        confirmed: () => record.stage === 'confirmed',
        // An agent whose hooks work confirms by its UserPromptSubmit hook.
        preferConfirmedMs:
          ctx.current().hooks?.status === 'active' ? HOOK_CONFIRM_WAIT_MS : 0,
      },
      isPaused: () => ctx.current().paused || deps.isPaused(record.id),
      deliverTimeoutMs: config.deliverTimeoutSec * 1000,
      signal: AbortSignal.any([
        ctx.signal,
        hooks.signalFor(record.id),
        calledOff,
      ]),
    });
    try {
      await typeInTurn(record, typing);
    } finally {
      typing.end();
    }
  }

  /**
   * The typist's phases, the result of each recorded before the next
   * begins: waited (then the last look, and `delivering` saved), typed
   * (`pasted`), the submit delay over (`submitting`), submitted
   * (`delivered`, archived), then confirmed or not.
   */
  async function typeInTurn(
    record: RequestRecord,
    typing: Typing,
  ): Promise<void> {
    let waited = await typing.waitTypeable();
    while (waited.phase === 'busy' || waited.phase === 'waiting') {
      if (waited.phase === 'waiting')
        await waits.noteWaiting(record, waited.reason);
      else
        await ctx.emit({
          type: 'delivery.timeout',
          requestId: record.id,
          data: { state: waited.state, waitedMs: waited.waitedMs },
        });
      waited = await typing.waitTypeable();
    }
    switch (waited.phase) {
      case 'empty':
        return serial(() => recordEmpty(record));
      case 'gone':
        return paneGone(record);
      case 'asker-gone':
        return waits.askerGone(record, waited.asker);
      case 'aborted':
        // Stopping, called off, or handed over by the Stop hook: nothing typed.
        return;
      case 'waited':
        break;
      default: {
        const never: never = waited;
        throw new Error(`unexpected wait ${JSON.stringify(never)}`);
      }
    }
    // The last look, right before the first keystroke.
    const claimed = { byHook: false };
    if (!(await beforeType(record, claimed))) {
      // The Stop hook claimed it first: the agent has it; nothing was typed.
      // (Or the request was ended meanwhile: dismissed, or its agent gone.)
      if (claimed.byHook) await serial(() => hooks.markDeliveredByHook(record));
      return;
    }
    if ((await typing.type()).phase === 'gone') return paneGone(record);
    await saveStep(record, 'pasted');
    if ((await typing.awaitSubmit()).phase === 'gone') return paneGone(record);
    // A restart in `pasted` with this set may find the key pressed already.
    await saveStep(record, 'submitting');
    const submitted = await typing.submit();
    if (submitted.phase === 'gone') return paneGone(record);
    if (!submitted.watchable)
      return serial(async () => {
        hooks.noteSubmitted();
        await steps.markDelivered(record, submitted);
        await recordConfirmation(record, undefined, submitted.submits);
      });
    // Delivered and archived as soon as the submit key is pressed (a
    // restart then never types it again); the confirmation that follows
    // updates the archived record.
    await serial(async () => {
      // Working until the agent's next hook call says otherwise.
      hooks.noteSubmitted();
      await steps.markDelivered(record, submitted);
      await steps.finish(record);
    });
    const confirmed = await typing.confirm();
    await serial(() =>
      recordConfirmation(record, confirmed, confirmed.submits),
    );
  }

  async function deliver(
    record: RequestRecord,
    calledOff: AbortSignal,
  ): Promise<void> {
    // A dialog's decision is keys on a re-checked screen, never text.
    if (isDialogApproval(record)) {
      if (deps.applyDialog)
        await deps.applyDialog(
          record,
          AbortSignal.any([ctx.signal, calledOff]),
        );
      else
        await serial(() =>
          steps.closeUnanswered(
            record,
            'expired',
            `preset ${profile.preset} describes no dialog to apply this decision to; nothing was pressed`,
            'bridge',
          ),
        );
      return;
    }
    if (record.origin === 'hook') {
      await serial(() => hooks.decideApproval(record));
      return;
    }
    // The agent's Stop hook may have handed this answer over already.
    if (await hooks.deliveredByHook(record)) {
      await serial(() => hooks.markDeliveredByHook(record));
      return;
    }
    await typeAnswer(record, calledOff);
  }

  return {
    schedule(record) {
      if (ctx.stopped) return;
      const calledOff = ctx.deliveries.start(record.id);
      if (!calledOff) return;
      const task = deliver(record, calledOff).catch(async (error: unknown) => {
        log.error({ err: error, requestId: record.id }, 'delivery failed');
        await ctx.emit({
          type: 'error',
          requestId: record.id,
          data: { where: 'deliver', message: errorMessage(error) },
        });
      });
      deliveries.add(task);
      void task.finally(() => {
        deliveries.delete(task);
        ctx.deliveries.end(record.id);
      });
    },
    async settle() {
      await Promise.allSettled([...deliveries]);
    },
  };
}
