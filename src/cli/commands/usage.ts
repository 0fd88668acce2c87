// `macs usage`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { UsageOptions } from '../usage.js';

export function registerUsageCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('usage')
      .description(
        "tokens and cost of the agents' model calls, from their own records",
      )
      .addOption(
        new Option(
          '--since <when>',
          'only since a duration ago (30m, 2h, 1d) or an ISO date',
        ),
      )
      .addOption(
        new Option('--by <what>', 'one row per agent, model or day')
          .choices(['agent', 'model', 'day'])
          .default('agent'),
      )
      .option('--json', 'print JSON: { by, since, rows, total }'),
  ).action((opts: UsageOptions) =>
    run(import('../usage.js').then((m) => m.runUsage(opts, deps))),
  );
}
