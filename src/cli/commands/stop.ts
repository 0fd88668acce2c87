// `macs stop`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { StopOptions } from '../stop.js';

export function registerStopCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('stop')
      .description(
        'end the session: the bridge stops, each agent gets the interrupt key (a shell at its prompt a hang-up) and its pane is killed after a grace period, then the status view and the tmux server go',
      )
      .addOption(
        new Option(
          '--grace-sec <seconds>',
          'how long each program gets to exit after the interrupt key (default: stopGraceSec, 5)',
        ).env('MACS_STOP_GRACE_SEC'),
      )
      .option(
        '--host <name>',
        "stop only this host's session (a host of macs.config.json, docs/remote.md)",
      ),
  ).action((opts: StopOptions) =>
    run(import('../stop.js').then((m) => m.runStop(opts, deps))),
  );
}
