// `macs pause`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from '../options.js';

export function registerPauseCommands(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('pause')
      .description(
        'hold deliveries to an agent: answers wait (kept) until macs resume',
      )
      .argument('<agent>', 'the agent, as macs status lists it'),
  ).action((agent: string, opts: CommonOptions) =>
    run(import('../pause.js').then((m) => m.runPause(agent, true, opts, deps))),
  );
  addCommonOptions(
    program
      .command('resume')
      .description('release deliveries to an agent held by macs pause')
      .argument('<agent>', 'the agent, as macs status lists it'),
  ).action((agent: string, opts: CommonOptions) =>
    run(
      import('../pause.js').then((m) => m.runPause(agent, false, opts, deps)),
    ),
  );
}
