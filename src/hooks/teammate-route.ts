/**
 * A Claude Code teammate's hooks (docs/hooks.md "Agent teams"): the teammate
 * runs with its lead's `--settings`, so every hook it runs names the lead
 * (`--agent <lead>`). Run from the pane of a teammate macs adopted, the call
 * speaks for that teammate (`<lead>.<teammate>`), never for the lead. Run
 * before the bridge adopted it (its SessionStart comes within a second, the
 * bridge looks every 5 s), it speaks for the teammate too when the hook's
 * own process runs under a teammate of that lead: a parent process whose
 * command line names the lead's recorded conversation
 * (`--parent-session-id`). From any other pane it stays the lead's, and
 * origin.ts refuses it as ever.
 */
import type { HomePaths } from '../home/paths.js';
import { readConversation } from '../state/conversation-record.js';
import { readAgentState } from '../state/store.js';
import type { AgentStateFile } from '../state/types.js';
import {
  parseTeammateArgs,
  readTeammates,
  teammateAgentName,
  teammateInPane,
} from '../state/teammates.js';
import { readProcessAncestors } from '../tmux/processes.js';

/**
 * The agent a hook that names `agent` speaks for, run from `tmuxPane` by
 * the process `pid` (the hook's own).
 */
export async function routeTeammateHook(
  paths: HomePaths,
  agent: string,
  tmuxPane: string | undefined,
  options: {
    pid?: number;
    readState?: (agent: string) => Promise<AgentStateFile | undefined>;
  } = {},
): Promise<string> {
  if (!tmuxPane) return agent;
  const readState =
    options.readState ?? ((name: string) => readAgentState(paths, name));
  const pane = (await readState(agent))?.pane;
  // The agent's own pane, the call on every hook: nothing more to read.
  if (pane === tmuxPane) return agent;
  const adopted = teammateInPane(await readTeammates(paths), agent, tmuxPane);
  if (adopted) return adopted.agent;
  // An agent with no pane recorded: its own hook.
  if (!pane) return agent;
  return (
    (await unadoptedTeammate(paths, agent, options.pid ?? process.pid)) ?? agent
  );
}

/**
 * The agent name of the teammate of `lead` the process `pid` runs under,
 * not adopted yet: its command line names the lead's recorded conversation.
 */
async function unadoptedTeammate(
  paths: HomePaths,
  lead: string,
  pid: number,
): Promise<string | undefined> {
  const conversation = (await readConversation(paths, lead))?.id;
  if (!conversation) return undefined;
  for (const p of await readProcessAncestors(pid)) {
    const args = parseTeammateArgs(p.argv);
    if (args?.parentSession === conversation)
      return teammateAgentName(lead, args.name);
  }
  return undefined;
}
