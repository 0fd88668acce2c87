/**
 * The first message an agent gets once, when it first comes up: the worker
 * protocol (prompts/worker.md) for a worker without hooks, or the tools of
 * `macs mcp` for a controller wired to it (docs/mcp.md). Typed through the
 * deliverer like an answer, once the screen has shown something and stopped
 * changing (an agent starting up redraws for a while).
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { MacsConfig } from '../../config/schema.js';
import type { EventInput } from '../../events/types.js';
import type { AgentStateName } from '../../config/states.js';
import { isOpenStage } from '../../state/types.js';
import type { TmuxClient } from '../../tmux/client.js';
import type { FirstMessageSpec, Slot } from './types.js';
import {
  typeAfterWait,
  type DeliveryResult,
  type DeliveryRules,
  type Deliverer,
} from '../../typist/typist.js';

/** The first message waits until the screen has not changed for this long… */
const SETTLE_MS = 1000;
/** …but not longer than this (then the deliverer's own idle wait decides). */
const SETTLE_MAX_MS = 20_000;
const SETTLE_POLL_MS = 200;

/** Wait until the screen shows something and has stopped changing. */
async function waitSettled(
  tmux: TmuxClient,
  pane: string,
  signal: AbortSignal,
  settleMs = SETTLE_MS,
): Promise<void> {
  const until = Date.now() + SETTLE_MAX_MS;
  let last = '';
  let since = Date.now();
  while (Date.now() < until) {
    const screen = await tmux.capturePane(pane);
    if (screen !== last) {
      last = screen;
      since = Date.now();
    } else if (screen.trim() && Date.now() - since >= settleMs) return;
    await delay(SETTLE_POLL_MS, undefined, { signal });
  }
}

/**
 * Type the message into the agent's pane once the screen settles; marks it
 * sent and records `agent.prompted` when it went in. An agent that asked a
 * request meanwhile gets nothing (`agent.prompt-kept`). Returns whether the
 * message is done with (sent or kept).
 */
async function sendFirstMessage(options: {
  agent: string;
  pane: string;
  message: FirstMessageSpec;
  rules: DeliveryRules;
  tmux: TmuxClient;
  deliverer: Deliverer;
  config: MacsConfig;
  signal: AbortSignal;
  readState: () => Promise<AgentStateName>;
  openRequest: () => { requestId?: string } | undefined;
  emit: (input: EventInput) => Promise<void>;
}): Promise<boolean> {
  const { agent, pane, message, emit } = options;
  /**
   * A program that asked already knows the protocol, and waits for its
   * answer: the message would be read as that answer. Kept, not sent.
   */
  const keptForRequest = async (): Promise<boolean> => {
    const asked = options.openRequest();
    if (asked === undefined) return false;
    const { requestId } = asked;
    message.sent = true;
    await emit({
      agent,
      type: 'agent.prompt-kept',
      ...(requestId === undefined ? {} : { requestId }),
      data: {
        pane,
        why: `it asked ${requestId ?? 'a request'} already, so it knows the protocol, and it may wait for an answer: the message would be read as the answer`,
      },
    });
    return true;
  };
  await waitSettled(options.tmux, pane, options.signal);
  if (await keptForRequest()) return true;
  const typing = await options.deliverer.begin({
    pane,
    text: message.text,
    rules: options.rules,
    readState: options.readState,
    deliverTimeoutMs: options.config.deliverTimeoutSec * 1000,
    signal: options.signal,
  });
  let result: DeliveryResult;
  try {
    // A long wait is reported once, and the wait goes on.
    let waited = await typing.waitTypeable();
    while (waited.phase === 'busy' || waited.phase === 'waiting') {
      if (waited.phase === 'waiting') {
        waited = await typing.waitTypeable();
        continue;
      }
      await emit({
        agent,
        type: 'delivery.timeout',
        data: {
          what: 'first message',
          state: waited.state,
          waitedMs: waited.waitedMs,
        },
      });
      waited = await typing.waitTypeable();
    }
    // Asked while the message waited for its turn: nothing is typed.
    if (await keptForRequest()) return true;
    result = await typeAfterWait(typing, waited, false);
  } finally {
    typing.end();
  }
  if (result.type !== 'delivered' && result.type !== 'empty') return false;
  message.sent = true;
  await emit({
    agent,
    type: 'agent.prompted',
    data: {
      pane,
      chars: message.text.length,
      ...(result.type === 'delivered' ? { method: result.method } : {}),
    },
  });
  return true;
}

/**
 * The first of a slot's requests still waiting for its answer, else the
 * last block its program printed that was not raised (a repeat, which it
 * may wait on too).
 */
export function openRequestOf(
  slot: Pick<Slot, 'supervisor'>,
): { requestId?: string } | undefined {
  const requests = slot.supervisor?.snapshot().requests ?? {};
  const open = Object.values(requests).find((r) => isOpenStage(r.stage));
  return open ? { requestId: open.id } : slot.supervisor?.lastAsked();
}

/**
 * Another program runs in the slot's pane: it gets the first message again,
 * unless it continues a conversation that already holds it (a worker whose
 * protocol came as its first message, restarted without `--fresh`), which
 * is recorded as `agent.prompt-kept`.
 */
export async function newProgramSeen(
  slot: Pick<Slot, 'agent' | 'pane' | 'pid' | 'promptUndecided'>,
  emit: (input: EventInput) => Promise<void>,
): Promise<void> {
  const message = slot.agent.firstMessage;
  if (!message) return;
  const held = await (message.heldByConversation?.(slot.pid) ?? false);
  // Asked again at the next look, sending nothing meanwhile.
  slot.promptUndecided = held === 'pending';
  if (held === 'pending') {
    message.sent = true;
    return;
  }
  message.sent = held;
  if (held)
    await emit({
      agent: slot.agent.name,
      type: 'agent.prompt-kept',
      data: {
        ...(slot.pane ? { pane: slot.pane } : {}),
        why: 'the program continues a conversation that was told it already',
      },
    });
}

/**
 * Send a slot's first message unless it went already or is on its way; a
 * failure is reported once (`onProblem`), never retried forever.
 */
export function promptOnce(
  slot: Pick<Slot, 'agent' | 'pane' | 'prompting'>,
  options: {
    tmux: TmuxClient;
    deliverer: Deliverer;
    config: MacsConfig;
    signal: AbortSignal;
    readState: (pane: string) => Promise<AgentStateName>;
    /** The agent's request still waiting for its answer, if any. */
    openRequest: () => { requestId?: string } | undefined;
    emit: (input: EventInput) => Promise<void>;
    /** The message went in (record it, so it is never sent twice). */
    onPrompted?: ((agent: string) => Promise<void>) | undefined;
    onProblem: (error: unknown) => Promise<void>;
  },
): void {
  const message = slot.agent.firstMessage;
  const pane = slot.pane;
  if (!message || message.sent || slot.prompting || !pane) return;
  slot.prompting = true;
  void sendFirstMessage({
    agent: slot.agent.name,
    pane,
    message,
    rules: slot.agent.profile.rules,
    tmux: options.tmux,
    deliverer: options.deliverer,
    config: options.config,
    signal: options.signal,
    readState: () => options.readState(pane),
    openRequest: options.openRequest,
    emit: options.emit,
  })
    .then((sent) => (sent ? options.onPrompted?.(slot.agent.name) : undefined))
    .catch(async (error: unknown) => {
      if (options.signal.aborted) return;
      message.sent = true; // reported, not retried forever
      await options.onProblem(error);
    })
    .finally(() => {
      slot.prompting = false;
    });
}
