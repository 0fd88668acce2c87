/**
 * A Claude Code teammate's hooks (docs/hooks.md "Agent teams"): the teammate
 * runs with its lead's `--settings`, so every hook it runs names the lead
 * (`--agent <lead>`). Run from the pane of a teammate macs adopted, the call
 * speaks for that teammate (`<lead>.<teammate>`), never for the lead; from
 * any other pane it stays the lead's, and origin.ts refuses it as ever.
 */
import type { HomePaths } from '../home/paths.js';
import { readTeammates, teammateInPane } from '../state/teammates.js';

/** The agent a hook that names `agent` speaks for, run from `tmuxPane`. */
export async function routeTeammateHook(
  paths: HomePaths,
  agent: string,
  tmuxPane: string | undefined,
): Promise<string> {
  if (!tmuxPane) return agent;
  return (
    teammateInPane(await readTeammates(paths), agent, tmuxPane)?.agent ?? agent
  );
}
