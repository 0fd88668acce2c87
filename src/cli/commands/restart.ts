// `macs restart`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from '../options.js';

export function registerRestartCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('restart')
      .description(
        "run a dead or stuck agent's program again in its pane (same command, same folder or worktree)",
      )
      .argument('<agent>', 'the agent, as macs status lists it'),
  )
    .addHelpText(
      'after',
      `
A program still running in the pane is ended first (respawn-pane -k). A pane
that was closed is made anew in the agents window. The restarted program is a
new agent: requests the old one left open are expired by the bridge, never
answered into the new one. The bridge types the worker protocol again when
the agent gets a first message (docs/session.md).`,
    )
    .action((agent: string, opts: CommonOptions) =>
      run(import('../restart.js').then((m) => m.runRestart(agent, opts, deps))),
    );
}
