// `macs add`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { AddOptions } from '../add.js';

export function registerAddCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('add')
      .description('add a worker to the running session, in a new pane')
      .argument(
        '<preset>',
        'its preset: codex, claude, gemini, aider, pi, shell, generic, or one from the config',
      )
      .addOption(
        new Option(
          '--name <name>',
          'its name (default: the next free worker-N)',
        ),
      )
      .addOption(
        new Option(
          '--command <cmd>',
          "what to run, a shell command line (default: the preset's program)",
        ),
      )
      .addOption(new Option('--cwd <dir>', 'its folder (default: the home)'))
      .addOption(
        new Option(
          '--host <name>',
          "add it to this host's session (a host of macs.config.json, docs/remote.md)",
        ),
      ),
  )
    .addHelpText(
      'after',
      `
Examples:
  macs add codex
  macs add claude --name reviewer
  macs add generic --command "python agent.py" --cwd services/api`,
    )
    .action((preset: string, opts: AddOptions) =>
      run(import('../add.js').then((m) => m.runAdd(preset, opts, deps))),
    );
}
