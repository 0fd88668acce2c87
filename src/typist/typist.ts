import { setTimeout as delay } from 'node:timers/promises';
import type { AgentStateName } from '../config/states.js';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';
import { composerProbe, typedText } from './composer.js';
import { preferHook, watchSubmit } from './confirm-submit.js';
import { waitTypeable } from './wait-typeable.js';
import { readPaneView } from './pane-composer.js';

/** How text is typed into one kind of agent (from its preset). */
export interface DeliveryRules {
  submitKey: string;
  submitDelayMs: number;
  /** Paste bracketed (`paste-buffer -p`) so newlines do not submit early. */
  bracketed: boolean;
  /** A single line up to this many characters is typed with `send-keys -l`. */
  maxLiteralChars: number;
  /**
   * A screen no rule reads (`unknown`) may be typed into: a program macs
   * has no preset for. False for a known agent (preset `knownScreens`).
   */
  typeIntoUnknown: boolean;
  /**
   * A shell agent: typed into only while the shell itself is the pane's
   * foreground program (`shellTakesInput` in deliver-wait.ts), never into a
   * command it runs. Its screen cannot tell: `sleep 20` prints nothing.
   */
  shellPromptOnly?: boolean;
}

export const DEFAULT_DELIVERY_RULES: DeliveryRules = {
  submitKey: 'Enter',
  submitDelayMs: 200,
  bracketed: true,
  maxLiteralChars: 200,
  typeIntoUnknown: true,
};

/** Confirming a submission (SPEC §6 step 6). */
export interface ConfirmOptions {
  /** How often the submit key is pressed again when nothing shows it was taken. */
  retries: number;
  /** Another sign the agent took the text (its UserPromptSubmit hook). */
  confirmed?: () => boolean;
  /**
   * When the screen shows the text was taken, wait up to this long for
   * `confirmed` too, so an agent whose hooks report prompts is confirmed by
   * its hook (hooks win over the screen).
   */
  preferConfirmedMs?: number;
}

export interface DeliveryRequest {
  pane: string;
  text: string;
  rules: DeliveryRules;
  /** The agent's current state (read from its screen, hooks...). */
  readState: () => Promise<AgentStateName>;
  /**
   * The preset's screen rules: after the submit key they tell whether the
   * agent turned `working` (a confirmation).
   */
  classify?: (screen: string) => AgentStateName;
  /**
   * Type into `unknown` only once the screen has not changed for this long
   * (default 0: at once). `readState` must read the pane afresh each time
   * it is called when the text may be typed on its word.
   */
  unknownQuietMs?: number;
  /** Confirm the submission and re-send the submit key (off when absent). */
  confirm?: ConfirmOptions;
  /** Delivery to this agent is paused by a person. */
  isPaused?: () => boolean;
  /** Report (once) that the agent has been busy longer than this. */
  deliverTimeoutMs?: number;
  onWaitingTooLong?: (
    state: AgentStateName,
    waitedMs: number,
  ) => void | Promise<void>;
  /**
   * Called after waiting, right before the first keystroke. Resolving to
   * `false` types nothing (someone else delivered the text: the agent's Stop
   * hook) and the result is `aborted`.
   */
  beforeType?: () => void | boolean | Promise<void | boolean>;
  /** Called once the text is in the pane, before the submit key. */
  afterPaste?: () => void | Promise<void>;
  /** Called right before the submit key is pressed the first time. */
  beforeSubmit?: () => void | Promise<void>;
  /** Called once the submit key has been pressed the first time. */
  onSubmitted?: (delivery: {
    method: 'paste' | 'literal';
    chars: number;
    waitedMs: number;
  }) => void | Promise<void>;
  /** Give up waiting (the bridge is stopping). */
  signal?: AbortSignal;
}

/** What showed that the agent took a submission. */
export type ConfirmSignal =
  /** The screen turned `working` (or showed a dialog the prompt led to). */
  | 'working'
  /** The composer no longer holds the text that was typed. */
  | 'composer'
  /** The text was not to be seen, and the screen or the cursor changed. */
  | 'screen'
  /** The agent's own hook said so. */
  | 'hook';

export type DeliveryResult =
  | {
      type: 'delivered';
      method: 'paste' | 'literal';
      chars: number;
      waitedMs: number;
      /** Times the submit key was pressed. */
      submits?: number;
      /** With `confirm`: whether the agent was seen taking the text. */
      confirmed?: boolean;
      confirmation?: ConfirmSignal;
    }
  | { type: 'empty' }
  | { type: 'pane-gone'; state: AgentStateName }
  | { type: 'aborted' };

export interface Deliverer {
  /** Deliver text to a pane; deliveries to one pane run one at a time, in order. */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}

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
