/**
 * The roster of `macs bridge --worker-pane` (or `--agent`): one agent in
 * one pane, its preset (named, configured, or following the pane's
 * program), the controller pane the interactive backend types into, and the
 * session it belongs to when it is an agent of the running `macs start`
 * session in its own pane. A fleet of one (bridge/fleet/multi-bridge.ts).
 */
import type { ControllerPane } from '../bridge/route/answerer-backends.js';
import type { Roster } from '../bridge/fleet/types.js';
import {
  detectPanePresetName,
  detectPresetName,
  profileFromPreset,
} from '../bridge/profile.js';
import { getPreset, listPresetNames } from '../config/presets/index.js';
import type { Preset } from '../config/presets/types.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { ConfigError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';
import type { TmuxClient } from '../tmux/client.js';
import { discoverPane } from './discover.js';
import { readSessionRecord } from './record.js';
import { readLaunchedSession } from './roster.js';

export interface PaneRosterOptions {
  /** `--worker-pane` */
  pane?: string;
  /** `--agent` */
  agent?: string;
  /** `--preset` */
  preset?: string;
  /** `--controller-pane` */
  controllerPane?: string;
  config: MacsConfig;
  tmux: TmuxClient;
  paths: HomePaths;
}

/** One pane's roster, and what the start-up message names. */
export interface PaneRoster extends Roster {
  pane: string;
  preset: Preset;
}

/** The controller pane (`--controller-pane`, else `controller.pane` in the config). */
async function resolveController(
  given: string | undefined,
  workerPane: string,
  tmux: TmuxClient,
  config: MacsConfig,
): Promise<ControllerPane | undefined> {
  const pane = given ?? config.controller?.pane;
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

/** The pane: given, else the agent's (SPEC §5 pane discovery). */
async function findPane(options: PaneRosterOptions): Promise<string> {
  const { config, tmux, paths } = options;
  let pane = options.pane;
  if (!pane && options.agent) {
    const agent = options.agent;
    const preset =
      options.preset ??
      localWorkers(config).find((w) => w.name === agent)?.preset;
    const program = preset ? getPreset(preset, config.presets).program : '';
    pane = (
      await discoverPane({
        agent,
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
  return pane;
}

function presetNamed(name: string, config: MacsConfig): Preset {
  try {
    return getPreset(name, config.presets);
  } catch (error) {
    throw new ConfigError(`unknown preset '${name}'`, {
      hint: `known presets: ${listPresetNames().join(', ')}`,
      cause: error,
    });
  }
}

/** The roster of one pane (see the module comment). */
export async function createPaneRoster(
  options: PaneRosterOptions,
): Promise<PaneRoster> {
  const { config, tmux, paths } = options;
  const pane = await findPane(options);
  const info = await tmux.paneInfo(pane);
  const agent = options.agent ?? (info.agentTag || `worker-${pane.slice(1)}`);
  if (!isValidAgentName(agent)) {
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  }
  const configured = localWorkers(config).find((w) => w.name === agent)?.preset;
  const preset = presetNamed(
    options.preset ?? configured ?? (await detectPanePresetName(info, config)),
    config,
  );
  // Neither named nor configured: the preset follows the pane's program (a
  // shell pane where an agent or a script is started after the bridge).
  const followsProgram =
    options.preset === undefined && configured === undefined;
  const controller = await resolveController(
    options.controllerPane,
    pane,
    tmux,
    config,
  );
  // An agent of the running `macs start` session, in its own pane: its
  // requests belong to that session.
  const record = await readSessionRecord(paths);
  const session = record?.agents.some(
    (a) => a.name === agent && a.pane === pane,
  )
    ? record.id
    : undefined;
  return {
    pane,
    preset,
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
    launched: () => readLaunchedSession(paths),
  };
}
