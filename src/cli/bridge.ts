import { resolveExecArgv } from '../backends/exec-presets.js';
import { createAnswerers, type ControllerPane } from '../bridge/answerers.js';
import { createDeliverer } from '../bridge/deliver.js';
import { createSupervisor, type AgentProfile } from '../bridge/supervisor.js';
import type { MacsConfig } from '../config/schema.js';
import { getPreset, listPresetNames } from '../config/presets/index.js';
import type { Preset } from '../config/presets/types.js';
import { ConfigError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import { isValidAgentName } from '../protocol/ids.js';
import { discoverPane } from '../session/discover.js';
import { readSessionRecord } from '../session/record.js';
import type { HomePaths } from '../home/paths.js';
import { classifyScreen } from '../screen/classify.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  createContext,
  watchCrash,
  watchTmuxServer,
  type CommandContext,
  type CliDeps,
} from './common.js';
import { formatEventLine } from './events.js';

import { runBridgeAll } from './bridge-all.js';
import { impliedBackend, type BridgeOptions } from './bridge-options.js';

export { impliedBackend, type BridgeOptions };

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

/** A preset turned into what the supervisor needs. */
export function profileFromPreset(preset: Preset): AgentProfile {
  return {
    preset: preset.name,
    rules: {
      submitKey: preset.submitKey,
      submitDelayMs: preset.submitDelayMs,
      bracketed: preset.paste.bracketed,
      maxLiteralChars: preset.paste.maxLiteralChars,
      typeIntoUnknown: !preset.knownScreens,
    },
    classify: (screen) => classifyScreen(screen, preset).state,
    classifyScreen: (screen) => classifyScreen(screen, preset),
    knownScreens: preset.knownScreens,
    ...(preset.dialog ? { dialog: preset.dialog } : {}),
    hooks: preset.hooks,
  };
}

/** The preset whose program is running in the pane, else `generic`. */
export function detectPresetName(
  currentCommand: string,
  config: MacsConfig,
): string {
  for (const name of listPresetNames()) {
    if (name === 'generic') continue;
    const preset = getPreset(name, config.presets);
    if (preset.program && preset.program === currentCommand) return name;
  }
  return 'generic';
}

async function resolveAgent(
  opts: BridgeOptions,
  tmux: TmuxClient,
  config: MacsConfig,
  paths: HomePaths,
): Promise<{ agent: string; pane: string; preset: Preset }> {
  let pane = opts.workerPane;
  if (!pane && opts.agent) {
    // No pane given: find the agent's pane (SPEC §5 pane discovery).
    const preset =
      opts.preset ?? config.workers.find((w) => w.name === opts.agent)?.preset;
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
  const configured = config.workers.find((w) => w.name === agent)?.preset;
  const presetName =
    opts.preset ?? configured ?? detectPresetName(info.currentCommand, config);
  let preset: Preset;
  try {
    preset = getPreset(presetName, config.presets);
  } catch (error) {
    throw new ConfigError(`unknown preset '${presetName}'`, {
      hint: `known presets: ${listPresetNames().join(', ')}`,
      cause: error,
    });
  }
  return { agent, pane, preset };
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
    return await bridgeWith(ctx, opts, deps);
  } finally {
    await ctx.tmux.close();
  }
}

async function bridgeWith(
  ctx: CommandContext,
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  const backendFlag = impliedBackend(opts);
  const { config } = await ctx.loadConfig({
    ...(backendFlag ? { backend: backendFlag } : {}),
    ...(opts.split === false ? { noSplit: true } : {}),
    ...(opts.heuristics ? { heuristics: true } : {}),
  });
  const { agent, pane, preset } = await resolveAgent(
    opts,
    ctx.tmux,
    config,
    ctx.paths,
  );
  const exec = resolveExecArgv({
    ...(opts.exec ? { flagExec: opts.exec } : {}),
    ...(opts.execPreset ? { flagPreset: opts.execPreset } : {}),
    config,
  });
  const controller = await resolveController(opts, pane, ctx.tmux, config);
  // Each event is printed (unless --quiet), and calls a person when an
  // agent turns approval, error or dead (bridge/attention.ts).
  const watchers: { observe?: (event: MacsEvent) => void } = {};
  const events = createEventLog(ctx.paths, {
    onEvent: (event) => {
      if (!opts.quiet) deps.output.out(formatEventLine(event));
      watchers.observe?.(event);
    },
  });
  const log = ctx.log.child({ component: 'bridge', agent });
  const deliverer = createDeliverer(ctx.tmux);
  const {
    dispatcher: backend,
    describe,
    attention,
  } = await createAnswerers({
    config,
    paths: ctx.paths,
    tmux: ctx.tmux,
    events,
    log,
    deliverer,
    ...(exec ? { exec } : {}),
    ...(controller ? { controller } : {}),
  });
  watchers.observe = (event) => attention.observe(event);
  // The pane gone for good (killed, window closed): this bridge stops.
  let reportPaneGone: (error: Error) => void = () => undefined;
  const paneGone = new Promise<never>((_, reject) => {
    reportPaneGone = reject;
  });
  paneGone.catch(() => undefined);
  // An agent of the running `macs start` session, in its own pane: its
  // requests belong to that session.
  const record = await readSessionRecord(ctx.paths);
  const session = record?.agents.some(
    (a) => a.name === agent && a.pane === pane,
  )
    ? record.id
    : undefined;
  const supervisor = createSupervisor({
    agent,
    pane,
    profile: profileFromPreset(preset),
    paths: ctx.paths,
    config,
    tmux: ctx.tmux,
    events,
    log,
    deliverer,
    backend,
    ...(session ? { session } : {}),
    onPaneGone: (error) => reportPaneGone(error),
  });
  backend.register(agent, supervisor.onAnswer);
  await supervisor.start();
  try {
    await backend.start();
    deps.output.err(
      `macs bridge: supervising ${agent} (pane ${pane}, preset ${preset.name}) with the ${config.backend} backend in ${ctx.paths.home}`,
    );
    for (const line of describe) deps.output.err(`  ${line}`);
    deps.output.err('  Ctrl-C stops');
    const server = watchTmuxServer(ctx.tmux);
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
    await backend.stop();
    await supervisor.stop();
    await attention.flush();
  }
}

/** `macs bridge`: one agent's pane, or with `--all` every agent of the session. */
export function runBridgeCommand(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  return opts.all
    ? runBridgeAll(opts, deps, { profileFromPreset, detectPresetName })
    : runBridge(opts, deps);
}
