// `macs send`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { SendOptions } from '../types.js';

export function registerSendCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('send')
      .description(
        'type text into an agent safely: wait until it is idle, paste, submit, confirm',
      )
      .argument('<agent>', 'the agent name, e.g. worker-1')
      .argument(
        '[text]',
        'the text; `-` (or no text with piped stdin) reads stdin',
      )
      .addOption(
        new Option(
          '--preset <name>',
          "the agent's preset (default: its state file, the config, else the pane's program)",
        ).env('MACS_PRESET'),
      )
      .addOption(
        new Option(
          '--timeout <sec>',
          'give up when the agent is not idle within this many seconds (default: deliverTimeoutSec, 600)',
        ).env('MACS_SEND_TIMEOUT'),
      )
      .option('--json', 'print what was sent as JSON'),
  )
    .addHelpText(
      'after',
      `
The agent's pane is the one its bridge supervises (.macs/state/<agent>.json),
else the pane found for the name (pinned with macs target, tagged
@macs_agent=<agent>, a title with the name, or the preset's program).
Nothing is typed while the agent is working or shows a dialog; the text goes
in as one paste, then the submit key. When nothing shows the agent took it,
the submit key (never the text) is pressed again, up to submitRetries times.

Examples:
  macs send worker-1 "Run the tests again, then summarise the failures."
  git diff | macs send worker-1 -
  macs send worker-1 --timeout 60 "Stop after this step."

Exit: 0 sent and confirmed, 1 not sent or not confirmed (unknown agent, pane
gone, still busy at the timeout), 2 bad usage or config, 3 tmux missing or
unreachable, 130 interrupted.`,
    )
    .action((agent: string, text: string | undefined, opts: SendOptions) =>
      run(import('../send.js').then((m) => m.runSend(agent, text, opts, deps))),
    );
}
