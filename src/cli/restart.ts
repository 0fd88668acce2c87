import type { Command } from 'commander';
import { createEventLog } from '../events/log.js';
import { restartAgent } from '../session/agents.js';
import {
  addCommonOptions,
  createContext,
  type CliDeps,
  type CommonOptions,
} from './common.js';
import { hintCommand, openRunningSession } from './session-common.js';

/** `macs restart <agent>`: run a dead or stuck agent's program again in its pane. */
export async function runRestart(
  agent: string,
  opts: CommonOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const { record, tmux } = await openRunningSession(opts, deps, ctx.paths);
  const { entry, newPane, wasRunning } = await restartAgent(
    {
      tmux,
      paths: ctx.paths,
      record,
      config,
      events: createEventLog(ctx.paths),
      log: ctx.log.child({ component: 'restart' }),
    },
    agent,
  );
  deps.output.out(
    `restarted ${agent} in ${newPane ? 'a new pane' : 'its pane'} ${entry.pane}${entry.pid ? ` (pid ${entry.pid})` : ''}${wasRunning ? '; the program that ran there was ended' : ''}`,
  );
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
      .argument('<agent>', 'the agent, as macs status lists it'),
  )
    .addHelpText(
      'after',
      `
A program still running in the pane is ended first (respawn-pane -k). A pane
that was closed is made anew in the agents window. The restarted program is a
new agent: requests the old one left open are expired by the bridge, never
answered into the new one. The bridge types the worker protocol again when
the agent gets a first message (docs/session.md).`,
    )
    .action((agent: string, opts: CommonOptions) =>
      run(runRestart(agent, opts, deps)),
    );
}
