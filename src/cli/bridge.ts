import { Option, type Command } from 'commander';
import { createFileBackend } from '../backends/file.js';
import { createDeliverer } from '../bridge/deliver.js';
import { createSupervisor, type AgentProfile } from '../bridge/supervisor.js';
import type { MacsConfig } from '../config/schema.js';
import { getPreset, listPresetNames } from '../config/presets/index.js';
import type { Preset } from '../config/presets/types.js';
import { ConfigError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { isValidAgentName } from '../protocol/ids.js';
import { classifyScreen } from '../screen/classify.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  addCommonOptions,
  createContext,
  type CliDeps,
  type CommonOptions,
} from './common.js';
import { formatEventLine } from './events.js';

export interface BridgeOptions extends CommonOptions {
  workerPane?: string;
  agent?: string;
  preset?: string;
  backend?: string;
  split?: boolean;
  quiet?: boolean;
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
    },
    classify: (screen) => classifyScreen(screen, preset).state,
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
): Promise<{ agent: string; pane: string; preset: Preset }> {
  const pane = opts.workerPane;
  if (!pane)
    throw new ConfigError('--worker-pane is required', {
      hint: 'e.g. macs bridge --worker-pane %3 --agent worker-1',
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
 * route them to the file backend, deliver answers, until interrupted.
 */
export async function runBridge(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig({
    ...(opts.backend ? { backend: opts.backend as MacsConfig['backend'] } : {}),
    ...(opts.split === false ? { noSplit: true } : {}),
  });
  if (config.backend !== 'file') {
    throw new ConfigError(
      `backend '${config.backend}' is not available in this version of macs`,
      {
        hint: 'use --backend file (answers in outbox/<id>.txt or with `macs respond`)',
      },
    );
  }
  const { agent, pane, preset } = await resolveAgent(opts, ctx.tmux, config);
  const events = createEventLog(ctx.paths, {
    onEvent: opts.quiet
      ? undefined
      : (event) => deps.output.out(formatEventLine(event)),
  });
  const log = ctx.log.child({ component: 'bridge', agent });
  const backend = createFileBackend({
    paths: ctx.paths,
    events,
    log,
    pollIntervalMs: config.pollIntervalMs,
  });
  const supervisor = createSupervisor({
    agent,
    pane,
    profile: profileFromPreset(preset),
    paths: ctx.paths,
    config,
    tmux: ctx.tmux,
    events,
    log,
    deliverer: createDeliverer(ctx.tmux),
    backend,
  });
  backend.register(agent, supervisor.onAnswer);
  await supervisor.start();
  try {
    await backend.start();
    deps.output.err(
      `macs bridge: supervising ${agent} (pane ${pane}, preset ${preset.name}) with the file backend in ${ctx.paths.home}`,
    );
    deps.output.err(
      '  requests appear in inbox/; answer with `macs respond <id> "..."` or write outbox/<id>.txt; Ctrl-C stops',
    );
    const signal = await deps.interrupted;
    return signal === 'SIGINT' ? 130 : 0;
  } finally {
    await backend.stop();
    await supervisor.stop();
  }
}

export function registerBridgeCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('bridge')
      .description(
        'supervise a worker pane: detect its requests, route them, deliver the answers',
      )
      .addOption(
        new Option(
          '--worker-pane <pane>',
          "the worker's tmux pane id, e.g. %3",
        ).env('MACS_WORKER_PANE'),
      )
      .addOption(
        new Option(
          '--agent <name>',
          "the agent's name (default: the pane's @macs_agent tag, else worker-<N>)",
        ).env('MACS_AGENT'),
      )
      .addOption(
        new Option(
          '--preset <name>',
          "the agent's preset (default: from the config, else detected from the pane's program)",
        ).env('MACS_PRESET'),
      )
      .addOption(
        new Option(
          '--backend <backend>',
          'who answers: file (a person or program writes outbox/<id>.txt)',
        )
          .choices(['file', 'exec', 'interactive'])
          .env('MACS_BACKEND'),
      )
      .option('--no-split', 'send the whole response, notes included')
      .option('--quiet', 'do not print events as they happen'),
  )
    .addHelpText(
      'after',
      `
Example:
  macs bridge --worker-pane %3 --agent worker-1 --backend file

The bridge prints each event (detected, routed, answered, delivered) and keeps
its state in .macs/, so a restarted bridge carries on where it stopped.
Exit: 0 stopped, 1 failure, 2 bad usage or config, 3 tmux missing or unreachable, 130 interrupted.`,
    )
    .action((opts: BridgeOptions) => run(runBridge(opts, deps)));
}
