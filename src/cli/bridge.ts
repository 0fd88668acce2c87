/**
 * `macs bridge`: parse its options, find the agent (one pane) or the
 * session's agents (`--all`, bridge-all.ts), and run the bridge
 * (bridge-runtime.ts).
 */
import type { ControllerPane } from '../bridge/route/answerer-backends.js';
import {
  detectPanePresetName,
  detectPresetName,
  profileFromPreset,
} from '../bridge/profile.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { getPreset, listPresetNames } from '../config/presets/index.js';
import type { Preset } from '../config/presets/types.js';
import { ConfigError } from '../errors.js';
import { isValidAgentName } from '../protocol/ids.js';
import { discoverPane } from '../session/discover.js';
import { readSessionRecord } from '../session/record.js';
import type { HomePaths } from '../home/paths.js';
import type { TmuxClient } from '../tmux/client.js';
import { runBridgeAll } from './bridge-all.js';
import { impliedBackend, type BridgeOptions } from './bridge-options.js';
import { runBridgeRuntime } from './bridge-runtime.js';
import { createContext } from './common.js';
import type { CliDeps } from './options.js';

/** The controller pane (`--controller-pane`, else `controller.pane` in the config). */
async function resolveController(
  opts: BridgeOptions,
  workerPane: string,
  tmux: TmuxClient,
  config: MacsConfig,
): Promise<ControllerPane | undefined> {
  const pane = opts.controllerPane ?? config.controller?.pane;
  if (pane === undefined) return undefined;
  if (!/^%\d+$/.test(pane))
    throw new ConfigError(`controller pane '${pane}' is not a pane id like %3`);
  if (pane === workerPane)
    throw new ConfigError(
      `the controller pane ${pane} is the worker's pane; give the controller its own pane`,
    );
  const info = await tmux.paneInfo(pane);
  const name =
    config.controller?.preset ?? detectPresetName(info.currentCommand, config);
  const profile = profileFromPreset(getPreset(name, config.presets));
  return { pane, ...profile };
}

async function resolveAgent(
  opts: BridgeOptions,
  tmux: TmuxClient,
  config: MacsConfig,
  paths: HomePaths,
): Promise<{
  agent: string;
  pane: string;
  preset: Preset;
  followsProgram: boolean;
}> {
  let pane = opts.workerPane;
  if (!pane && opts.agent) {
    // No pane given: find the agent's pane (SPEC §5 pane discovery).
    const preset =
      opts.preset ??
      localWorkers(config).find((w) => w.name === opts.agent)?.preset;
    const program = preset ? getPreset(preset, config.presets).program : '';
    pane = (
      await discoverPane({
        agent: opts.agent,
        tmux,
        paths,
        ...(program ? { program } : {}),
      })
    ).pane;
  }
  if (!pane)
    throw new ConfigError('--worker-pane (or --agent) is required', {
      hint: 'e.g. macs bridge --worker-pane %3 --agent worker-1, or macs bridge --all for a whole session',
    });
  if (!/^%\d+$/.test(pane))
    throw new ConfigError(`--worker-pane '${pane}' is not a pane id like %3`, {
      hint: 'tmux display -p "#{pane_id}" prints the current pane id',
    });
  const info = await tmux.paneInfo(pane);
  const agent = opts.agent ?? (info.agentTag || `worker-${pane.slice(1)}`);
  if (!isValidAgentName(agent)) {
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  }
  const configured = localWorkers(config).find((w) => w.name === agent)?.preset;
  const presetName =
    opts.preset ?? configured ?? (await detectPanePresetName(info, config));
  let preset: Preset;
  try {
    preset = getPreset(presetName, config.presets);
  } catch (error) {
    throw new ConfigError(`unknown preset '${presetName}'`, {
      hint: `known presets: ${listPresetNames().join(', ')}`,
      cause: error,
    });
  }
  // Neither named nor configured: the preset follows the pane's program (a
  // shell pane where an agent or a script is started after the bridge).
  return {
    agent,
    pane,
    preset,
    followsProgram: opts.preset === undefined && configured === undefined,
  };
}

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
    const { agent, pane, preset, followsProgram } = await resolveAgent(
      opts,
      ctx.tmux,
      config,
      ctx.paths,
    );
    const controller = await resolveController(opts, pane, ctx.tmux, config);
    // An agent of the running `macs start` session, in its own pane: its
    // requests belong to that session.
    const record = await readSessionRecord(ctx.paths);
    const session = record?.agents.some(
      (a) => a.name === agent && a.pane === pane,
    )
      ? record.id
      : undefined;
    return await runBridgeRuntime({
      opts,
      deps,
      ctx,
      tmux: ctx.tmux,
      config,
      agents: [
        {
          name: agent,
          role: 'worker',
          profile: profileFromPreset(preset),
          ...(followsProgram ? { followsProgram: true } : {}),
        },
      ],
      resolvePane: () => Promise.resolve(pane),
      ...(controller ? { controller } : {}),
      ...(session && record ? { session, sessionSince: record.createdAt } : {}),
      single: true,
      logFields: { agent },
      banner: () => [
        `macs bridge: supervising ${agent} (pane ${pane}, preset ${preset.name}) with the ${config.backend} backend in ${ctx.paths.home}`,
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
