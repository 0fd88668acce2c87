// `macs dismiss`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { DismissOptions } from '../dismiss.js';

export function registerDismissCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('dismiss')
      .description(
        'end pending requests without an answer (archived as dismissed, never sent to the worker)',
      )
      .argument('<id...>', 'request ids, as `macs inbox` lists them')
      .option('--reason <text>', 'why (kept in the archive and the event log)')
      .option('--json', 'print the outcome of each id as JSON'),
  )
    .addHelpText(
      'after',
      `
A request whose answer is already being typed cannot be dismissed. With a
bridge running for the agent, the bridge ends the request (it is asked through
outbox/<id>.dismiss); otherwise macs ends it at once.

Examples:
  macs dismiss worker-1-q-17
  macs dismiss worker-1-q-17 worker-2-q-3 --reason "superseded by the new plan"
Exit: 0 all dismissed, 1 some were not pending or too late, 2 bad usage or
config.`,
    )
    .action((ids: string[], opts: DismissOptions) =>
      run(import('../dismiss.js').then((m) => m.runDismiss(ids, opts, deps))),
    );
}
