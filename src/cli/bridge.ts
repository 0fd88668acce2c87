/**
 * `macs bridge`: its flags (bridge-options.ts) and its run: the roster of
 * one pane or of the session, run in the foreground (bridge-runtime.ts,
 * bridge/foreground.ts).
 */
// Only the flags load with the program (`macs --help` starts at once);
// what the run needs is imported when it runs.
import type { Command } from 'commander';
import { addBridgeOptions, type BridgeOptions } from './bridge-options.js';
import { addCommonOptions, type CliDeps } from './options.js';

/** `macs bridge`: one agent's pane, or with `--all` every agent of the session. */
export async function runBridgeCommand(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  const { runBridge, runBridgeAll } = await import('./bridge-runtime.js');
  return opts.all ? runBridgeAll(opts, deps) : runBridge(opts, deps);
}

const BRIDGE_HELP = `
Examples:
  macs bridge --worker-pane %3 --agent worker-1 --backend file
  macs bridge --worker-pane %3 --exec-preset claude
  macs bridge --worker-pane %3 --exec my-answerer --exec --flag \\
    --exec '{promptFile}'
  macs bridge --worker-pane %3 --controller-pane %1
  macs bridge --agent worker-1   (finds the pane: pinned, @macs_agent, title,
                                 program)
  macs bridge --all              (every agent of the session of macs start)

Routing by request type, fallback and the loop guards: see docs/backends.md.

The bridge prints each event (detected, routed, answered, delivered) and keeps
its state in .macs/, so a restarted bridge carries on where it stopped.
Exit: 0 stopped, 1 failure, 2 bad usage or config, 3 tmux missing or
unreachable, 130 interrupted.`;

export function registerBridgeCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    addBridgeOptions(
      program
        .command('bridge')
        .description(
          'supervise a worker pane: detect its requests, route them, deliver the answers',
        ),
    ),
  )
    .addHelpText('after', BRIDGE_HELP)
    .action((opts: BridgeOptions) => run(runBridgeCommand(opts, deps)));
}
