/**
 * The pane an agent name refers to (`macs target`): which pane discovery
 * finds now, and the pin that makes it the first rule (SPEC §5), refused
 * for a pane another agent owns.
 */
import { AgentError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { createTmuxClient, type PaneInfo } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import { describePane, discoverPane } from './discover.js';
import { readPins, readSessionRecord, writePin } from './record.js';

export interface TargetQuery {
  paths: HomePaths;
  agent: string;
  /** `--tmux-socket`; else the session's server. */
  socket: string | undefined;
  runTmux: RunTmux;
}

/** What `macs target` did: where `server` names the tmux server, for people. */
export type TargetResult =
  | { type: 'cleared' }
  | {
      type: 'found';
      pane: string;
      rule: string;
      server: string;
      /** A pinned pane that is not on this server. */
      pinElsewhere?: string;
    }
  | { type: 'pinned'; described: string; server: string };

/** The server an agent's pane is looked for on: the flag's, else the session's. */
async function targetServer(query: TargetQuery) {
  // The session's server when there is one, like every session command.
  const socket = query.socket ?? (await readSessionRecord(query.paths))?.socket;
  const tmux = createTmuxClient(socket, query.runTmux);
  const server = socket ? `tmux -L ${socket}` : 'the default tmux server';
  return { socket, tmux, server };
}

/**
 * Show, pin or clear the pane of `query.agent`: `pane` pins it (a pane
 * another agent owns is refused with an AgentError), `clear` removes the
 * pin, neither says which pane the name finds now.
 */
export async function targetAgent(
  query: TargetQuery,
  how: { pane?: string; clear?: boolean },
): Promise<TargetResult> {
  const { paths, agent } = query;
  const { socket, tmux, server } = await targetServer(query);
  if (how.clear) {
    await writePin(paths, agent, undefined);
    return { type: 'cleared' };
  }
  const { pane } = how;
  if (pane === undefined) {
    const pin = (await readPins(paths))[agent];
    const found = await discoverPane({ agent, tmux, paths });
    const elsewhere = pin && found.rule !== 'pinned' ? pin.pane : undefined;
    return {
      type: 'found',
      ...{ pane: found.pane, rule: found.rule, server },
      ...(elsewhere ? { pinElsewhere: elsewhere } : {}),
    };
  }
  const info = await tmux.paneInfo(pane);
  await refuseOwnedPane(query, pane, info, socket);
  await writePin(paths, agent, {
    pane,
    ...(socket ? { socket } : {}),
    pinnedAt: new Date().toISOString(),
  });
  return { type: 'pinned', described: describePane(info), server };
}

/**
 * SPEC §5: a pane tagged for one agent (or the session's pane of another)
 * is never taken by another, so discovery would refuse this pin anyway;
 * say so now.
 */
async function refuseOwnedPane(
  { paths, agent }: TargetQuery,
  pane: string,
  info: PaneInfo,
  socket: string | undefined,
): Promise<void> {
  const record = await readSessionRecord(paths);
  const owner =
    info.agentTag && info.agentTag !== agent
      ? { name: info.agentTag, by: `@macs_agent=${info.agentTag}` }
      : record && record.socket === socket
        ? record.agents
            .filter((a) => a.name !== agent && a.pane === pane)
            .map((a) => ({ name: a.name, by: 'the session record' }))[0]
        : undefined;
  if (!owner) return;
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
