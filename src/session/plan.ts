/**
 * Pure: from the config (file, env and `--worker`/`--controller` flags) to
 * the list of agents `macs start` creates, with every default decided.
 */
import path from 'node:path';
import { isShellCommand } from '../config/presets/shell.js';
import {
  findPresetForProgram,
  getPreset,
  type Preset,
} from '../config/presets/index.js';
import type { AgentConfig, MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { ConfigError } from '../errors.js';
import type { LaunchCommand } from './session-layout.js';
import type { AgentRole } from './record.js';

export interface PlannedAgent {
  name: string;
  role: AgentRole;
  preset: Preset;
  command: LaunchCommand;
  /** Absolute working folder (before a worktree replaces it). */
  cwd: string;
  env: Record<string, string>;
  worktree: boolean;
  /** Type prompts/worker.md into it as its first message. */
  prompt: boolean;
}

/** The default controller name, and the worker names `--worker` gives: worker-1, worker-2, … */
export const CONTROLLER_NAME = 'controller';
export function workerName(index: number): string {
  return `worker-${index + 1}`;
}

/** Agents from `--worker CMD` (repeatable) and `--controller CMD`. */
export function agentsFromFlags(flags: {
  workers?: readonly string[];
  controller?: string;
}): { workers?: AgentConfig[]; controller?: AgentConfig } {
  const entry = (name: string, command: string): AgentConfig => ({
    name,
    command,
    env: {},
    worktree: false,
  });
  return {
    ...(flags.workers?.length
      ? { workers: flags.workers.map((cmd, i) => entry(workerName(i), cmd)) }
      : {}),
    ...(flags.controller
      ? { controller: entry(CONTROLLER_NAME, flags.controller) }
      : {}),
  };
}

function commandOf(agent: AgentConfig, preset: Preset): LaunchCommand {
  if (Array.isArray(agent.command))
    return { kind: 'argv', argv: agent.command };
  if (typeof agent.command === 'string') {
    if (!agent.command.trim())
      throw new ConfigError(`agent '${agent.name}': the command is empty`);
    return { kind: 'shell', text: agent.command };
  }
  if (!preset.program) {
    throw new ConfigError(
      `agent '${agent.name}' has no command, and its preset '${preset.name}' names no program`,
      {
        hint: `give it one, e.g. "command": "codex" in macs.config.json, or --worker "codex"`,
      },
    );
  }
  return { kind: 'argv', argv: [preset.program, ...preset.args] };
}

function presetOf(agent: AgentConfig, config: MacsConfig): Preset {
  if (agent.preset) return getPreset(agent.preset, config.presets);
  const program =
    typeof agent.command === 'string'
      ? agent.command.trim().split(/\s+/, 1)[0]
      : agent.command?.[0];
  if (!program)
    throw new ConfigError(`agent '${agent.name}' needs a command or a preset`, {
      hint: 'e.g. { "name": "worker-1", "preset": "codex" } or --worker "codex"',
    });
  return findPresetForProgram(path.basename(program), config.presets);
}

/** Workers without hooks learn the protocol from their first message; a shell would run it. */
export function wantsPrompt(agent: AgentConfig, preset: Preset): boolean {
  return (
    agent.prompt ??
    (preset.hooks === 'none' &&
      preset.name !== 'shell' &&
      !isShellCommand(preset.program))
  );
}

/**
 * Every agent to start, controller first. Throws a ConfigError (exit 2)
 * when there are no workers, when a name is used twice, or when an agent has
 * neither a command nor a preset with a program.
 */
export function planAgents(config: MacsConfig, home: string): PlannedAgent[] {
  if (localWorkers(config).length === 0) {
    throw new ConfigError('nothing to start: no workers are configured', {
      hint: 'try `macs start --demo`, or `macs start --worker "codex"`, or add "workers" to macs.config.json (docs/config.md)',
    });
  }
  const entries: [AgentConfig, AgentRole][] = [
    ...(config.controller
      ? [[config.controller, 'controller'] as [AgentConfig, AgentRole]]
      : []),
    ...localWorkers(config).map((w): [AgentConfig, AgentRole] => [w, 'worker']),
  ];
  const seen = new Set<string>();
  return entries.map(([agent, role]) => {
    if (seen.has(agent.name))
      throw new ConfigError(`the agent name '${agent.name}' is used twice`, {
        hint: 'give every worker and the controller its own name',
      });
    seen.add(agent.name);
    return planAgent(agent, role, config, home);
  });
}

/** One agent to start (`macs start`, `macs add`), with every default decided. */
export function planAgent(
  agent: AgentConfig,
  role: AgentRole,
  config: MacsConfig,
  home: string,
): PlannedAgent {
  const preset = presetOf(agent, config);
  return {
    name: agent.name,
    role,
    preset,
    command: commandOf(agent, preset),
    cwd: path.resolve(home, agent.cwd ?? '.'),
    env: { ...agent.env },
    worktree: role === 'worker' && agent.worktree,
    prompt: role === 'worker' && wantsPrompt(agent, preset),
  };
}
