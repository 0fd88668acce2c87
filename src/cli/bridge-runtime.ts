/**
 * What `macs bridge` runs once its options are parsed and its roster known,
 * for one pane or for a whole session alike: the bridge assembled in
 * bridge/runtime.ts, its event lines on stdout, a hub's links to its hosts,
 * until Ctrl-C, the tmux server's end, or (for a single pane) that pane
 * gone for good.
 */
import { resolveExecArgv } from '../backends/exec-presets.js';
import type { Roster } from '../bridge/fleet/types.js';
import { createBridgeRuntime, type BridgeRuntime } from '../bridge/runtime.js';
import type { MacsConfig } from '../config/schema.js';
import type { TmuxClient } from '../tmux/client.js';
import type { BridgeOptions } from './bridge-options.js';
import { watchCrash, watchTmuxServer, type CommandContext } from './common.js';
import { formatEventLine } from './events.js';
import type { CliDeps } from './options.js';

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
  const exec = resolveExecArgv({
    ...(opts.exec ? { flagExec: opts.exec } : {}),
    ...(opts.execPreset ? { flagPreset: opts.execPreset } : {}),
    config,
  });
  const bridge = await createBridgeRuntime({
    paths: ctx.paths,
    config,
    tmux: run.tmux,
    log: ctx.log.child({ component: 'bridge', ...run.logFields }),
    roster: run.roster,
    ...(exec ? { exec } : {}),
    ...(run.single ? { single: true } : {}),
    ...(opts.quiet
      ? {}
      : { onEvent: (event) => deps.output.out(formatEventLine(event)) }),
    onNotice: (line) => deps.output.err(line),
  });
  // A hub's links to its hosts live as long as its bridge (docs/remote.md).
  const links =
    Object.keys(config.hosts).length === 0 || run.single
      ? undefined
      : (await import('./remote-links.js')).startHubLinks(ctx, config, deps);
  try {
    await bridge.start();
    for (const line of run.banner(bridge)) deps.output.err(line);
    for (const line of bridge.describe) deps.output.err(`  ${line}`);
    deps.output.err('  Ctrl-C stops');
    return await waitForEnd(run, bridge);
  } finally {
    await links?.close();
    await bridge.stop();
  }
}

/** Until Ctrl-C (130), SIGTERM or the tmux server's end (0), or a crash. */
async function waitForEnd(
  { deps, tmux }: BridgeRun,
  bridge: BridgeRuntime,
): Promise<number> {
  const server = watchTmuxServer(tmux);
  const crash = watchCrash();
  try {
    const signal = await Promise.race([
      deps.interrupted,
      server.gone,
      bridge.paneGone,
      crash.crashed,
    ]);
    return signal === 'SIGINT' ? 130 : 0;
  } finally {
    server.stop();
    crash.stop();
  }
}
