import { setTimeout as delay } from 'node:timers/promises';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';
import { composerProbe, typedText } from './composer.js';
import { preferHook, watchSubmit } from './confirm-submit.js';
import { waitTypeable } from './wait-typeable.js';
import { readPaneView } from './pane-composer.js';

import type {
  Deliverer,
  DeliveryRequest,
  DeliveryResult,
  DeliveryRules,
} from './types.js';

export type {
  ConfirmOptions,
  ConfirmSignal,
  Deliverer,
  DeliveryRequest,
  DeliveryResult,
  DeliveryRules,
} from './types.js';

export const DEFAULT_DELIVERY_RULES: DeliveryRules = {
  submitKey: 'Enter',
  submitDelayMs: 200,
  bracketed: true,
  maxLiteralChars: 200,
  typeIntoUnknown: true,
};

export interface DelivererOptions {
  /** How often the agent's state is read while waiting. */
  pollMs?: number;
  /** How long one press of the submit key is watched for a confirmation. */
  confirmTimeoutMs?: number;
  /** How often the screen is read while confirming. */
  confirmPollMs?: number;
}

const WAIT_POLL_MS = 50;
/** What `macs send` asks of an `unknown` screen before typing. */
export const UNKNOWN_QUIET_MS = 500;
export const CONFIRM_TIMEOUT_MS = 1_500;
const CONFIRM_POLL_MS = 25;
/** The screen before the submit key is read this long before the key. */
const SNAPSHOT_LEAD_MS = 40;

/**
 * Safe delivery (SPEC §6): one delivery at a time per pane; wait until the
 * agent may be typed into (`readState`, read afresh: see canTypeInto in
 * `bridge/deliver-wait.ts`); leave copy mode; sanitize; one bracketed paste
 * from a uniquely named buffer (or `send-keys -l --` for a short single
 * line), so text is never read as key names; after the preset's delay, the
 * submit key alone; with `confirm`, watch for the agent taking it
 * (`bridge/deliver-confirm.ts`) and press the submit key again up to
 * `retries` times. The text itself is never typed twice.
 */
export function createDeliverer(
  tmux: TmuxClient,
  options: DelivererOptions = {},
): Deliverer {
  const queues = new Map<string, Promise<unknown>>();
  const pollMs = options.pollMs ?? WAIT_POLL_MS;
  const confirmTimeoutMs = options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
  const confirmPollMs = options.confirmPollMs ?? CONFIRM_POLL_MS;
  const timing = { confirmTimeoutMs, confirmPollMs };

  async function run(request: DeliveryRequest): Promise<DeliveryResult> {
    const text = typedText(request.text);
    if (!text.trim()) return { type: 'empty' };
    const started = Date.now();
    let submitted: Extract<DeliveryResult, { type: 'delivered' }> | undefined;
    try {
      const ready = await waitTypeable(tmux, request, started, pollMs);
      if (ready === 'aborted') return { type: 'aborted' };
      if (ready === 'gone') return { type: 'pane-gone', state: 'dead' };
      const waitedMs = Date.now() - started;
      if (ready.inMode) await tmux.cancelMode(request.pane);
      if ((await request.beforeType?.()) === false) return { type: 'aborted' };
      let method: 'paste' | 'literal';
      if (
        !text.includes('\n') &&
        text.length <= request.rules.maxLiteralChars
      ) {
        await tmux.sendLiteral(request.pane, text);
        method = 'literal';
      } else {
        const buffer = await tmux.loadBuffer(text);
        await tmux.pasteBuffer(request.pane, buffer, {
          bracketed: request.rules.bracketed,
        });
        method = 'paste';
      }
      await request.afterPaste?.();
      const confirm = request.confirm;
      const pastedAt = Date.now();
      const submitDelayMs = request.rules.submitDelayMs;
      // The composer with the text in it, to tell a taken submission by:
      // read near the end of the submit delay, so it costs no extra time.
      await delay(
        confirm ? Math.max(0, submitDelayMs - SNAPSHOT_LEAD_MS) : submitDelayMs,
      );
      const before = confirm
        ? await readPaneView(tmux, request.pane)
        : undefined;
      const left = submitDelayMs - (Date.now() - pastedAt);
      if (left > 0) await delay(left);
      await request.beforeSubmit?.();
      await tmux.sendKey(request.pane, request.rules.submitKey);
      submitted = {
        type: 'delivered',
        method,
        chars: text.length,
        waitedMs,
        submits: 1,
      };
      await request.onSubmitted?.({ method, chars: text.length, waitedMs });
      if (!confirm || !before || before.dead) return submitted;
      const probe = composerProbe(text);
      for (;;) {
        const signal = await watchSubmit(tmux, request, before, probe, timing);
        if (signal !== undefined && signal !== 'gone')
          return {
            ...submitted,
            confirmed: true,
            confirmation: await preferHook(request, signal, confirmPollMs),
          };
        if (
          signal === 'gone' ||
          (submitted.submits ?? 1) > confirm.retries ||
          request.signal?.aborted
        )
          return { ...submitted, confirmed: false };
        // Never the text again: only the submit key, after leaving any mode
        // a person may have entered meanwhile.
        const info = await tmux.paneInfo(request.pane);
        if (info.dead) return { ...submitted, confirmed: false };
        if (info.inMode) await tmux.cancelMode(request.pane);
        await tmux.sendKey(request.pane, request.rules.submitKey);
        submitted = { ...submitted, submits: (submitted.submits ?? 1) + 1 };
      }
    } catch (error) {
      if (!(error instanceof PaneNotFoundError)) throw error;
      // Once the submit key was pressed the text may be in; it is reported
      // as delivered (unconfirmed when confirming), never typed again.
      if (submitted)
        return request.confirm ? { ...submitted, confirmed: false } : submitted;
      return { type: 'pane-gone', state: 'dead' };
    }
  }

  return {
    deliver(request) {
      const previous = queues.get(request.pane) ?? Promise.resolve();
      const next = previous.catch(() => undefined).then(() => run(request));
      queues.set(request.pane, next);
      void next
        .finally(() => {
          if (queues.get(request.pane) === next) queues.delete(request.pane);
        })
        .catch(() => undefined);
      return next;
    },
  };
}
