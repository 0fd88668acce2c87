// `macs status`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { StatusOptions } from '../types.js';

export function registerStatusCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('status')
      .description(
        'the status view: agents, pending requests, answers and events (one JSON snapshot with --json)',
      )
      .option('--json', 'print one snapshot as JSON (schema: docs/status.md)')
      .option(
        '--watch',
        'keep going: the live view (the default on a terminal); without a terminal or with --json, print again on each change',
      )
      .addHelpText(
        'after',
        `
On a terminal, the live view: arrows or j/k select, enter shows the detail,
r answers the selected request inline (Ctrl-D sends, Esc cancels), e answers
it in $EDITOR, p pauses or resumes delivery to the agent, a jumps to the
agent's pane, ? lists every key, q quits.

Examples:
  macs status
  macs status --json | jq '.requests[] | select(.waitingForPerson) | .id'
  macs status --json --watch     # one JSON snapshot per line, on each change`,
      ),
  ).action((opts: StatusOptions) =>
    run(import('../status.js').then((m) => m.runStatus(opts, deps))),
  );
}
