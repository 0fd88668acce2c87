/**
 * What `macs bridge` runs once its options are parsed and its agents known,
 * for one pane or for a whole session alike: one bridge for a fleet of
 * agents (bridge/fleet/fleet.ts; a single pane is a fleet of one), its answerers,
 * its event lines on stdout and calls for a person, until Ctrl-C, the tmux
 * server's end, or (for a single pane) that pane gone for good.
 */
import { resolveExecArgv } from '../backends/exec-presets.js';
import {
  createAnswerers,
  type ControllerPane,
} from '../bridge/route/answerer-backends.js';
import { createDeliverer } from '../typist/typist.js';
import {
  createMultiBridge,
  type MultiBridge,
  type MultiBridgeOptions,
} from '../bridge/fleet/fleet.js';
import type { MultiAgent } from '../bridge/fleet/types.js';
import type { MacsConfig } from '../config/schema.js';
import { createEventLog } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import type { TmuxClient } from '../tmux/client.js';
import type { BridgeOptions } from './bridge-options.js';
import { watchCrash, watchTmuxServer, type CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { formatEventLine } from './events.js';
import { createBridgeUsage } from './bridge-usage.js';

export interface BridgeRun {
  opts: BridgeOptions;
  deps: CliDeps;
  ctx: CommandContext;
  tmux: TmuxClient;
  config: MacsConfig;
  agents: MultiAgent[];
  resolvePane: MultiBridgeOptions['resolvePane'];
  /** The controller pane the interactive backend types into. */
  controller?: ControllerPane;
  session?: string;
  /** When that session began (its record's createdAt): for the loop guards. */
  sessionSince?: string;
  findNewAgents?: MultiBridgeOptions['findNewAgents'];
  onPrompted?: MultiBridgeOptions['onPrompted'];
  /** One pane (`--worker-pane`): a pane gone for good stops the bridge. */
  single?: boolean;
  /** Fields of the bridge's log lines (`agent`, or `mode: all`). */
  logFields: Record<string, string>;
  /** The lines that say what runs, printed once it does. */
  banner: (bridge: MultiBridge) => string[];
}

/** A session's start as epoch ms, when it is a date. */
function sinceOf(at: string | undefined): { sessionSince?: number } {
  const ms = at === undefined ? NaN : Date.parse(at);
  return Number.isNaN(ms) ? {} : { sessionSince: ms };
}

/** Run the bridge in the foreground; the exit code (130 after Ctrl-C). */
export async function runBridgeRuntime(run: BridgeRun): Promise<number> {
  const { opts, deps, ctx, tmux, config } = run;
  const exec = resolveExecArgv({
    ...(opts.exec ? { flagExec: opts.exec } : {}),
    ...(opts.execPreset ? { flagPreset: opts.execPreset } : {}),
    config,
  });
  // Each event is printed (unless --quiet), and calls a person when an
  // agent turns approval, error or dead (bridge/attention.ts).
  const watchers: { observe?: (event: MacsEvent) => void } = {};
  const events = createEventLog(ctx.paths, {
    onEvent: (event) => {
      if (!opts.quiet) deps.output.out(formatEventLine(event));
      watchers.observe?.(event);
    },
  });
  const log = ctx.log.child({ component: 'bridge', ...run.logFields });
  const deliverer = createDeliverer(tmux);
  const { dispatcher, describe, attention } = await createAnswerers({
    config,
    paths: ctx.paths,
    tmux,
    events,
    log,
    deliverer,
    ...(exec ? { exec } : {}),
    ...(run.controller ? { controller: run.controller } : {}),
    ...sinceOf(run.sessionSince),
  });
  watchers.observe = (event) => attention.observe(event);
  // One pane gone for good (killed, window closed): that bridge stops.
  let reportPaneGone: (error: Error) => void = () => undefined;
  const paneGone = new Promise<never>((_, reject) => {
    reportPaneGone = reject;
  });
  paneGone.catch(() => undefined);
  const bridge = createMultiBridge({
    agents: run.agents,
    paths: ctx.paths,
    config,
    tmux,
    events,
    log,
    backend: dispatcher,
    deliverer,
    resolvePane: run.resolvePane,
    ...(run.session ? { session: run.session } : {}),
    ...(run.findNewAgents ? { findNewAgents: run.findNewAgents } : {}),
    ...(run.onPrompted ? { onPrompted: run.onPrompted } : {}),
    onNotice: (line) => deps.output.err(line),
    ...(run.single
      ? { single: { onPaneGone: (error) => reportPaneGone(error) } }
      : {}),
  });
  // A hub's links to its hosts live as long as its bridge (docs/remote.md).
  const links =
    Object.keys(config.hosts).length === 0 || run.single
      ? undefined
      : (await import('./remote-links.js')).startHubLinks(ctx, config, deps);
  // What each agent's model calls use, and its budget (docs/usage.md).
  const usage = createBridgeUsage({
    paths: ctx.paths,
    config,
    events,
    log,
    attention,
    tmux,
    agents: run.agents,
    bridge,
  });
  try {
    await bridge.start();
    await dispatcher.start();
    usage.start();
    for (const line of run.banner(bridge)) deps.output.err(line);
    for (const line of describe) deps.output.err(`  ${line}`);
    deps.output.err('  Ctrl-C stops');
    const server = watchTmuxServer(tmux);
    const crash = watchCrash();
    try {
      const signal = await Promise.race([
        deps.interrupted,
        server.gone,
        paneGone,
        crash.crashed,
      ]);
      return signal === 'SIGINT' ? 130 : 0;
    } finally {
      server.stop();
      crash.stop();
    }
  } finally {
    await usage.stop();
    await links?.close();
    await bridge.stop();
    await dispatcher.stop();
    await attention.flush();
  }
}
