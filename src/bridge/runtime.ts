/**
 * The bridge, assembled: one bridge for a fleet of agents (fleet/multi-bridge.ts; a
 * single pane is a fleet of one), its answerers (route/), the deliverer that
 * types for all of them (typist/), the event log, and the usage reading
 * (usage/). `macs bridge` gives it a roster (src/session/roster.ts) and runs
 * it until it is told to stop.
 */
import type { ExecChoice } from '../backends/exec-presets.js';
import type { MacsConfig } from '../config/schema.js';
import type { AgentError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import type { TmuxClient } from '../tmux/client.js';
import { createDeliverer } from '../typist/typist.js';
import { createMultiBridge, type MultiBridge } from './fleet/multi-bridge.js';
import type { Roster } from './fleet/types.js';
import { createAnswerers } from './route/answerer-backends.js';
import type { Attention } from './route/attention.js';
import { createFleetUsage } from './usage/fleet-usage.js';

export interface BridgeRuntimeOptions {
  paths: HomePaths;
  config: MacsConfig;
  tmux: TmuxClient;
  log: Logger;
  roster: Roster;
  /** The exec command, when this bridge runs the exec backend. */
  exec?: ExecChoice;
  /** One pane (`--worker-pane`): a pane gone for good stops the bridge. */
  single?: boolean;
  /** Each event, once written (the CLI prints it). */
  onEvent?: (event: MacsEvent) => void;
  /** A line for the person running the bridge (stderr). */
  onNotice: (line: string) => void;
}

export interface BridgeRuntime {
  /** Each agent's supervision (the start-up message). */
  snapshot: MultiBridge['snapshot'];
  /** One line per answerer, for the start-up message. */
  describe: readonly string[];
  /** Rejects when the one pane of a single-pane bridge is gone for good. */
  paneGone: Promise<never>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A session's start as epoch ms, when it is a date. */
function sinceOf(at: string | undefined): { sessionSince?: number } {
  const ms = at === undefined ? NaN : Date.parse(at);
  return Number.isNaN(ms) ? {} : { sessionSince: ms };
}

/**
 * Assemble the bridge for a roster. Every event it writes is handed to
 * `onEvent` and to the calls for a person (route/attention.ts: an agent
 * turned approval, error or dead).
 */
export async function createBridgeRuntime(
  options: BridgeRuntimeOptions,
): Promise<BridgeRuntime> {
  const { paths, config, tmux, roster } = options;
  // The calls for a person see every event, once they exist (below).
  const called: { attention?: Attention } = {};
  const events = createEventLog(paths, {
    onEvent: (event) => {
      options.onEvent?.(event);
      called.attention?.observe(event);
    },
  });
  const log = options.log;
  const deliverer = createDeliverer(tmux);
  const answerers = await createAnswerers({
    config,
    paths,
    tmux,
    events,
    log,
    deliverer,
    ...(options.exec ? { exec: options.exec } : {}),
    ...(roster.controller ? { controller: roster.controller } : {}),
    ...sinceOf(roster.sessionSince),
  });
  const { dispatcher } = answerers;
  called.attention = answerers.attention;
  // One pane gone for good (killed, window closed): that bridge stops.
  let reportPaneGone: (error: AgentError) => void = () => undefined;
  const paneGone = new Promise<never>((_, reject) => {
    reportPaneGone = reject;
  });
  paneGone.catch(() => undefined);
  const bridge = createMultiBridge({
    agents: roster.agents,
    paths,
    config,
    tmux,
    events,
    log,
    backend: dispatcher,
    deliverer,
    resolvePane: roster.resolvePane,
    ...(roster.session ? { session: roster.session } : {}),
    ...(roster.findNewAgents ? { findNewAgents: roster.findNewAgents } : {}),
    ...(roster.onPrompted ? { onPrompted: roster.onPrompted } : {}),
    onNotice: options.onNotice,
    ...(options.single
      ? { single: { onPaneGone: (error) => reportPaneGone(error) } }
      : {}),
  });
  // What each agent's model calls use, and its budget (docs/usage.md).
  const usage = createFleetUsage({
    paths,
    config,
    events,
    log,
    attention: answerers.attention,
    tmux,
    roster,
    bridge,
  });
  return {
    snapshot: () => bridge.snapshot(),
    describe: answerers.describe,
    paneGone,
    async start() {
      await bridge.start();
      await dispatcher.start();
      usage.start();
    },
    async stop() {
      await usage.stop();
      await bridge.stop();
      await dispatcher.stop();
      await answerers.attention.flush();
    },
  };
}
