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

/** `macs pause <agent>` / `macs resume <agent>` (operations/pause-delivery.ts). */
export async function runPause(
  agent: string,
  paused: boolean,
  opts: CommonOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ createEventLog }, { pauseKnownAgent }, { createContext }] =
    await Promise.all([
      import('../events/log.js'),
      import('../operations/pause-delivery.js'),
      import('./common.js'),
    ]);
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const { paths } = ctx;
  const hub = { config, env: deps.env, paths, log: ctx.log };
  const result = await pauseKnownAgent(
    { ...hub, events: createEventLog(paths) },
    agent,
    paused,
    paused ? 'macs pause' : 'macs resume',
  );
  if (result.type === 'on-host')
    for (const line of result.lines) deps.output.out(line);
  else if (result.type === 'unknown')
    throw new AgentError(`no agent '${agent}' in ${paths.home}`, {
      hint: result.known.length
        ? `its agents: ${result.known.join(', ')}`
        : 'start a session first (macs start)',
    });
  else
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
