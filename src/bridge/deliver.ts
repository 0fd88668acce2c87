import { setTimeout as delay } from 'node:timers/promises';
import { sanitizeText } from '../protocol/sanitize.js';
import type { AgentStateName } from '../state/types.js';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';

/** How text is typed into one kind of agent (from its preset). */
export interface DeliveryRules {
  submitKey: string;
  submitDelayMs: number;
  /** Paste bracketed (`paste-buffer -p`) so newlines do not submit early. */
  bracketed: boolean;
  /** A single line up to this many characters is typed with `send-keys -l`. */
  maxLiteralChars: number;
}

export const DEFAULT_DELIVERY_RULES: DeliveryRules = {
  submitKey: 'Enter',
  submitDelayMs: 200,
  bracketed: true,
  maxLiteralChars: 200,
};

/** States in which typing is allowed. `unknown` is a program macs has no rule for. */
export function canTypeInto(state: AgentStateName): boolean {
  return state === 'idle' || state === 'unknown';
}

export interface DeliveryRequest {
  pane: string;
  text: string;
  rules: DeliveryRules;
  /** The agent's current state (read from its screen, hooks...). */
  readState: () => Promise<AgentStateName>;
  /** Delivery to this agent is paused by a person. */
  isPaused?: () => boolean;
  /** Report (once) that the agent has been busy longer than this. */
  deliverTimeoutMs?: number;
  onWaitingTooLong?: (
    state: AgentStateName,
    waitedMs: number,
  ) => void | Promise<void>;
  /** Called after waiting, right before the first keystroke. */
  beforeType?: () => void | Promise<void>;
  /** Give up waiting (the bridge is stopping). */
  signal?: AbortSignal;
}

export type DeliveryResult =
  | {
      type: 'delivered';
      method: 'paste' | 'literal';
      chars: number;
      waitedMs: number;
    }
  | { type: 'empty' }
  | { type: 'pane-gone'; state: AgentStateName }
  | { type: 'aborted' };

export interface Deliverer {
  /** Deliver text to a pane; deliveries to one pane run one at a time, in order. */
  deliver(request: DeliveryRequest): Promise<DeliveryResult>;
}

const WAIT_POLL_MS = 50;

/**
 * Safe delivery (SPEC §6 steps 1–5): one delivery at a time per pane; wait
 * until the agent may be typed into; leave copy mode; sanitize; one
 * bracketed paste from a uniquely named buffer (or `send-keys -l --` for a
 * short single line), so text is never read as key names; then, after the
 * preset's delay, the submit key alone.
 */
export function createDeliverer(
  tmux: TmuxClient,
  options: { pollMs?: number } = {},
): Deliverer {
  const queues = new Map<string, Promise<unknown>>();
  const pollMs = options.pollMs ?? WAIT_POLL_MS;

  async function run(request: DeliveryRequest): Promise<DeliveryResult> {
    const text = sanitizeText(request.text).replace(/\n+$/, '');
    if (!text.trim()) return { type: 'empty' };
    const started = Date.now();
    let reported = false;
    for (;;) {
      if (request.signal?.aborted) return { type: 'aborted' };
      const state = await request.readState();
      if (state === 'dead') return { type: 'pane-gone', state };
      if (canTypeInto(state) && !request.isPaused?.()) break;
      const waited = Date.now() - started;
      if (
        !reported &&
        request.deliverTimeoutMs !== undefined &&
        waited > request.deliverTimeoutMs
      ) {
        reported = true;
        await request.onWaitingTooLong?.(state, waited);
      }
      try {
        await delay(pollMs, undefined, { signal: request.signal });
      } catch {
        return { type: 'aborted' };
      }
    }
    const waitedMs = Date.now() - started;
    try {
      const info = await tmux.paneInfo(request.pane);
      if (info.dead) return { type: 'pane-gone', state: 'dead' };
      if (info.inMode) await tmux.cancelMode(request.pane);
      await request.beforeType?.();
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
      await delay(request.rules.submitDelayMs);
      await tmux.sendKey(request.pane, request.rules.submitKey);
      return { type: 'delivered', method, chars: text.length, waitedMs };
    } catch (error) {
      if (error instanceof PaneNotFoundError)
        return { type: 'pane-gone', state: 'dead' };
      throw error;
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
