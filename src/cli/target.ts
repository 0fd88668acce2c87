import { AgentError, ConfigError } from '../errors.js';
import { isValidAgentName } from '../protocol/ids.js';
import { describePane, discoverPane } from '../session/discover.js';
import { readPins, readSessionRecord, writePin } from '../session/record.js';
import { createTmuxClient } from '../tmux/client.js';
import { createContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';

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
