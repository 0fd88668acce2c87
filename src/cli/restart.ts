// `macs restart`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';

export interface RestartOptions extends CommonOptions {
  /** Start a new conversation instead of continuing the agent's own. */
  fresh?: boolean;
}

/**
 * `macs restart <agent>`: run a dead or stuck agent's program again in its
 * pane, continuing its conversation unless `--fresh`.
 */
export async function runRestart(
  agent: string,
  opts: RestartOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { restartInRunningSession },
    { describeLaunchChoice },
    { createContext },
    { forwardIfRemote },
    { hintCommand, invocation },
  ] = await Promise.all([
    import('../session/running-changes.js'),
    import('../session/resume-launch.js'),
    import('./common.js'),
    import('./remote.js'),
    import('./session-common.js'),
  ]);
  const ctx = createContext(opts, deps);
  const remote = await forwardIfRemote(agent, 'agent', ctx, deps, (name) => [
    'restart',
    name,
  ]);
  if (remote !== undefined) return remote;
  const { config } = await ctx.loadConfig();
  const { entry, newPane, wasRunning, choice } = await restartInRunningSession(
    { inv: invocation(opts, deps), home: ctx, runTmux: deps.runTmux, config },
    agent,
    { fresh: Boolean(opts.fresh) },
  );
  deps.output.out(
    `restarted ${agent} in ${newPane ? 'a new pane' : 'its pane'} ${entry.pane}${entry.pid ? ` (pid ${entry.pid})` : ''}${wasRunning ? '; the program that ran there was ended' : ''}`,
  );
  deps.output.out(`  ${describeLaunchChoice(choice)}`);
  deps.output.out(
    `  its open requests are ended by the bridge (the new program never asked them); see ${hintCommand(`events --agent ${agent}`, opts, deps)}`,
  );
  return 0;
}

export function registerRestartCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('restart')
      .description(
        "run a dead or stuck agent's program again in its pane (same command, same folder or worktree)",
      )
      .argument('<agent>', 'the agent, as macs status lists it')
      .option(
        '--fresh',
        'start a new conversation (default: the agent continues its own, where its program can)',
      ),
  )
    .addHelpText(
      'after',
      `
A program still running in the pane is ended first (respawn-pane -k). A pane
that was closed is made anew in the agents window. The restarted program is a
new program: requests the old one left open are expired by the bridge, never
answered into the new one. It continues the agent's conversation where the
program can (Claude Code: --resume <id>; Codex: resume <id>; Gemini CLI:
--resume <id>), with the id the agent reported; --fresh starts a new one, and
so does an agent whose program cannot resume or whose id is unknown (it says
so). The bridge types the worker protocol again when the agent gets a first
message (docs/session.md).`,
    )
    .action((agent: string, opts: RestartOptions) =>
      run(runRestart(agent, opts, deps)),
    );
}
