/**
 * Where a send types: the agent's pane (its state file's, else pane
 * discovery) and the preset that says how.
 */
import { getPreset, listPresetNames } from '../config/presets/index.js';
import type { Preset } from '../config/presets/types.js';
import type { MacsConfig } from '../config/schema.js';
import type { HomePaths } from '../home/paths.js';
import { localWorkers } from '../config/workers.js';
import { AgentError, ConfigError } from '../errors.js';
import { discoverPane } from '../session/discover.js';
import { readAgentState } from '../state/store.js';
import { teammateNamed } from '../state/teammates.js';
import {
  PaneNotFoundError,
  type PaneInfo,
  type TmuxClient,
} from '../tmux/client.js';
import { detectPanePresetName } from '../bridge/profile.js';

export interface SendTarget {
  pane: string;
  info: PaneInfo;
  preset: Preset;
  /** Where the pane came from: the agent's state file, or pane discovery. */
  found: string;
}

async function paneIfAlive(
  tmux: TmuxClient,
  pane: string,
): Promise<PaneInfo | undefined> {
  try {
    return await tmux.paneInfo(pane);
  } catch (error) {
    if (error instanceof PaneNotFoundError) return undefined;
    throw error;
  }
}

/**
 * The agent's pane: the one in its state file (the pane its bridge
 * supervises) while that pane exists, else pane discovery (SPEC §5: pinned,
 * `@macs_agent` tag, title, program).
 */
export async function findTarget(
  agent: string,
  presetFlag: string | undefined,
  tmux: TmuxClient,
  paths: HomePaths,
  config: MacsConfig,
): Promise<SendTarget> {
  const saved = await readAgentState(paths, agent);
  const configured =
    localWorkers(config).find((w) => w.name === agent)?.preset ??
    (config.controller?.name === agent ? config.controller.preset : undefined);
  const presetName = presetFlag ?? saved?.preset ?? configured;
  let pane = saved?.pane;
  let info = pane ? await paneIfAlive(tmux, pane) : undefined;
  let found = 'state file';
  if (!info) {
    const program = presetName
      ? getPreset(presetName, config.presets).program
      : '';
    let discovered: { pane: string; rule: string };
    try {
      discovered = await discoverPane({
        agent,
        tmux,
        paths,
        ...(program ? { program } : {}),
      });
    } catch (error) {
      if (!(error instanceof AgentError) || saved !== undefined) throw error;
      throw new AgentError(
        `unknown agent '${agent}' (no state file in ${paths.state}); ${error.message}`,
        {
          hint: `check the name (macs status lists the agents), or tag its pane: tmux set-option -p -t %N @macs_agent ${agent}`,
          cause: error,
        },
      );
    }
    pane = discovered.pane;
    info = await tmux.paneInfo(pane);
    found = `pane discovery (${discovered.rule})`;
  }
  const name = presetName ?? (await detectPanePresetName(info, config));
  let preset: Preset;
  try {
    preset = getPreset(name, config.presets);
  } catch (error) {
    throw new ConfigError(`unknown preset '${name}'`, {
      hint: `known presets: ${listPresetNames(config.presets).join(', ')}`,
      cause: error,
    });
  }
  return { pane: info.id, info, preset, found };
}

/**
 * The agent name of a teammate given as `<lead>/<teammate>`, when this home
 * adopted one so; undefined for any other name, or when `<lead>` is also a
 * host's name (`isHost`, asked only then): `<host>/<agent>` wins.
 */
export async function localTeammate(
  paths: HomePaths,
  agent: string,
  isHost: (name: string) => Promise<boolean>,
): Promise<string | undefined> {
  const lead = agent.split('/')[0] ?? '';
  if (lead === agent) return undefined;
  const named = await teammateNamed(paths, agent);
  if (!named) return undefined;
  return (await isHost(lead)) ? undefined : named;
}
