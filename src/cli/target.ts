// `macs target`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { ConfigError } from '../errors.js';
import type { TargetResult } from '../session/pin-target.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';

export interface TargetOptions extends CommonOptions {
  clear?: boolean;
}

/**
 * `macs target <agent> <pane>`: pin the pane an agent name refers to (the
 * first rule of pane discovery; session/pin-target.ts). Without a pane it
 * shows which pane the name finds now; `--clear` removes the pin.
 */
export async function runTarget(
  agent: string,
  pane: string | undefined,
  opts: TargetOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ isValidAgentName }, { targetAgent }, { createContext }] =
    await Promise.all([
      import('../protocol/ids.js'),
      import('../session/pin-target.js'),
      import('./common.js'),
    ]);
  const ctx = createContext(opts, deps, { create: true });
  await ctx.loadConfig(); // a broken config is an error here too (exit 2)
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  if (opts.clear && pane !== undefined)
    throw new ConfigError('give a pane or --clear, not both');
  if (pane !== undefined && !/^%\d+$/.test(pane))
    throw new ConfigError(`'${pane}' is not a pane id like %3`, {
      hint: 'tmux display -p "#{pane_id}" prints the current pane id',
    });
  const result = await targetAgent(
    { paths: ctx.paths, agent, socket: opts.tmuxSocket, runTmux: deps.runTmux },
    { ...(pane !== undefined ? { pane } : {}), clear: opts.clear === true },
  );
  deps.output.out(`${agent}: ${describeTarget(result)}`);
  return 0;
}

/** What `macs target` did, after the agent's name. */
function describeTarget(result: TargetResult): string {
  switch (result.type) {
    case 'cleared':
      return 'pin removed';
    case 'found':
      return `${result.pane} on ${result.server} (found by rule: ${result.rule})${result.pinElsewhere ? `; the pinned pane ${result.pinElsewhere} is not on this server` : ''}`;
    case 'pinned':
      return `pinned to ${result.described} on ${result.server}; bridges started from now on use it`;
  }
}

export function registerTargetCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('target')
      .description(
        'pin the pane an agent name refers to (or show which pane the name finds now)',
      )
      .argument('<agent>', 'the agent name, e.g. worker-1')
      .argument('[pane]', 'the pane id, e.g. %3')
      .option('--clear', 'remove the pin'),
  )
    .addHelpText(
      'after',
      `
Pane discovery, when a command is given an agent but no pane: the pinned pane,
then the pane tagged @macs_agent=<name>, then a window or pane title containing
the name, then a pane running the preset's program. Several candidates at one
step is an error that lists them.`,
    )
    .action((agent: string, pane: string | undefined, opts: TargetOptions) =>
      run(runTarget(agent, pane, opts, deps)),
    );
}
