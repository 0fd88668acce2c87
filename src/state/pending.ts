import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import { readAgentState } from './store.js';
import type { AgentStateFile, RequestRecord } from './types.js';
import { compareAgentNames } from './agent-order.js';

/** Every agent's state file under home (unreadable ones are skipped). */
export async function readAllAgentStates(
  paths: HomePaths,
): Promise<AgentStateFile[]> {
  let names: string[];
  try {
    names = await readdir(paths.state);
  } catch {
    return [];
  }
  const states: AgentStateFile[] = [];
  const agents = names
    .filter((n) => n.endsWith('.json'))
    .map((n) => path.basename(n, '.json'))
    .sort(compareAgentNames);
  for (const agent of agents) {
    const state = await readAgentState(paths, agent);
    if (state) states.push(state);
  }
  return states;
}

/** Requests not yet delivered, oldest first (high priority first within the same second). */
export async function listOpenRequests(
  paths: HomePaths,
): Promise<RequestRecord[]> {
  const states = await readAllAgentStates(paths);
  const rank = { high: 0, normal: 1, low: 2 } as const;
  return states
    .flatMap((s) => Object.values(s.requests))
    .sort(
      (a, b) =>
        rank[a.priority] - rank[b.priority] ||
        a.detectedAt.localeCompare(b.detectedAt),
    );
}
