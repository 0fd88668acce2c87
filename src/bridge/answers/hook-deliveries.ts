/**
 * Typed answers and the agent's hooks (docs/hooks.md): whoever claims an
 * answered request first delivers it (state/claim.ts). A Stop hook that
 * claimed one handed the answer to the agent itself, so the bridge stops
 * waiting to type it and records the delivery; an answer the bridge typed
 * is confirmed by the next prompt the agent accepts (UserPromptSubmit), as
 * the hook's observation reports it.
 */
import { claimRequest, readClaim } from '../../state/claim.js';
import type { HookObservation } from '../../state/hook-files.js';
import { isTypedAnswer, type RequestRecord } from '../../state/types.js';
import { archiveRequest } from '../requests/archive.js';
import type { HookStageHost } from '../hook-link-host.js';
import { confirmationOf, promptTime } from '../../state/hook-observation.js';
import { takeStep } from '../../state/take-step.js';

export interface HookDeliveries {
  /** Aborted when the agent's Stop hook delivered this request (stop waiting to type). */
  signalFor: (requestId: string) => AbortSignal;
  /** Did a Stop hook already hand this answer to the agent? */
  deliveredByHook: (record: RequestRecord) => Promise<boolean>;
  /**
   * Right before typing: claim the request. False when the Stop hook claimed
   * it first; then the caller must not type (call markDeliveredByHook).
   */
  claimForTyping: (record: RequestRecord) => Promise<boolean>;
  /** Record a delivery made by the Stop hook; idempotent. Runs under `serial`. */
  markDeliveredByHook: (record: RequestRecord) => Promise<void>;
  /** Answers a Stop hook claimed: stop waiting to type them; they are delivered. */
  reconcileClaims: () => Promise<void>;
  /** Confirm the typed answers the agent's last accepted prompt came after. */
  applyConfirmations: (
    observation: HookObservation | undefined,
  ) => Promise<void>;
}

export function createHookDeliveries(
  host: Pick<
    HookStageHost,
    'paths' | 'serial' | 'current' | 'emit' | 'saveNow' | 'finish'
  >,
): HookDeliveries {
  const { paths } = host;
  const cancels = new Map<string, AbortController>();
  const typing = new Map<string, { record: RequestRecord; at: number }>();

  async function reconcileClaims(): Promise<void> {
    const waiting = Object.values(host.current().requests).filter(
      (r) => r.stage === 'answered' && isTypedAnswer(r),
    );
    for (const record of waiting) {
      const claim = await readClaim(paths, record.id);
      if (claim?.by !== 'hook') continue;
      cancels.get(record.id)?.abort();
      await host.serial(() => markDeliveredByHook(record));
    }
  }

  async function applyConfirmations(
    observation: HookObservation | undefined,
  ): Promise<void> {
    const promptAt = promptTime(observation);
    const now = Date.now();
    for (const [id, entry] of typing) {
      const { record } = entry;
      const step = confirmationOf(entry.at, record.stage, promptAt, now);
      if (step === 'wait') continue;
      typing.delete(id);
      if (step === 'drop') continue;
      await host.serial(async () => {
        // Recorded otherwise meanwhile (unconfirmed by a restart): it stays
        // (the ledger refuses the step, and says so).
        await takeStep(
          host,
          record,
          { type: 'confirmed', at: new Date(promptAt).toISOString() },
          {
            type: 'request.confirmed',
            data: { via: 'hook', event: 'UserPromptSubmit' },
          },
          {
            alongside: async () => {
              const s = host.current();
              s.recent = s.recent.map((r) =>
                r.id === record.id ? { ...r, stage: record.stage } : r,
              );
              if (!s.requests[record.id]) await archiveRequest(paths, record);
            },
          },
        );
      });
    }
  }

  async function markDeliveredByHook(record: RequestRecord): Promise<void> {
    const s = host.current();
    if (s.requests[record.id] !== record) return;
    if (record.stage !== 'answered' && record.stage !== 'delivering') return;
    s.counters.delivered += 1;
    await takeStep(
      host,
      record,
      { type: 'delivered', at: new Date().toISOString() },
      {
        type: 'request.delivered',
        data: {
          method: 'stop-hook',
          chars: record.response?.instructions.length ?? 0,
        },
      },
    );
    await host.finish(record);
  }

  return {
    signalFor(requestId) {
      let controller = cancels.get(requestId);
      if (!controller) {
        controller = new AbortController();
        cancels.set(requestId, controller);
      }
      return controller.signal;
    },
    async deliveredByHook(record) {
      return (await readClaim(paths, record.id))?.by === 'hook';
    },
    async claimForTyping(record) {
      const result = await claimRequest(paths, record.id, 'bridge');
      const ours = result.type === 'claimed' || result.claim?.by === 'bridge';
      if (ours) typing.set(record.id, { record, at: Date.now() });
      cancels.delete(record.id);
      return ours;
    },
    markDeliveredByHook: (record) => {
      cancels.delete(record.id);
      return markDeliveredByHook(record);
    },
    reconcileClaims,
    applyConfirmations,
  };
}
