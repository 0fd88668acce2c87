// `macs events`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { EventsOptions } from '../events.js';

export function registerEventsCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('events')
      .description('query the event log (.macs/events/<agent>.jsonl)')
      .option('--agent <name>', 'only this agent')
      .option('--type <type>', 'only this type, or a prefix such as `request`')
      .option('--request <id>', 'only this request')
      .addOption(
        new Option(
          '--since <when>',
          'only since a duration ago (30s, 10m, 2h, 1d) or an ISO date',
        ),
      )
      .option('-f, --follow', 'keep printing new events until interrupted')
      .option(
        '--stats',
        'counts by type and request latency percentiles (p50/p95) per stage',
      )
      .option(
        '--json',
        'print JSON (an array; one object a line with --follow)',
      )
      .addOption(
        new Option(
          '--from-hub',
          '(run by a hub) with --follow: end when stdin ends',
        ).hideHelp(),
      ),
  ).action((opts: EventsOptions) =>
    run(import('../events.js').then((m) => m.runEvents(opts, deps))),
  );
}
