import { AgentError } from '../errors.js';
import { createEventLog, type EventSink } from '../events/log.js';
import { readSessionRecord } from '../session/record.js';
import { setDeliveryPaused } from '../state/control.js';
import type { HomePaths } from '../home/paths.js';
import { readAllAgentStates } from '../state/pending.js';
import { createContext } from './common.js';
import { forwardIfRemote } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';

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

/** `macs pause <agent>` / `macs resume <agent>`. */
export async function runPause(
  agent: string,
  paused: boolean,
  opts: CommonOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  const remote = await forwardIfRemote(agent, 'agent', ctx, deps, (name) => [
    paused ? 'pause' : 'resume',
    name,
  ]);
  if (remote !== undefined) return remote;
  const record = await readSessionRecord(ctx.paths);
  const known = new Set([
    ...(record?.agents.map((a) => a.name) ?? []),
    ...(await readAllAgentStates(ctx.paths)).map((s) => s.agent),
  ]);
  if (!known.has(agent))
    throw new AgentError(`no agent '${agent}' in ${ctx.paths.home}`, {
      hint: known.size
        ? `its agents: ${[...known].sort().join(', ')}`
        : 'start a session first (macs start)',
    });
  await pauseDelivery(
    ctx.paths,
    createEventLog(ctx.paths),
    agent,
    paused,
    paused ? 'macs pause' : 'macs resume',
  );
  deps.output.out(
    paused
      ? `delivery to ${agent} paused: its answers wait (kept) until macs resume ${agent}`
      : `delivery to ${agent} resumed`,
  );
  return 0;
}
