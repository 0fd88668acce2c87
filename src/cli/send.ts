import { setTimeout as delay } from 'node:timers/promises';
import {
  createDeliverer,
  typeAfterWait,
  UNKNOWN_QUIET_MS,
  type DeliveryResult,
} from '../typist/typist.js';
import type { MacsConfig } from '../config/schema.js';
import { AgentError, ConfigError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { isValidAgentName } from '../protocol/ids.js';
import { sanitizeText } from '../protocol/sanitize.js';
import { readSessionRecord } from '../session/record.js';
import type { AgentStateName } from '../config/states.js';
import { createTmuxClient } from '../tmux/client.js';
import { profileFromPreset } from '../bridge/profile.js';
import { formatWaitReason } from '../typist/wait-typeable.js';
import { createContext, type CommandContext } from './common.js';
import { describeForeground, findTarget } from './send-target.js';
import { readSendText } from './send-text.js';
import { isDeliveryPaused } from '../state/control.js';
import type { CliDeps } from './options.js';
import type { SendOptions } from './types.js';

/** `macs send -` reads at most this much of stdin. */
const MAX_SEND_BYTES = 1024 * 1024;

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
  ctx: CommandContext;
  config: MacsConfig;
  runTmux: CliDeps['runTmux'];
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
 * busy one at the timeout throw an AgentError saying why. `macs send` and
 * `macs mcp`'s `send_message` both go through here.
 */
export async function sendToAgent(params: SendParams): Promise<SendOutcome> {
  const { agent, text: input, ctx, config } = params;
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  if (!sanitizeText(input).trim())
    throw new ConfigError('the text is empty; nothing was sent');
  // The session's server when there is one, like the other session commands.
  const socket = params.socket ?? (await readSessionRecord(ctx.paths))?.socket;
  const tmux = createTmuxClient(socket, params.runTmux);
  const target = await findTarget(agent, params.preset, tmux, ctx, config);
  const { pane, preset } = target;
  // tmux learns the exit status a moment after it marks the pane dead.
  for (
    let tries = 0;
    target.info.dead && target.info.deadStatus === undefined && tries < 10;
    tries += 1
  ) {
    await delay(50);
    target.info = await tmux.paneInfo(pane);
  }
  if (target.info.dead)
    throw new AgentError(
      `agent '${agent}' cannot take input: its program in pane ${pane} has exited${target.info.deadStatus === undefined ? '' : ` (status ${target.info.deadStatus})`}`,
      {
        hint: `restart it (tmux respawn-pane -k -t ${pane}, or macs start), then send again`,
      },
    );

  const profile = profileFromPreset(preset);
  const classify = profile.classify;
  let lastState: AgentStateName = 'unknown';
  const readState = async (): Promise<AgentStateName> => {
    const info = await tmux.paneInfo(pane);
    lastState = info.dead ? 'dead' : classify(await tmux.capturePane(pane));
    return lastState;
  };
  const waitMs = (params.timeoutSec ?? config.deliverTimeoutSec) * 1000;
  const giveUp = new AbortController();
  const timer = setTimeout(() => giveUp.abort(), waitMs);
  let cancelled = false;
  const onCancel = () => {
    cancelled = true;
    giveUp.abort();
  };
  if (params.signal?.aborted) onCancel();
  params.signal?.addEventListener('abort', onCancel, { once: true });
  const events = createEventLog(ctx.paths);
  let result: DeliveryResult;
  const typing = await createDeliverer(tmux, { pollMs: SEND_POLL_MS }).begin({
    pane,
    text: input,
    rules: profile.rules,
    readState,
    classify,
    // A program macs cannot read is typed into once its screen is still.
    unknownQuietMs: UNKNOWN_QUIET_MS,
    confirm: { retries: config.submitRetries },
    // Why it waits, at once: a person is not left looking at nothing.
    waitReportMs: 0,
    // A pause (a person's, or a budget's) holds a send like an answer.
    isPaused: () => isDeliveryPaused(ctx.paths, agent),
    signal: giveUp.signal,
  });
  try {
    let waited = await typing.waitTypeable();
    while (waited.phase === 'busy' || waited.phase === 'waiting') {
      if (waited.phase === 'waiting')
        params.onWaiting?.(
          `waiting for ${agent}: ${formatWaitReason(waited.reason)} (up to ${String(Math.round(waitMs / 1000))} s; --timeout)`,
        );
      waited = await typing.waitTypeable();
    }
    result = await typeAfterWait(typing, waited, true);
  } finally {
    typing.end();
    clearTimeout(timer);
    params.signal?.removeEventListener('abort', onCancel);
  }
  const shown = `${agent} (pane ${pane}, preset ${preset.name})`;
  switch (result.type) {
    case 'delivered': {
      const data = {
        pane,
        preset: preset.name,
        method: result.method,
        chars: result.chars,
        waitedMs: result.waitedMs,
        submits: result.submits,
        confirmed: result.confirmed === true,
        ...(result.confirmation ? { confirmation: result.confirmation } : {}),
        text: sanitizeText(input).slice(0, EVENT_TEXT_MAX_CHARS),
      };
      await events.emit({ agent, type: 'send.delivered', data });
      if (result.confirmed === false)
        await events.emit({
          agent,
          type: 'delivery.unconfirmed',
          data: { via: 'send', pane, submits: result.submits },
        });
      return {
        type: 'delivered',
        data,
        how: describeConfirmation(result),
        shown,
        submitKey: preset.submitKey,
      };
    }
    case 'empty':
      throw new ConfigError('the text is empty; nothing was sent');
    case 'pane-gone':
    case 'asker-gone': // a send has no asker
      throw new AgentError(
        `agent '${agent}' went away while waiting: pane ${pane} is gone or its program exited; nothing was typed`,
      );
    case 'aborted': {
      if (cancelled) return { type: 'cancelled' };
      const paused = isDeliveryPaused(ctx.paths, agent);
      const running =
        !paused && profile.rules.shellPromptOnly
          ? await describeForeground(tmux, pane)
          : undefined;
      await events.emit({
        agent,
        type: 'send.failed',
        data: {
          pane,
          reason: paused ? 'paused' : 'busy',
          state: lastState,
          waitedMs: waitMs,
          ...(running ? { running } : {}),
        },
      });
      const stayed = paused
        ? 'paused'
        : running
          ? `busy running ${running}`
          : lastState;
      throw new AgentError(
        `${shown} stayed ${stayed} for ${Math.round(waitMs / 1000)}s; nothing was typed`,
        {
          hint: paused
            ? `deliveries to ${agent} are paused, and a send waits like an answer; macs resume ${agent} lets them go`
            : 'macs never types into a busy agent or an open dialog; try again later, or wait longer with --timeout SEC',
        },
      );
    }
    default: {
      const never: never = result;
      throw new Error(`unexpected delivery result ${JSON.stringify(never)}`);
    }
  }
}

/** `macs send <agent> [TEXT|-]`: {@link sendToAgent} from the command line. */
export async function runSend(
  agent: string,
  text: string | undefined,
  opts: SendOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  if (agent.includes('/')) {
    const { sendRemote } = await import('./send-remote.js');
    return sendRemote(agent, text, opts, deps, ctx);
  }
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  let timeoutSec: number | undefined;
  if (opts.timeout !== undefined) {
    timeoutSec = Number(opts.timeout);
    if (!Number.isFinite(timeoutSec) || timeoutSec <= 0)
      throw new ConfigError(
        `--timeout '${opts.timeout}' is not a number of seconds`,
      );
  }
  const input = await readSendText(text, deps, MAX_SEND_BYTES);
  const { config } = await ctx.loadConfig();
  const interrupt = new AbortController();
  void deps.interrupted.then(() => interrupt.abort());
  const outcome = await sendToAgent({
    agent,
    text: input,
    ctx,
    config,
    runTmux: deps.runTmux,
    ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
    ...(opts.preset ? { preset: opts.preset } : {}),
    ...(timeoutSec === undefined ? {} : { timeoutSec }),
    signal: interrupt.signal,
    onWaiting: (message) => deps.output.err(`macs send: ${message}`),
  });
  if (outcome.type === 'cancelled') return 130;
  const { data } = outcome;
  if (opts.json) deps.output.json({ agent, ...data });
  if (!data.confirmed) {
    deps.output.err(
      `macs send: typed ${data.chars} chars into ${outcome.shown} and pressed ${outcome.submitKey} ${String(data.submits)} time(s), but saw no sign the agent took them; not typed again`,
    );
    deps.output.err(
      `hint: look at the pane (tmux -L … capture-pane -p -t ${data.pane})`,
    );
    return 1;
  }
  if (!opts.json)
    deps.output.out(
      `sent ${data.chars} chars to ${outcome.shown}: ${outcome.how}`,
    );
  return 0;
}
