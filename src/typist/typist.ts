import { setTimeout as delay } from 'node:timers/promises';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';
import { composerProbe, typedText } from './composer.js';
import { preferHook, watchSubmit } from './confirm-submit.js';
import { waitingTypeable } from './wait-typeable.js';
import { readPaneView, type PaneView } from './pane-composer.js';

import type {
  ConfirmResult,
  Deliverer,
  DeliveryRequest,
  DeliveryResult,
  DeliveryRules,
  SubmitDueResult,
  SubmitResult,
  TypeResult,
  Typing,
  TypingMethod,
  WaitResult,
} from './types.js';

export type {
  ConfirmOptions,
  DeliveryAsker,
  WaitReason,
  ConfirmResult,
  ConfirmSignal,
  Deliverer,
  DeliveryRequest,
  DeliveryResult,
  DeliveryRules,
  SubmitDueResult,
  SubmitResult,
  TypeResult,
  Typing,
  TypingMethod,
  WaitResult,
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

interface Timing {
  pollMs: number;
  confirmTimeoutMs: number;
  confirmPollMs: number;
}

/**
 * Safe delivery (SPEC §6): one typing at a time per pane (`begin` takes the
 * pane's turn); wait until the agent may be typed into (`readState`, read
 * afresh: canTypeInto in wait-typeable.ts) and leave copy mode; sanitize;
 * one bracketed paste from a uniquely named buffer (or `send-keys -l --`
 * for a short single line), so text is never read as key names; after the
 * preset's delay, the submit key alone; with `confirm`, watch for the agent
 * taking it (confirm-submit.ts) and press the submit key again up to
 * `retries` times. The text itself is never typed twice. Each phase returns
 * its result to the caller, who records it before calling the next: the
 * last look before typing is the caller's, between `waitTypeable` and
 * `type`.
 */
export function createDeliverer(
  tmux: TmuxClient,
  options: DelivererOptions = {},
): Deliverer {
  const turns = new Map<string, Promise<void>>();
  const timing: Timing = {
    pollMs: options.pollMs ?? WAIT_POLL_MS,
    confirmTimeoutMs: options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS,
    confirmPollMs: options.confirmPollMs ?? CONFIRM_POLL_MS,
  };

  /** Waits for the pane's earlier typings; resolves to this one's end. */
  async function takeTurn(pane: string): Promise<() => void> {
    const previous = turns.get(pane) ?? Promise.resolve();
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    const mine = previous.then(() => done);
    turns.set(pane, mine);
    await previous;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      release();
      if (turns.get(pane) === mine) turns.delete(pane);
    };
  }

  async function begin(request: DeliveryRequest): Promise<Typing> {
    const end = await takeTurn(request.pane);
    return startTyping(tmux, request, timing, end);
  }

  return {
    begin,
    async deliver(request) {
      const typing = await begin(request);
      try {
        return await typeAll(typing, request.confirm !== undefined);
      } finally {
        typing.end();
      }
    },
  };
}

/** A phase whose pane went away (PaneNotFoundError) ends as `gone`. */
async function orGone<T>(phase: () => Promise<T>, gone: T): Promise<T> {
  try {
    return await phase();
  } catch (error) {
    if (error instanceof PaneNotFoundError) return gone;
    throw error;
  }
}

/** One typing's phases, sharing what each learns (method, the screen before the key). */
function startTyping(
  tmux: TmuxClient,
  request: DeliveryRequest,
  timing: Timing,
  end: () => void,
): Typing {
  const text = typedText(request.text);
  const { pane, rules } = request;
  const started = Date.now();
  const waiting = waitingTypeable(tmux, request, started, timing.pollMs);
  let method: TypingMethod = 'paste';
  let waitedMs = 0;
  let before: PaneView | undefined;
  let submits = 0;
  const gone = { phase: 'gone' } as const;

  return {
    waitTypeable: () =>
      orGone<WaitResult>(async () => {
        if (!text.trim()) return { phase: 'empty' };
        const next = await waiting.next();
        if (next.done !== true) return next.value;
        const ready = next.value;
        if (ready === 'aborted') return { phase: 'aborted' };
        if (ready === 'gone') return gone;
        if ('askerGone' in ready)
          return { phase: 'asker-gone', asker: ready.askerGone };
        waitedMs = Date.now() - started;
        if (ready.inMode) await tmux.cancelMode(pane);
        return { phase: 'waited', waitedMs };
      }, gone),

    type: () =>
      orGone<TypeResult>(async () => {
        if (!text.includes('\n') && text.length <= rules.maxLiteralChars) {
          await tmux.sendLiteral(pane, text);
          method = 'literal';
        } else {
          const buffer = await tmux.loadBuffer(text);
          await tmux.pasteBuffer(pane, buffer, { bracketed: rules.bracketed });
          method = 'paste';
        }
        return { phase: 'typed', method, chars: text.length };
      }, gone),

    awaitSubmit: () =>
      orGone<SubmitDueResult>(async () => {
        const pastedAt = Date.now();
        const confirm = request.confirm;
        // The composer with the text in it, to tell a taken submission by:
        // read near the end of the submit delay, so it costs no extra time.
        await delay(
          confirm
            ? Math.max(0, rules.submitDelayMs - SNAPSHOT_LEAD_MS)
            : rules.submitDelayMs,
        );
        before = confirm ? await readPaneView(tmux, pane) : undefined;
        const left = rules.submitDelayMs - (Date.now() - pastedAt);
        if (left > 0) await delay(left);
        return { phase: 'due' };
      }, gone),

    submit: () =>
      orGone<SubmitResult>(async () => {
        await tmux.sendKey(pane, rules.submitKey);
        submits = 1;
        return {
          phase: 'submitted',
          method,
          chars: text.length,
          waitedMs,
          submits,
          watchable:
            request.confirm !== undefined &&
            before !== undefined &&
            !before.dead,
        };
      }, gone),

    confirm: () =>
      orGone<ConfirmResult>(
        () => confirmSubmit(tmux, request, text, before, timing, submits),
        { phase: 'unconfirmed', submits },
      ),

    end,
  };
}

