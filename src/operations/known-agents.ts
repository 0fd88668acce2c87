/**
 * The agents a home knows by name, for commands that take one and must
 * refuse a name it does not know (a typo would otherwise write hooks or
 * print "no events" for an agent that never existed).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import type { HomePaths } from '../home/paths.js';
import { readSessionRecord } from '../session/record.js';
import { readAllAgentStates } from '../state/pending.js';

/**
 * The names of the config's controller and workers (this machine's), the
 * session's agents, and every agent with a state file; with `events`, also
 * every agent with an event log (an agent of an earlier session). Sorted.
 */
export async function listKnownAgents(
  paths: HomePaths,
  config: Pick<MacsConfig, 'workers' | 'controller'>,
  options: { events?: boolean } = {},
): Promise<string[]> {
  const [record, states, logs] = await Promise.all([
    readSessionRecord(paths),
    readAllAgentStates(paths),
    options.events
      ? readdir(paths.events).catch(() => [] as string[])
      : Promise.resolve([] as string[]),
  ]);
  return [
    ...new Set([
      ...(config.controller ? [config.controller.name] : []),
      ...localWorkers(config).map((w) => w.name),
      ...(record?.agents.map((a) => a.name) ?? []),
      ...states.map((s) => s.agent),
      ...logs
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.basename(f, '.jsonl')),
    ]),
  ].sort();
}

/** "its agents: a, b" or, for a home with none, what to do first. */
export function describeKnownAgents(known: readonly string[]): string {
  return known.length > 0
    ? `its agents: ${known.join(', ')}`
    : 'it has no agents yet: start a session (macs start), or name the agent in macs.config.json';
}
