/**
 * Sending a message: typing text into an agent's pane safely, the operation
 * under `macs send`, the MCP tool `send_message` and the page of `macs web`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  createDeliverer,
  typeAfterWait,
  UNKNOWN_QUIET_MS,
  type DeliveryResult,
  type Typing,
  type WaitReason,
} from '../typist/typist.js';
import type { MacsConfig } from '../config/schema.js';
import { AgentError, ConfigError } from '../errors.js';
import { createEventLog, type EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';
import { sanitizeText } from '../protocol/sanitize.js';
import { readSessionRecord } from '../session/record.js';
import type { AgentStateName } from '../config/states.js';
import { createTmuxClient, type TmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import type { AgentProfile } from '../bridge/agent-context.js';
import { profileFromPreset } from '../bridge/profile.js';
import { formatWaitReason } from '../typist/wait-typeable.js';
import { findTarget, type SendTarget } from './send-target.js';
import { isDeliveryPaused } from '../state/person-controls.js';

/** How often `macs send` reads the pane while it waits. */
const SEND_POLL_MS = 200;
/** Text kept in the `send.delivered` event. */
const EVENT_TEXT_MAX_CHARS = 2_000;

function describeConfirmation(
  result: Extract<DeliveryResult, { type: 'delivered' }>,
): string {
  switch (result.confirmation) {
    case 'working':
      return 'the agent started working';
    case 'composer':
      return 'the composer emptied';
    case 'screen':
      return 'the prompt line changed';
    case 'hook':
      return "the agent's hook saw the prompt";
    case undefined:
      return 'taken';
    default: {
      const never: never = result.confirmation;
      return String(never);
    }
  }
}

/** What a send did: typed and confirmed (or not), or cancelled by `signal`. */
export type SendOutcome =
  | {
      type: 'delivered';
      /** The `send.delivered` event's data. */
      data: {
        pane: string;
        preset: string;
        method: string;
        chars: number;
        waitedMs: number;
        submits?: number;
        confirmed: boolean;
        confirmation?: string;
        text: string;
      };
      /** How the agent showed it took the text, for people. */
      how: string;
      /** `agent (pane %N, preset P)`, for people. */
      shown: string;
      submitKey: string;
    }
  | { type: 'cancelled' };

export interface SendParams {
  agent: string;
  text: string;
  paths: HomePaths;
  config: MacsConfig;
  runTmux: RunTmux;
  /** `--tmux-socket`; else the session's server. */
  socket?: string;
  preset?: string;
  /** Seconds to wait for the agent to be idle (default: deliverTimeoutSec). */
  timeoutSec?: number;
  /** Cancels the wait (nothing typed then): an interrupt, an MCP cancellation. */
  signal?: AbortSignal;
  /** Told why the send waits, when it starts to and whenever the reason changes. */
  onWaiting?: (message: string) => void;
}

/**
 * Type text into an agent safely (SPEC §6), with the deliverer the bridge
 * uses: wait until the agent is idle (never into `working` or `approval`),
 * leave copy mode, paste, press the submit key, confirm, and re-press the
 * submit key (never the text) up to `submitRetries` times. Records
 * `send.delivered` (or `send.failed`); an unknown agent, a dead pane or a
 * busy one at the timeout throw an AgentError saying why. `macs send`,
 * `macs mcp`'s `send_message` and the page of `macs web` all go through here.
 */
export async function sendToAgent(params: SendParams): Promise<SendOutcome> {
  const { agent, text, paths } = params;
  checkSendInput(agent, text);
  // The session's server when there is one, like the other session commands.
  const socket = params.socket ?? (await readSessionRecord(paths))?.socket;
  const tmux = createTmuxClient(socket, params.runTmux);
  const target = await findTarget(
    agent,
    params.preset,
    tmux,
    paths,
    params.config,
  );
  await refuseDeadPane(agent, target, tmux);
  const send: Sending = {
    params,
    tmux,
    target,
    profile: profileFromPreset(target.preset),
    waitMs: (params.timeoutSec ?? params.config.deliverTimeoutSec) * 1000,
    lastState: 'unknown',
    cancelled: false,
    events: createEventLog(paths),
    shown: `${agent} (pane ${target.pane}, preset ${target.preset.name})`,
  };
  return outcomeOf(send, await typeWhenTypeable(send));
}

/** One send on its way: what it types into, and what it has seen. */
interface Sending {
  params: SendParams;
  tmux: TmuxClient;
  target: SendTarget;
  profile: AgentProfile;
  waitMs: number;
  lastState: AgentStateName;
  /** Why the typist last said it waits (what a busy shell runs). */
  lastReason?: WaitReason;
  /** Stopped by `params.signal`, not by the timeout. */
  cancelled: boolean;
  events: EventSink;
  /** `agent (pane %N, preset P)`, for people. */
  shown: string;
}

function checkSendInput(agent: string, text: string): void {
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  if (!sanitizeText(text).trim())
    throw new ConfigError('the text is empty; nothing was sent');
}

/** A pane whose program exited takes no input (tmux learns its status a moment late). */
async function refuseDeadPane(
  agent: string,
  target: SendTarget,
  tmux: TmuxClient,
): Promise<void> {
  for (
    let tries = 0;
    target.info.dead && target.info.deadStatus === undefined && tries < 10;
    tries += 1
  ) {
    await delay(50);
    target.info = await tmux.paneInfo(target.pane);
  }
  if (!target.info.dead) return;
  const status = target.info.deadStatus;
  throw new AgentError(
    `agent '${agent}' cannot take input: its program in pane ${target.pane} has exited${status === undefined ? '' : ` (status ${status})`}`,
    {
      hint: `restart it (tmux respawn-pane -k -t ${target.pane}, or macs start), then send again`,
    },
  );
}

