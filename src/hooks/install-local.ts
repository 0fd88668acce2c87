/**
 * `macs hooks install|uninstall <agent>` (docs/hooks.md): macs's hooks for
 * an agent already running, merged into (or removed from) its folder's
 * `.claude/settings.local.json` (local-settings.ts). Codex reads its notify
 * program from the user's own config, which macs does not edit: for it the
 * outcome is the line to add. Each function returns what it did; the CLI
 * words it.
 */
import path from 'node:path';
import { getPreset, listPresetNames } from '../config/presets/index.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { ConfigError, MacsError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';
import { readAgentState } from '../state/store.js';
import { buildCodexNotifyArgs, defaultMacsCommand } from './hook-command.js';
import type { HooksKind } from './install.js';
import {
  installClaudeHooks,
  localSettingsPath,
  uninstallClaudeHooks,
} from './local-settings.js';

/** Which agent, and where: the command's flags and the home it runs in. */
export interface LocalHooksRequest {
  agent: string;
  /** `--preset`; else the config's, the agent's state's, or claude. */
  preset?: string | undefined;
  /** `--dir`; else the agent's cwd from the config, else `cwd`. */
  dir?: string | undefined;
  cwd: string;
  paths: HomePaths;
  config: MacsConfig;
  /** The agents the home knows (cli: listKnownAgents). */
  known: readonly string[];
}

/** The agent's preset, its kind of hooks and its folder. */
interface LocalHooksTarget {
  preset: string;
  hooks: HooksKind;
  dir: string;
}

export type LocalInstallOutcome =
  /** No agent of that name in the home: hooks would report to no one. */
  | { type: 'unknown-agent' }
  /** Codex: the `notify = [...]` assignment to add to ~/.codex/config.toml. */
  | { type: 'codex'; notify: string }
  | { type: 'unchanged'; file: string }
  | { type: 'installed'; file: string; events: string[] };

export type LocalUninstallOutcome =
  /** Unknown, and (for Claude Code) no hooks of it in `file`, which has `others`'. */
  | { type: 'unknown-agent'; file?: string; others?: string[] }
  | { type: 'codex' }
  | { type: 'removed'; file: string; removed: number };

/** The agent's name, checked (a bad one is a ConfigError). */
function checkAgentName(agent: string): void {
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
}

/**
 * The preset (flag, config, the agent's state, else claude), its hooks and
 * the folder (flag, config's cwd, else the current one). An unknown preset
 * is a ConfigError listing the known ones.
 */
async function resolveTarget(
  request: LocalHooksRequest,
): Promise<LocalHooksTarget> {
  const { agent, config, paths } = request;
  const configured = [
    ...localWorkers(config),
    ...(config.controller ? [config.controller] : []),
  ].find((w) => w.name === agent);
  const state = await readAgentState(paths, agent);
  const preset =
    request.preset ?? configured?.preset ?? state?.preset ?? 'claude';
  let hooks: HooksKind;
  try {
    hooks = getPreset(preset, config.presets).hooks;
  } catch (error) {
    throw new ConfigError(`unknown preset '${preset}'`, {
      hint: `known presets: ${listPresetNames(config.presets).join(', ')}`,
      cause: error,
    });
  }
  const dir = request.dir
    ? path.resolve(request.cwd, request.dir)
    : configured?.cwd
      ? path.resolve(paths.home, configured.cwd)
      : request.cwd;
  return { preset, hooks, dir };
}

/**
 * Merge macs's hooks for the agent into its folder's Claude Code settings
 * (idempotent; the user's own hooks stay). A preset without hooks, or a
 * file holding another agent's macs hooks, is refused (MacsError).
 */
export async function installLocalHooks(
  request: LocalHooksRequest,
): Promise<LocalInstallOutcome> {
  const { agent, config, paths } = request;
  checkAgentName(agent);
  if (!request.known.includes(agent)) return { type: 'unknown-agent' };
  const target = await resolveTarget(request);
  const command = {
    macsCommand: defaultMacsCommand(),
    agent,
    home: paths.home,
  };
  if (target.hooks === 'none')
    throw new MacsError(
      `preset '${target.preset}' has no hooks macs can install`,
      {
        hint: 'macs reads this agent from its screen; --preset claude or codex if that is what runs',
      },
    );
  if (target.hooks === 'codex') {
    const [, notify = ''] = buildCodexNotifyArgs(command);
    return { type: 'codex', notify };
  }
  const file = localSettingsPath(target.dir);
  const result = await installClaudeHooks(file, {
    ...command,
    askTimeoutSec: config.policy.askTimeoutSec,
  });
  if (result.type === 'conflict')
    throw new MacsError(
      `${file} already has macs hooks for ${result.agents.join(', ')}; two agents in one folder would each report as the other`,
      {
        hint: 'give each agent its own folder (a git worktree), or remove the other with `macs hooks uninstall <agent>`',
      },
    );
  return result.type === 'unchanged'
    ? { type: 'unchanged', file }
    : { type: 'installed', file, events: result.events };
}

/**
 * Remove only macs's hooks for the agent from its folder's Claude Code
 * settings. An agent the home forgot may still have hooks there to remove;
 * it is unknown only when it has none.
 */
export async function uninstallLocalHooks(
  request: LocalHooksRequest,
): Promise<LocalUninstallOutcome> {
  const { agent } = request;
  checkAgentName(agent);
  const target = await resolveTarget(request);
  const known = request.known.includes(agent);
  if (target.hooks === 'codex')
    return known ? { type: 'codex' } : { type: 'unknown-agent' };
  const { file, removed, others } = await uninstallClaudeHooks(
    localSettingsPath(target.dir),
    agent,
  );
  if (removed === 0 && !known) return { type: 'unknown-agent', file, others };
  return { type: 'removed', file, removed };
}
