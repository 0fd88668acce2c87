// `macs target`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { TargetOptions } from '../target.js';

export function registerTargetCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('target')
      .description(
        'pin the pane an agent name refers to (or show which pane the name finds now)',
      )
      .argument('<agent>', 'the agent name, e.g. worker-1')
      .argument('[pane]', 'the pane id, e.g. %3')
      .option('--clear', 'remove the pin'),
  )
    .addHelpText(
      'after',
      `
Pane discovery, when a command is given an agent but no pane: the pinned pane,
then the pane tagged @macs_agent=<name>, then a window or pane title containing
the name, then a pane running the preset's program. Several candidates at one
step is an error that lists them.`,
    )
    .action((agent: string, pane: string | undefined, opts: TargetOptions) =>
      run(
        import('../target.js').then((m) =>
          m.runTarget(agent, pane, opts, deps),
        ),
      ),
    );
}
