import { setTimeout as delay } from 'node:timers/promises';
import type { Deliverer, DeliveryRules } from '../typist/typist.js';
import { errorMessage } from '../errors.js';
import { createRequestEmitter, type EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import {
  countResponseBlocks,
  formatEnvelope,
  scanControllerScreen,
} from '../protocol/envelope.js';
import type { AgentStateName } from '../config/states.js';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError } from '../tmux/client.js';
import { createPriorityQueue } from './queue.js';
import type { TurnTickets } from './turns.js';
import type { AttemptBackend, AttemptResult, BackendRequest } from './types.js';

/**
 * How much of the controller's history is read when looking for an answer:
 * enough for the envelope's echo and a long answer.
 */
export const CONTROLLER_SCAN_LINES = 2000;

export interface InteractiveBackendOptions {
  /** The controller's pane. */
  pane: string;
  tmux: TmuxClient;
  /** The same safe delivery as for workers (one paste, wait for idle, submit key). */
  deliverer: Deliverer;
  /** How text is typed into the controller (its preset). */
  rules: DeliveryRules;
  /** The controller's state from its screen (its preset). */
  classify: (screen: string) => AgentStateName;
  events: EventSink;
  log: Logger;
  /** How long a turn may take, from paste to answer (`controllerTimeoutSec`). */
  timeoutMs: number;
  /** How often the controller's screen is read while waiting. */
  pollMs: number;
  /** Turns shared with other bridges on the same controller pane. */
  turns?: TurnTickets;
  scanLines?: number;
}

/**
 * The interactive backend (SPEC §3): the request goes to a live controller
 * agent as an envelope pasted into its pane, and the controller's
 * `CONTROLLER_RESPONSE` block for that id is read back from its screen. One
 * request at a time per controller (others wait, high priority first; other
 * bridges on the same pane take turns through `turns`); a turn that gets no
 * answer within the timeout fails, and the dispatcher falls back.
 */
export function createInteractiveBackend(
  options: InteractiveBackendOptions,
): AttemptBackend {
  const { pane, tmux } = options;
  const queue = createPriorityQueue(1);
  const stopping = new AbortController();
  const scanLines = options.scanLines ?? CONTROLLER_SCAN_LINES;

  const emit = createRequestEmitter(options.events, options.log);

  const capture = () =>
    tmux.capturePane(pane, { start: -scanLines, join: true });

  async function readState(): Promise<AgentStateName> {
    try {
      const info = await tmux.paneInfo(pane);
      if (info.dead) return 'dead';
      return options.classify(await tmux.capturePane(pane));
    } catch (error) {
      if (error instanceof PaneNotFoundError) return 'dead';
      throw error;
    }
  }

  async function turn(request: BackendRequest): Promise<AttemptResult> {
    if (!request.context) return { type: 'failed', reason: 'no-context' };
    const release = options.turns
      ? await options.turns.take(stopping.signal)
      : () => Promise.resolve();
    if (!release) return { type: 'aborted' };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
    const signal = AbortSignal.any([stopping.signal, deadline.signal]);
    const started = Date.now();
    const timedOut = (): AttemptResult =>
      stopping.signal.aborted
        ? { type: 'aborted' }
        : {
            type: 'failed',
            reason: 'timeout',
            detail: { pane, waitedMs: Date.now() - started },
          };
    try {
      const baseline = countResponseBlocks(await capture(), request.id);
      const envelope = formatEnvelope(request.context);
      const delivery = await options.deliverer.deliver({
        pane,
        text: envelope,
        rules: options.rules,
        readState,
        deliverTimeoutMs: options.timeoutMs,
        signal,
      });
      switch (delivery.type) {
        case 'delivered':
          break;
        case 'aborted':
          return timedOut();
        case 'pane-gone':
          return {
            type: 'failed',
            reason: 'controller-gone',
            detail: { pane },
          };
        case 'empty':
          return { type: 'failed', reason: 'empty-envelope' };
        case 'asker-gone': // no asker is given for an envelope
          return {
            type: 'failed',
            reason: 'controller-gone',
            detail: { pane },
          };
        default: {
          const never: never = delivery;
          throw new Error(`unexpected delivery ${JSON.stringify(never)}`);
        }
      }
      await emit(request, 'controller.sent', {
        pane,
        method: delivery.method,
        chars: delivery.chars,
        waitedMs: delivery.waitedMs,
      });
      const reported = new Set<string>();
      for (;;) {
        let screen: string;
        try {
          screen = await capture();
        } catch (error) {
          if (error instanceof PaneNotFoundError)
            return {
              type: 'failed',
              reason: 'controller-gone',
              detail: { pane },
            };
          throw error;
        }
        const scan = scanControllerScreen(screen, request.id, baseline);
        for (const other of scan.otherIds) {
          if (reported.has(other)) continue;
          reported.add(other);
          await emit(request, 'controller.ignored', {
            pane,
            responseId: other,
            reason: 'a response for another request',
          });
        }
        if (scan.answer !== undefined) {
          return {
            type: 'answered',
            text: scan.answer,
            source: `controller:${pane}`,
          };
        }
        try {
          await delay(options.pollMs, undefined, { signal });
        } catch {
          return timedOut();
        }
      }
    } catch (error) {
      if (signal.aborted) return timedOut();
      return {
        type: 'failed',
        reason: 'error',
        detail: { pane, error: errorMessage(error) },
      };
    } finally {
      clearTimeout(timer);
      await release();
    }
  }

  return {
    name: 'interactive',
    async attempt(request) {
      const ahead = queue.size();
      if (ahead > 0)
        await emit(request, 'request.queued', {
          backend: 'interactive',
          pane,
          ahead,
        });
      return queue.run(request.priority, () => turn(request), request.agent);
    },
    stop() {
      stopping.abort();
      return Promise.resolve();
    },
  };
}
