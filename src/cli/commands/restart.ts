// `macs restart`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { RestartOptions } from '../restart.js';

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
      run(import('../restart.js').then((m) => m.runRestart(agent, opts, deps))),
    );
}
