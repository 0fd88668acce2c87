// `macs inbox`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { InboxOptions } from '../inbox.js';

export function registerInboxCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('inbox')
      .description(
        'list pending requests: id, agent, type, stage, age, first line',
      )
      .option('--json', 'print the requests as JSON')
      .option('--agent <name>', 'only this agent'),
  ).action((opts: InboxOptions) =>
    run(import('../inbox.js').then((m) => m.runInbox(opts, deps))),
  );
}
