import { createEventLog } from '../events/log.js';
import { restartAgent } from '../session/change-agents.js';
import { describeLaunchChoice } from '../session/resume-launch.js';
import { createContext } from './common.js';
import { forwardIfRemote } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand, openRunningSession } from './session-common.js';

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
  const ctx = createContext(opts, deps);
  const remote = await forwardIfRemote(agent, 'agent', ctx, deps, (name) => [
    'restart',
    name,
  ]);
  if (remote !== undefined) return remote;
  const { config } = await ctx.loadConfig();
  const { record, tmux } = await openRunningSession(opts, deps, ctx.paths);
  const { entry, newPane, wasRunning, choice } = await restartAgent(
    {
      tmux,
      paths: ctx.paths,
      record,
      config,
      events: createEventLog(ctx.paths),
      log: ctx.log.child({ component: 'restart' }),
      env: deps.env,
    },
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
