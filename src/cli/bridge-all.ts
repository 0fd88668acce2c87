/**
 * `macs bridge --all`: every agent of the session (its record, else the
 * config's agents), plus any pane tagged `@macs_agent`, in one bridge
 * (session/roster.ts, bridge-runtime.ts); agents added later are taken on
 * as they appear.
 */
import type { BridgeRuntime } from '../bridge/runtime.js';
import { ConfigError } from '../errors.js';
import { readSessionRecord } from '../session/record.js';
import { createSessionRoster } from '../session/roster.js';
import { impliedBackend, type BridgeOptions } from './bridge-options.js';
import { runBridgeRuntime } from './bridge-runtime.js';
import { createContext, createLongLivedTmuxClient } from './common.js';
import type { CliDeps } from './options.js';

/**
 * `macs bridge --all`: supervise every agent of the session from this one
 * process, with one shared backend and one deliverer.
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
    const backendFlag = impliedBackend(opts) ?? record?.backend;
    const { config } = await ctx.loadConfig({
      ...(backendFlag ? { backend: backendFlag } : {}),
      ...(opts.split === false ? { noSplit: true } : {}),
      ...(opts.heuristics ? { heuristics: true } : {}),
      ...(opts.nonInteractive ? { nonInteractive: true } : {}),
    });
    const roster = await createSessionRoster({
      record,
      config,
      tmux,
      paths: ctx.paths,
      ...(deps.env.TMUX_PANE ? { ownPane: deps.env.TMUX_PANE } : {}),
    });
    const where = `${ctx.paths.home}${socket ? ` (tmux -L ${socket})` : ''}`;
    return await runBridgeRuntime({
      opts,
      deps,
      ctx,
      tmux,
      config,
      roster,
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
