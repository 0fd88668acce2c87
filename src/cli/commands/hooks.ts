// `macs hooks`: its flags; the command itself is loaded when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { HooksOptions } from '../hooks.js';

export function registerHooksCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  const hooks = program
    .command('hooks')
    .description("add or remove macs hooks in an agent's settings");
  const common = (command: Command) =>
    addCommonOptions(
      command
        .argument('<agent>', 'the agent name')
        .option(
          '--dir <dir>',
          "the agent's project folder (default: its cwd from the config, else the current folder)",
        )
        .addOption(
          new Option(
            '--preset <name>',
            "the agent's preset (default: from the config or its state, else claude)",
          ).env('MACS_PRESET'),
        ),
    );
  common(
    hooks
      .command('install')
      .description(
        'merge macs hooks into <dir>/.claude/settings.local.json (idempotent; your own hooks stay)',
      ),
  ).action((agent: string, opts: HooksOptions) =>
    run(
      import('../hooks.js').then((m) => m.runHooksInstall(agent, opts, deps)),
    ),
  );
  common(
    hooks
      .command('uninstall')
      .description(
        "remove macs's hooks for <agent> from <dir>/.claude/settings.local.json; other hooks stay",
      ),
  ).action((agent: string, opts: HooksOptions) =>
    run(
      import('../hooks.js').then((m) => m.runHooksUninstall(agent, opts, deps)),
    ),
  );
}
