/**
 * `macs bridge` once its options are parsed: the roster of one pane
 * (session/pane-roster.ts) or of the session (`--all`, session/roster.ts),
 * run in the foreground by bridge/foreground.ts, its event lines on stdout
 * and what runs on stderr.
 */
import type { Roster } from '../bridge/fleet/types.js';
import type { BridgeRuntime } from '../bridge/runtime.js';
import { runForegroundBridge } from '../bridge/foreground.js';
import type { MacsConfig } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { createPaneRoster } from '../session/pane-roster.js';
import { readSessionRecord } from '../session/record.js';
import { createSessionRoster } from '../session/roster.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  bridgeConfigFlags,
  impliedBackend,
  type BridgeOptions,
} from './bridge-options.js';
import {
  createContext,
  createLongLivedTmuxClient,
  type CommandContext,
} from './common.js';
import { formatEventLine } from './events.js';
import type { CliDeps } from './options.js';

/**
 * Run one bridge in the foreground for an existing pane: detect requests,
 * route them to their backends, deliver answers, until interrupted.
 */
export async function runBridge(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps, { longLived: true, create: true });
  try {
    const { config } = await ctx.loadConfig(
      bridgeConfigFlags(opts, impliedBackend(opts)),
    );
    const roster = await createPaneRoster({
      ...(opts.workerPane ? { pane: opts.workerPane } : {}),
      ...(opts.agent ? { agent: opts.agent } : {}),
      ...(opts.preset ? { preset: opts.preset } : {}),
      ...(opts.controllerPane ? { controllerPane: opts.controllerPane } : {}),
      config,
      tmux: ctx.tmux,
      paths: ctx.paths,
    });
    const agent = roster.agents[0]?.name ?? '?';
    return await runBridgeRuntime({
      ...{ opts, deps, ctx, tmux: ctx.tmux, config, roster },
      single: true,
      logFields: { agent },
      banner: () => [
        `macs bridge: supervising ${agent} (pane ${roster.pane}, preset ${roster.preset.name}) with the ${config.backend} backend in ${ctx.paths.home}`,
      ],
    });
  } finally {
    await ctx.tmux.close();
  }
}

/**
 * `macs bridge --all`: supervise every agent of the session (its record,
 * else the config's agents, plus any pane tagged `@macs_agent`) from this
 * one process, with one shared backend and one deliverer; agents added
 * later are taken on as they appear.
 */
export async function runBridgeAll(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  if (opts.workerPane)
    throw new ConfigError('--all and --worker-pane do not go together', {
      hint: '--all supervises every agent of the session; --worker-pane one pane',
    });
  const ctx = createContext(opts, deps, { create: true });
  const record = await readSessionRecord(ctx.paths);
  const socket = opts.tmuxSocket ?? record?.socket;
  const tmux = createLongLivedTmuxClient(socket, deps, ctx.log);
  try {
    // As for one agent: `--exec` alone means the exec backend.
    const backend = impliedBackend(opts) ?? record?.backend;
    const { config } = await ctx.loadConfig(bridgeConfigFlags(opts, backend));
    const roster = await createSessionRoster({
      ...{ record, config, tmux, paths: ctx.paths },
      ...(deps.env.TMUX_PANE ? { ownPane: deps.env.TMUX_PANE } : {}),
    });
    const where = `${ctx.paths.home}${socket ? ` (tmux -L ${socket})` : ''}`;
    return await runBridgeRuntime({
      ...{ opts, deps, ctx, tmux, config, roster },
      logFields: { mode: 'all' },
      banner: (bridge) => [
        `macs bridge --all: supervising ${roster.agents.length} agents with the ${config.backend} backend in ${where}`,
        ...formatSlots(bridge),
      ],
    });
  } finally {
    await tmux.close();
  }
}

/** One line per agent: its pane, or why it waits. */
function formatSlots(bridge: BridgeRuntime): string[] {
  return bridge
    .snapshot()
    .map(
      (slot) =>
        `  ${slot.agent}: ${slot.status === 'running' ? `pane ${slot.pane ?? '?'}` : slot.status}${slot.problem ? ` (${slot.problem})` : ''}`,
    );
}

export interface BridgeRun {
  opts: BridgeOptions;
  deps: CliDeps;
  ctx: CommandContext;
  tmux: TmuxClient;
  config: MacsConfig;
  roster: Roster;
  /** One pane (`--worker-pane`): a pane gone for good stops the bridge. */
  single?: boolean;
  /** Fields of the bridge's log lines (`agent`, or `mode: all`). */
  logFields: Record<string, string>;
  /** The lines that say what runs, printed once it does. */
  banner: (bridge: BridgeRuntime) => string[];
}

/** Run the bridge in the foreground; the exit code (130 after Ctrl-C). */
export async function runBridgeRuntime(run: BridgeRun): Promise<number> {
  const { opts, deps, ctx, config } = run;
  // A hub's links to its hosts live as long as its bridge (docs/remote.md).
  const hub = Object.keys(config.hosts).length > 0 && !run.single;
  const links = hub ? await import('../remote/hub-links.js') : undefined;
  const signal = await runForegroundBridge({
    ...{ paths: ctx.paths, config, tmux: run.tmux, roster: run.roster },
    log: ctx.log.child({ component: 'bridge', ...run.logFields }),
    execFlags: {
      ...(opts.exec ? { flagExec: opts.exec } : {}),
      ...(opts.execPreset ? { flagPreset: opts.execPreset } : {}),
    },
    ...(run.single ? { single: true } : {}),
    ...(opts.quiet
      ? {}
      : { onEvent: (event) => deps.output.out(formatEventLine(event)) }),
    onNotice: (line) => deps.output.err(line),
    interrupted: deps.interrupted,
    ...(links
      ? {
          startLinks: () =>
            links.startHubLinks(
              { paths: ctx.paths, log: ctx.log, config, env: deps.env },
              deps.output.err,
            ),
        }
      : {}),
    onStarted: (bridge) => {
      for (const line of run.banner(bridge)) deps.output.err(line);
      for (const line of bridge.describe) deps.output.err(`  ${line}`);
      deps.output.err('  Ctrl-C stops');
    },
  });
  return signal === 'SIGINT' ? 130 : 0;
}
