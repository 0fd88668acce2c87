/**
 * `macs bridge`: parse its options, take the roster of one pane
 * (session/pane-roster.ts) or of the session (`--all`, bridge-all.ts), and
 * run the bridge (bridge-runtime.ts).
 */
import { createPaneRoster } from '../session/pane-roster.js';
import { runBridgeAll } from './bridge-all.js';
import { impliedBackend, type BridgeOptions } from './bridge-options.js';
import { runBridgeRuntime } from './bridge-runtime.js';
import { createContext } from './common.js';
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
    const backendFlag = impliedBackend(opts);
    const { config } = await ctx.loadConfig({
      ...(backendFlag ? { backend: backendFlag } : {}),
      ...(opts.split === false ? { noSplit: true } : {}),
      ...(opts.heuristics ? { heuristics: true } : {}),
      ...(opts.nonInteractive ? { nonInteractive: true } : {}),
    });
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
      opts,
      deps,
      ctx,
      tmux: ctx.tmux,
      config,
      roster,
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

/** `macs bridge`: one agent's pane, or with `--all` every agent of the session. */
export function runBridgeCommand(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  return opts.all ? runBridgeAll(opts, deps) : runBridge(opts, deps);
}
