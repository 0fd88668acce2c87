// `macs start`: its flags; the command itself (start-run.ts) is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from './options.js';
import type { StartOptions } from './start-run.js';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `macs start`'s options that say who runs and who answers. */
function withAgentOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--backend <backend>',
        'who answers requests (default: the config, else file)',
      )
        .choices(['file', 'exec', 'interactive'])
        .env('MACS_BACKEND'),
    )
    .addOption(
      new Option(
        '--worker <cmd>',
        'a worker to run (a shell command line); repeat for more: worker-1, worker-2, …',
      )
        .argParser(collect)
        .env('MACS_WORKER'),
    )
    .addOption(
      new Option(
        '--controller <cmd>',
        'the controller agent to run (a shell command line)',
      ).env('MACS_CONTROLLER'),
    )
    .addOption(
      new Option(
        '--from-hub',
        "(run by a hub) add the hub's workers for this host and follow the hub's policy, read as JSON from stdin",
      ).hideHelp(),
    );
}

const START_HELP = `
Examples:
  macs start --demo             the whole loop with scripted agents
  macs start --worker "codex" --worker "claude"
  macs start --controller "claude" --worker "codex" --backend interactive
  macs start --detach           agents from macs.config.json (docs/config.md)

The session lives on a private tmux server per home
(tmux -L macs-<project>-<hash>): window "agents" (controller and workers,
tiled), "bridge" (macs bridge --all) and "status" (macs status --watch). It is
recorded in .macs/session.json. Not on a terminal, it starts detached. End it
with macs stop. See docs/session.md.

Each start is a new session with its own id: requests still open from an
earlier session are expired (archived, never sent: the new agents never asked
them) and listed. With the session still running, --resume starts its bridge
and status windows again and keeps everything else (docs/reliability.md).
After a reboot (the session's tmux server gone), --resume brings the session
recorded in .macs/session.json back: each agent in its pane, folder and
worktree, continuing its conversation (Claude Code, Codex, Gemini CLI) or
started fresh, saying which; open requests expire as at any start.
Exit: 0 ok, 1 failure (e.g. already running), 2 bad usage or config,
3 tmux missing.`;

export function registerStartCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    withAgentOptions(
      program
        .command('start')
        .description(
          'start a session: controller and worker panes, one bridge for all of them, and the status view, on a private tmux server; then attach',
        )
        .addOption(
          new Option(
            '--demo',
            'the built-in scripted controller and worker: the whole loop with no AI installed',
          ).env('MACS_DEMO'),
        )
        .addOption(
          new Option(
            '--detach',
            'do not attach; print how to attach instead (with --demo: wait for the demo and print what happened)',
          ).env('MACS_DETACH'),
        )
        .option('--no-wait', 'with --demo --detach: return at once')
        .addOption(
          new Option(
            '--non-interactive',
            'run unattended: answer every request at once, nobody asked (docs/unattended.md)',
          ).env('MACS_NON_INTERACTIVE'),
        ),
    ).option(
      '--resume',
      'bring the recorded session back: running, its bridge and status windows start again; after a reboot (its tmux server gone), every agent starts again as it was launched, continuing its conversation',
    ),
  )
    .addHelpText('after', START_HELP)
    .action((opts: StartOptions) =>
      run(import('./start-run.js').then((m) => m.runStart(opts, deps))),
    );
}