/**
 * Watches for the agent taking the text, pressing the submit key again
 * (never the text) up to `retries` times after the first press.
 */
async function confirmSubmit(
  tmux: TmuxClient,
  request: DeliveryRequest,
  text: string,
  before: PaneView | undefined,
  timing: Timing,
  firstSubmits: number,
): Promise<ConfirmResult> {
  let submits = firstSubmits;
  const confirm = request.confirm;
  if (!confirm || !before || before.dead)
    return { phase: 'unconfirmed', submits };
  const probe = composerProbe(text);
  try {
    for (;;) {
      const signal = await watchSubmit(tmux, request, before, probe, timing);
      if (signal !== undefined && signal !== 'gone')
        return {
          phase: 'confirmed',
          confirmation: await preferHook(request, signal, timing.confirmPollMs),
          submits,
        };
      if (
        signal === 'gone' ||
        submits > confirm.retries ||
        request.signal?.aborted
      )
        return { phase: 'unconfirmed', submits };
      // Never the text again: only the submit key, after leaving any mode
      // a person may have entered meanwhile.
      const info = await tmux.paneInfo(request.pane);
      if (info.dead) return { phase: 'unconfirmed', submits };
      if (info.inMode) await tmux.cancelMode(request.pane);
      await tmux.sendKey(request.pane, request.rules.submitKey);
      submits += 1;
    }
  } catch (error) {
    // Once the submit key was pressed the text may be in: unconfirmed,
    // never typed again.
    if (error instanceof PaneNotFoundError)
      return { phase: 'unconfirmed', submits };
    throw error;
  }
}

/**
 * Every phase in a row, as one result: for a caller that records nothing
 * between the phases (`macs send`, the interactive backend). A long wait
 * is not reported.
 */
export async function typeAll(
  typing: Typing,
  confirming: boolean,
): Promise<DeliveryResult> {
  let waited = await typing.waitTypeable();
  while (waited.phase === 'busy' || waited.phase === 'waiting')
    waited = await typing.waitTypeable();
  return typeAfterWait(typing, waited, confirming);
}

/** The phases after the wait, given how the wait ended, as one result. */
export async function typeAfterWait(
  typing: Typing,
  waited: Exclude<WaitResult, { phase: 'busy' | 'waiting' }>,
  confirming: boolean,
): Promise<DeliveryResult> {
  const paneGone = { type: 'pane-gone', state: 'dead' } as const;
  if (waited.phase === 'empty') return { type: 'empty' };
  if (waited.phase === 'aborted') return { type: 'aborted' };
  if (waited.phase === 'asker-gone')
    return { type: 'asker-gone', asker: waited.asker };
  if (waited.phase === 'gone') return paneGone;
  if ((await typing.type()).phase === 'gone') return paneGone;
  if ((await typing.awaitSubmit()).phase === 'gone') return paneGone;
  const submitted = await typing.submit();
  if (submitted.phase === 'gone') return paneGone;
  const delivered = {
    type: 'delivered',
    method: submitted.method,
    chars: submitted.chars,
    waitedMs: submitted.waitedMs,
    submits: submitted.submits,
  } as const;
  if (!confirming || !submitted.watchable) return delivered;
  const confirmed = await typing.confirm();
  return confirmed.phase === 'confirmed'
    ? {
        ...delivered,
        submits: confirmed.submits,
        confirmed: true,
        confirmation: confirmed.confirmation,
      }
    : { ...delivered, submits: confirmed.submits, confirmed: false };
}
