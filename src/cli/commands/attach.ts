// `macs attach`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from '../options.js';

export function registerAttachCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('attach')
      .argument(
        '[agent]',
        "select this agent's pane; <host>/<agent>: over ssh -t on that host",
      )
      .description(
        "attach this terminal to the home's session (detach again: tmux prefix, then d)",
      ),
  ).action((agent: string | undefined, opts: CommonOptions) =>
    run(import('../attach.js').then((m) => m.runAttach(opts, deps, agent))),
  );
}
