/**
 * Pausing and resuming delivery to an agent: the operation under `macs
 * pause|resume`, `p` in the status view and the page of `macs web`.
 */
import type { EventSink } from '../events/log.js';
import { readSessionRecord } from '../session/record.js';
import { setDeliveryPaused } from '../state/person-controls.js';
import type { HomePaths } from '../home/paths.js';
import { readAllAgentStates } from '../state/pending.js';
import { remoteTargetOf, runOnHost, type HubContext } from './host-forward.js';
import { compareAgentNames } from '../state/agent-order.js';

/**
 * Hold or release deliveries to an agent (`macs pause|resume`, `p` in the
 * status view): a control file the agent's bridge reads before typing.
 * Answers wait, kept, until delivery resumes; nothing else stops.
 */
export async function pauseDelivery(
  paths: HomePaths,
  events: EventSink,
  agent: string,
  paused: boolean,
  by: string,
): Promise<void> {
  await setDeliveryPaused(paths, agent, paused);
  await events.emit({
    agent,
    type: paused ? 'delivery.paused' : 'delivery.resumed',
    data: { by },
  });
}

/** The agents of a home: its session's and those with a state file, sorted. */
export async function listHomeAgents(paths: HomePaths): Promise<string[]> {
  const record = await readSessionRecord(paths);
  const known = new Set([
    ...(record?.agents.map((a) => a.name) ?? []),
    ...(await readAllAgentStates(paths)).map((s) => s.agent),
  ]);
  return [...known].sort(compareAgentNames);
}

/**
 * Pause or resume delivery to an agent: a host's (`<host>/<agent>`) by
 * that host's macs (its reply's lines), else here, recorded as `by`.
 */
export async function setAgentPaused(
  hub: HubContext & { events: EventSink },
  agent: string,
  paused: boolean,
  by: string,
): Promise<{ type: 'local' } | { type: 'on-host'; lines: string[] }> {
  const remote = remoteTargetOf(agent, 'agent', hub.config, hub.env);
  if (remote)
    return {
      type: 'on-host',
      lines: await runOnHost(remote.target, [
        paused ? 'pause' : 'resume',
        remote.name,
      ]),
    };
  await pauseDelivery(hub.paths, hub.events, agent, paused, by);
  return { type: 'local' };
}

/**
 * `macs pause|resume <agent>`: as setAgentPaused, but an agent this home
 * does not know (its session's, or one with a state file) is not paused:
 * `unknown`, with the agents it does know.
 */
export async function pauseKnownAgent(
  hub: HubContext & { events: EventSink },
  agent: string,
  paused: boolean,
  by: string,
): Promise<
  | { type: 'local' }
  | { type: 'on-host'; lines: string[] }
  | { type: 'unknown'; known: string[] }
> {
  if (!remoteTargetOf(agent, 'agent', hub.config, hub.env)) {
    const known = await listHomeAgents(hub.paths);
    if (!known.includes(agent)) return { type: 'unknown', known };
  }
  return setAgentPaused(hub, agent, paused, by);
}
