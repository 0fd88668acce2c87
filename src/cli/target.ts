// `macs target`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { AgentError, ConfigError } from '../errors.js';
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
 * first rule of pane discovery). Without a pane it shows which pane the name
 * finds now; `--clear` removes the pin.
 */
export async function runTarget(
  agent: string,
  pane: string | undefined,
  opts: TargetOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { isValidAgentName },
    { describePane, discoverPane },
    { readPins, readSessionRecord, writePin },
    { createTmuxClient },
    { createContext },
  ] = await Promise.all([
    import('../protocol/ids.js'),
    import('../session/discover.js'),
    import('../session/record.js'),
    import('../tmux/client.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps, { create: true });
  await ctx.loadConfig(); // a broken config is an error here too (exit 2)
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  // The session's server when there is one, like every session command.
  const socket =
    opts.tmuxSocket ?? (await readSessionRecord(ctx.paths))?.socket;
  const tmux = createTmuxClient(socket, deps.runTmux);
  const server = socket ? `tmux -L ${socket}` : 'the default tmux server';
  if (opts.clear) {
    if (pane !== undefined)
      throw new ConfigError('give a pane or --clear, not both');
    await writePin(ctx.paths, agent, undefined);
    deps.output.out(`${agent}: pin removed`);
    return 0;
  }
  if (pane === undefined) {
    const pin = (await readPins(ctx.paths))[agent];
    const found = await discoverPane({ agent, tmux, paths: ctx.paths });
    deps.output.out(
      `${agent}: ${found.pane} on ${server} (found by rule: ${found.rule})${pin && found.rule !== 'pinned' ? `; the pinned pane ${pin.pane} is not on this server` : ''}`,
    );
    return 0;
  }
  if (!/^%\d+$/.test(pane))
    throw new ConfigError(`'${pane}' is not a pane id like %3`, {
      hint: 'tmux display -p "#{pane_id}" prints the current pane id',
    });
  const info = await tmux.paneInfo(pane);
  const record = await readSessionRecord(ctx.paths);
  const owner =
    info.agentTag && info.agentTag !== agent
      ? { name: info.agentTag, by: `@macs_agent=${info.agentTag}` }
      : record && record.socket === socket
        ? record.agents
            .filter((a) => a.name !== agent && a.pane === pane)
            .map((a) => ({ name: a.name, by: 'the session record' }))[0]
        : undefined;
  if (owner) {
    // SPEC §5: a pane tagged for one agent is never taken by another, so
    // discovery would refuse this pin anyway; say so now.
    const untag = info.agentTag
      ? `, or untag it if ${owner.name} no longer runs there (tmux${socket ? ` -L ${socket}` : ''} set-option -p -u -t ${pane} @macs_agent)`
      : '';
    throw new AgentError(
      `pane ${pane} belongs to agent '${owner.name}' (${owner.by}), not to '${agent}'; nothing was pinned`,
      {
        hint: `a pane of one agent is never used for another: pin ${agent} to a pane of its own (macs target ${agent} %N)${untag}`,
      },
    );
  }
  await writePin(ctx.paths, agent, {
    pane,
    ...(socket ? { socket } : {}),
    pinnedAt: new Date().toISOString(),
  });
  deps.output.out(
    `${agent}: pinned to ${describePane(info)} on ${server}; bridges started from now on use it`,
  );
  return 0;
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
