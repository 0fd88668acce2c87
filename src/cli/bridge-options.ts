import { Option, type Command } from 'commander';
import type { MacsConfig } from '../config/schema.js';
import type { CommonOptions } from './options.js';

/** The options of `macs bridge` (one pane, or `--all`). */
export interface BridgeOptions extends CommonOptions {
  workerPane?: string;
  agent?: string;
  preset?: string;
  backend?: string;
  split?: boolean;
  quiet?: boolean;
  /** `--exec`, repeatable: one argument each (or a JSON array). */
  exec?: string[];
  execPreset?: string;
  controllerPane?: string;
  /** Supervise every agent of the session (`macs bridge --all`). */
  all?: boolean;
  /** Heuristic triggers (SPEC §2): `--heuristics`. */
  heuristics?: boolean;
  /** Run unattended (docs/unattended.md): `--non-interactive`. */
  nonInteractive?: boolean;
}

/** `--backend` when it is not given: what `--exec` or `--controller-pane` alone imply. */
export function impliedBackend(
  opts: BridgeOptions,
): MacsConfig['backend'] | undefined {
  if (opts.backend) return opts.backend as MacsConfig['backend'];
  const exec = Boolean(opts.exec?.length || opts.execPreset);
  const controller = Boolean(opts.controllerPane);
  if (exec && !controller) return 'exec';
  if (controller && !exec) return 'interactive';
  return undefined;
}

/** The config settings the flags give (`backend`: the flag's or the session's). */
export function bridgeConfigFlags(
  opts: BridgeOptions,
  backend: MacsConfig['backend'] | undefined,
): Partial<MacsConfig> {
  return {
    ...(backend ? { backend } : {}),
    ...(opts.split === false ? { noSplit: true } : {}),
    ...(opts.heuristics ? { heuristics: true } : {}),
    ...(opts.nonInteractive ? { nonInteractive: true } : {}),
  };
}

/** The flags of `macs bridge`, in the order `--help` lists them. */
export function addBridgeOptions(command: Command): Command {
  return addRunOptions(addAnswererOptions(addPaneOptions(command)));
}

/** The flags that name the worker: `--worker-pane`, `--agent`, `--preset`. */
function addPaneOptions(command: Command): Command {
  return command
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
    );
}

/** The flags that choose who answers: `--backend`, `--exec`, `--controller-pane`. */
function addAnswererOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--backend <backend>',
        'who answers: file (outbox/<id>.txt), exec (a command per request), interactive (the controller pane); default: implied by --exec or --controller-pane, else file',
      )
        .choices(['file', 'exec', 'interactive'])
        .env('MACS_BACKEND'),
    )
    .addOption(
      new Option(
        '--exec <arg>',
        'the exec command, one argument per --exec (no shell), or a JSON array: --exec \'["claude","-p"]\'',
      )
        .argParser((value: string, previous: string[] | undefined) => [
          ...(previous ?? []),
          value,
        ])
        .env('MACS_EXEC'),
    )
    .addOption(
      new Option('--exec-preset <name>', 'a ready-made exec command')
        .choices(['codex', 'claude', 'gemini'])
        .env('MACS_EXEC_PRESET'),
    )
    .addOption(
      new Option(
        '--controller-pane <pane>',
        "the live controller agent's pane, e.g. %1 (the interactive backend)",
      ).env('MACS_CONTROLLER_PANE'),
    );
}

/** The flags of how the bridge runs: `--all`, `--no-split`, `--quiet`, ... */
function addRunOptions(command: Command): Command {
  return command
    .option(
      '--all',
      'supervise every agent of the session (.macs/session.json, @macs_agent panes) from this one process',
    )
    .option('--no-split', 'send the whole response, notes included')
    .option(
      '--heuristics',
      'also make requests (type=heuristic) when an idle worker asks a question without a request block (MACS_HEURISTICS=1; config "heuristics")',
    )
    .option(
      '--non-interactive',
      'run unattended: answer every request at once, nobody asked (MACS_NON_INTERACTIVE=1; config "nonInteractive")',
    )
    .option('--quiet', 'do not print events as they happen');
}
