/**
 * An agent's screen as a person sees it: the rendered text of its tmux pane
 * (no colours, escape sequences and control characters removed), its last
 * lines. The MCP `read_screen` tool and the page of `macs web` both read
 * screens through here.
 */
import type { HomePaths } from '../home/paths.js';
import { sanitizeText } from '../protocol/sanitize.js';
import { readSessionRecord } from '../session/record.js';
import type { AgentSnapshot } from '../state/snapshot-schema.js';
import { PaneNotFoundError, type TmuxClient } from '../tmux/client.js';
import { Refusal } from './refusal.js';
import type { AgentScreen } from './types.js';

/** The pane of an agent: its state file's, else the session record's. */
export async function findAgentPane(
  paths: HomePaths,
  agent: string,
  agents: readonly AgentSnapshot[],
): Promise<string | undefined> {
  const fromState = agents.find((a) => a.name === agent)?.pane;
  if (fromState) return fromState;
  const record = await readSessionRecord(paths).catch(() => undefined);
  return record?.agents.find((a) => a.name === agent)?.pane;
}

/**
 * The last `lines` lines of an agent's pane (default: its height); more
 * than its height reach into the scrollback. A refusal says why there is
 * no screen (an unknown agent, a pane gone).
 */
export async function readAgentScreen(options: {
  paths: HomePaths;
  agents: readonly AgentSnapshot[];
  tmux: TmuxClient;
  agent: string;
  lines?: number;
}): Promise<AgentScreen> {
  const { agent, tmux } = options;
  const pane = await findAgentPane(options.paths, agent, options.agents);
  if (!pane)
    throw new Refusal(`unknown agent '${agent}'; list_agents shows the agents`);
  let info;
  try {
    info = await tmux.paneInfo(pane);
  } catch (error) {
    if (error instanceof PaneNotFoundError)
      throw new Refusal(
        `agent '${agent}' has no pane any more (${pane} is gone)`,
        agent,
      );
    throw error;
  }
  const lines = options.lines ?? info.height;
  const raw = await tmux.capturePane(
    pane,
    lines > info.height ? { start: -(lines - info.height) } : {},
  );
  const all = raw.replace(/\n$/, '').split('\n');
  while (all.length > 0 && !all[all.length - 1]?.trim()) all.pop();
  return {
    agent,
    pane,
    dead: info.dead,
    width: info.width,
    height: info.height,
    lines: all.slice(-lines).map((l) => sanitizeText(l).trimEnd()),
  };
}
