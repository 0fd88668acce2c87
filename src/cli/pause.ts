// `macs pause`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { AgentError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';

/** `macs pause <agent>` / `macs resume <agent>`. */
export async function runPause(
  agent: string,
  paused: boolean,
  opts: CommonOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { createEventLog },
    { listHomeAgents, pauseDelivery },
    { createContext },
    { forwardIfRemote },
  ] = await Promise.all([
    import('../events/log.js'),
    import('../operations/pause-delivery.js'),
    import('./common.js'),
    import('./remote.js'),
  ]);
  const ctx = createContext(opts, deps);
  const remote = await forwardIfRemote(agent, 'agent', ctx, deps, (name) => [
    paused ? 'pause' : 'resume',
    name,
  ]);
  if (remote !== undefined) return remote;
  const known = await listHomeAgents(ctx.paths);
  if (!known.includes(agent))
    throw new AgentError(`no agent '${agent}' in ${ctx.paths.home}`, {
      hint: known.length
        ? `its agents: ${known.join(', ')}`
        : 'start a session first (macs start)',
    });
  await pauseDelivery(
    ctx.paths,
    createEventLog(ctx.paths),
    agent,
    paused,
    paused ? 'macs pause' : 'macs resume',
  );
  deps.output.out(
    paused
      ? `delivery to ${agent} paused: its answers wait (kept) until macs resume ${agent}`
      : `delivery to ${agent} resumed`,
  );
  return 0;
}

export function registerPauseCommands(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('pause')
      .description(
        'hold deliveries to an agent: answers wait (kept) until macs resume',
      )
      .argument('<agent>', 'the agent, as macs status lists it'),
  ).action((agent: string, opts: CommonOptions) =>
    run(runPause(agent, true, opts, deps)),
  );
  addCommonOptions(
    program
      .command('resume')
      .description('release deliveries to an agent held by macs pause')
      .argument('<agent>', 'the agent, as macs status lists it'),
  ).action((agent: string, opts: CommonOptions) =>
    run(runPause(agent, false, opts, deps)),
  );
}
