/**
 * Which agent a hook call is for, and whether it may speak for that agent.
 * A hook finds its agent by name (`--agent`, `MACS_AGENT`) or by the tmux
 * pane it runs in; once a bridge has a record of the agent, the call must
 * also come from that agent's pane and its preset must have hooks, so no
 * other process can mark the agent idle or take the answer queued for it.
 */
import { builtinPresetHooks } from '../config/presets/builtin.js';
import type { getPreset } from '../config/presets/index.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';
import { readAllAgentStates } from '../state/pending.js';
import type { AgentStateFile } from '../state/types.js';
import { routeTeammateHook } from './teammate-route.js';

const definesPreset = (config: MacsConfig | undefined, name: string) =>
  Object.hasOwn(config?.presets ?? {}, name);

/**
 * The hook kind of an agent's preset (`none` when unknown or invalid). A
 * builtin's is read from its plain input, with no zod (every hook call asks,
 * issue 15). A preset the config defines (`presets.<name>`, which replaces
 * or extends a builtin) is resolved and validated by `resolve`, the preset
 * lookup of config/presets/index.ts; without it, such a preset counts as
 * having no hooks. `loadPresetHooks` passes it when it is needed.
 */
export function presetHooksOf(
  preset: string | undefined,
  config: MacsConfig | undefined,
  resolve?: typeof getPreset,
): string {
  if (!preset) return 'none';
  if (!definesPreset(config, preset))
    return builtinPresetHooks(preset) ?? 'none';
  if (!resolve) return 'none';
  try {
    return resolve(preset, config?.presets ?? {}).hooks;
  } catch {
    return 'none';
  }
}

/**
 * `presetHooksOf`, loading the preset lookup (and with it zod) only for a
 * preset the config defines.
 */
export async function loadPresetHooks(
  preset: string | undefined,
  config: MacsConfig | undefined,
): Promise<string> {
  if (!preset || !definesPreset(config, preset))
    return presetHooksOf(preset, config);
  const { getPreset } = await import('../config/presets/index.js');
  return presetHooksOf(preset, config, getPreset);
}

/**
 * Pure: why a hook call may not speak for `agent`, or undefined when it
 * may. With a bridge's record of the agent (its state), the call must come
 * from the agent's pane (`$TMUX_PANE`, which tmux sets for every process in
 * a pane) and the agent's preset must have hooks.
 */
export function hookOriginProblem(input: {
  agent: string;
  state?: Pick<AgentStateFile, 'pane' | 'preset'>;
  tmuxPane?: string;
  presetHooks: string;
}): string | undefined {
  const { agent, state } = input;
  if (!state) return undefined;
  if (state.pane && input.tmuxPane !== state.pane)
    return `it came from ${input.tmuxPane ? `pane ${input.tmuxPane}` : 'outside tmux'}, not from ${agent}'s pane ${state.pane}`;
  if (input.presetHooks === 'none')
    return `${agent}'s preset (${state.preset}) has no hooks`;
  return undefined;
}

export type AgentResolution =
  { type: 'found'; agent: string; via: string } | { type: 'none'; why: string };

/**
 * Which agent a hook belongs to: `--agent`/`MACS_AGENT` when given (a
 * teammate's, from its pane, when that names its lead), else the
 * agent whose recorded pane is `$TMUX_PANE` (in `.macs/state/*.json`, then
 * the config's `workers[].pane`).
 */
export async function resolveHookAgent(
  paths: HomePaths,
  input: {
    agent?: string;
    tmuxPane?: string;
    config?: MacsConfig;
    /** How an agent's state is read (the runner's, which reads it once). */
    readState?: (agent: string) => Promise<AgentStateFile | undefined>;
  },
): Promise<AgentResolution> {
  if (input.agent !== undefined && input.agent !== '') {
    if (!isValidAgentName(input.agent))
      return {
        type: 'none',
        why: `'${input.agent}' is not a valid agent name`,
      };
    // A teammate's hooks name its lead: its pane says which it is.
    const agent = await routeTeammateHook(paths, input.agent, input.tmuxPane, {
      ...(input.readState ? { readState: input.readState } : {}),
    });
    return { type: 'found', agent, via: 'name' };
  }
  const pane = input.tmuxPane;
  if (!pane)
    return {
      type: 'none',
      why: 'neither MACS_AGENT nor TMUX_PANE is set',
    };
  const states = (await readAllAgentStates(paths))
    .filter((s) => s.pane === pane)
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const byState = states[0];
  if (byState) return { type: 'found', agent: byState.agent, via: 'pane' };
  const configured = [
    ...(input.config ? localWorkers(input.config) : []),
    ...(input.config?.controller ? [input.config.controller] : []),
  ].find((w) => w.pane === pane);
  if (configured)
    return { type: 'found', agent: configured.name, via: 'config' };
  return {
    type: 'none',
    why: `no agent is recorded for pane ${pane} in ${paths.state}`,
  };
}
