// `macs add`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { Option, type Command } from 'commander';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';

export interface AddOptions extends CommonOptions {
  /** A host of the config: the worker is added to its session (docs/remote.md). */
  host?: string;
  name?: string;
  command?: string;
  cwd?: string;
}

/** `macs add <preset>`: a new worker in the running session. */
export async function runAdd(
  preset: string,
  opts: AddOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [run, { createContext }, { forwardIfRemote }, session] =
    await Promise.all([
      import('../session/running-changes.js'),
      import('./common.js'),
      import('./remote.js'),
      import('./session-common.js'),
    ]);
  const ctx = createContext(opts, deps);
  const given = (['name', 'command', 'cwd'] as const).filter((k) => opts[k]);
  if (opts.host !== undefined) {
    // The host's own macs adds it (docs/remote.md).
    const argv = [
      'add',
      preset,
      ...given.flatMap((k) => [`--${k}`, opts[k] ?? '']),
    ];
    const forwarded = await forwardIfRemote(
      `${opts.host}/${opts.name ?? 'new'}`,
      'agent',
      ctx,
      deps,
      () => argv,
    );
    return forwarded ?? 2;
  }
  const { config } = await ctx.loadConfig();
  const inv = session.invocation(opts, deps);
  const { entry, warnings } = await run.addToRunningSession(
    { inv, home: ctx, runTmux: deps.runTmux, config },
    { preset, ...Object.fromEntries(given.map((k) => [k, opts[k]])) },
  );
  deps.output.out(
    `added ${entry.name} (preset ${entry.preset}) in pane ${entry.pane}: ${entry.command.join(' ').slice(0, 80)}`,
  );
  deps.output.out(
    `  the session's bridge supervises it within a few seconds; watch: ${session.hintCommand('status', opts, deps)}`,
  );
  for (const warning of warnings) deps.output.err(`warning: ${warning}`);
  return 0;
}

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
      run(runAdd(preset, opts, deps)),
    );
}