/** Wait until the pane is typeable (telling why it waits), then type and confirm. */
async function typeWhenTypeable(send: Sending): Promise<DeliveryResult> {
  const { params, waitMs } = send;
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(), waitMs);
  const onCancel = () => {
    send.cancelled = true;
    giveUp.abort();
  };
  if (params.signal?.aborted) onCancel();
  params.signal?.addEventListener('abort', onCancel, { once: true });
  const typing = await beginTyping(send, giveUp.signal);
  try {
    let waited = await typing.waitTypeable();
    while (waited.phase === 'busy' || waited.phase === 'waiting') {
      if (waited.phase === 'waiting') send.lastReason = waited.reason;
      if (waited.phase === 'waiting')
        params.onWaiting?.(
          `waiting for ${params.agent}: ${formatWaitReason(waited.reason)} (up to ${String(Math.round(waitMs / 1000))} s; --timeout)`,
        );
      waited = await typing.waitTypeable();
    }
    return await typeAfterWait(typing, waited, true);
  } finally {
    typing.end();
    clearTimeout(timer);
    params.signal?.removeEventListener('abort', onCancel);
  }
}

function beginTyping(send: Sending, signal: AbortSignal): Promise<Typing> {
  const { params, tmux, profile } = send;
  const { pane } = send.target;
  const readState = async (): Promise<AgentStateName> => {
    const info = await tmux.paneInfo(pane);
    send.lastState = info.dead
      ? 'dead'
      : profile.classify(await tmux.capturePane(pane));
    return send.lastState;
  };
  return createDeliverer(tmux, { pollMs: SEND_POLL_MS }).begin({
    pane,
    text: params.text,
    rules: profile.rules,
    readState,
    classify: profile.classify,
    // A program macs cannot read is typed into once its screen is still.
    unknownQuietMs: UNKNOWN_QUIET_MS,
    confirm: { retries: params.config.submitRetries },
    // Why it waits, at once: a person is not left looking at nothing.
    waitReportMs: 0,
    // A pause (a person's, or a budget's) holds a send like an answer.
    isPaused: () => isDeliveryPaused(params.paths, params.agent),
    signal,
  });
}

/** The typist's result as the send's outcome, recorded; a failure throws. */
async function outcomeOf(
  send: Sending,
  result: DeliveryResult,
): Promise<SendOutcome> {
  const { agent } = send.params;
  switch (result.type) {
    case 'delivered':
      return delivered(send, result);
    case 'empty':
      throw new ConfigError('the text is empty; nothing was sent');
    case 'pane-gone':
    case 'asker-gone': // a send has no asker
      throw new AgentError(
        `agent '${agent}' went away while waiting: pane ${send.target.pane} is gone or its program exited; nothing was typed`,
      );
    case 'aborted':
      if (send.cancelled) return { type: 'cancelled' };
      return timedOut(send);
    default: {
      const never: never = result;
      throw new Error(`unexpected delivery result ${JSON.stringify(never)}`);
    }
  }
}

async function delivered(
  send: Sending,
  result: Extract<DeliveryResult, { type: 'delivered' }>,
): Promise<SendOutcome> {
  const { agent } = send.params;
  const { pane, preset } = send.target;
  const data = {
    pane,
    preset: preset.name,
    method: result.method,
    chars: result.chars,
    waitedMs: result.waitedMs,
    submits: result.submits,
    confirmed: result.confirmed === true,
    ...(result.confirmation ? { confirmation: result.confirmation } : {}),
    text: sanitizeText(send.params.text).slice(0, EVENT_TEXT_MAX_CHARS),
  };
  await send.events.emit({ agent, type: 'send.delivered', data });
  if (result.confirmed === false)
    await send.events.emit({
      agent,
      type: 'delivery.unconfirmed',
      data: { via: 'send', pane, submits: result.submits },
    });
  return {
    type: 'delivered',
    data,
    how: describeConfirmation(result),
    shown: send.shown,
    submitKey: preset.submitKey,
  };
}

/** Still busy (or paused) at the timeout: `send.failed`, and why. */
async function timedOut(send: Sending): Promise<never> {
  const { agent, paths } = send.params;
  const { pane } = send.target;
  const paused = isDeliveryPaused(paths, agent);
  // What the shell ran, as the typist read it while waiting.
  const reason = send.lastReason;
  const running =
    !paused && reason?.type === 'shell-busy' ? reason.running : undefined;
  await send.events.emit({
    agent,
    type: 'send.failed',
    data: {
      pane,
      reason: paused ? 'paused' : 'busy',
      state: send.lastState,
      waitedMs: send.waitMs,
      ...(running ? { running } : {}),
    },
  });
  const stayed = paused
    ? 'paused'
    : running
      ? `busy running ${running}`
      : send.lastState;
  throw new AgentError(
    `${send.shown} stayed ${stayed} for ${Math.round(send.waitMs / 1000)}s; nothing was typed`,
    {
      hint: paused
        ? `deliveries to ${agent} are paused, and a send waits like an answer; macs resume ${agent} lets them go`
        : 'macs never types into a busy agent or an open dialog; try again later, or wait longer with --timeout SEC',
    },
  );
}
